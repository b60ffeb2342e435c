"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.activate = activate;
exports.deactivate = deactivate;
// Thin client: starts `pai-lsp` on stdio for *.pai.json files and forwards the menu commands.
// Every feature lives in the server, so other editors get the same behaviour.
const vscode = require("vscode");
const node_1 = require("vscode-languageclient/node");
const config_1 = require("./config");
let client;
async function activate(context) {
    const [command, ...args] = (0, config_1.serverCommand)(vscode.workspace.getConfiguration("pai").get("server.command"));
    const serverOptions = { command, args };
    const clientOptions = {
        documentSelector: config_1.documentSelector,
        synchronize: { configurationSection: "pai" },
        initializationOptions: { pai: vscode.workspace.getConfiguration("pai") },
    };
    client = new node_1.LanguageClient("pai-lsp", "PAI Jobs", serverOptions, clientOptions);
    for (const name of ["pai.submitJob", "pai.runLocally"]) {
        context.subscriptions.push(vscode.commands.registerCommand(name, async (uri) => {
            const target = uri ?? vscode.window.activeTextEditor?.document.uri;
            return client?.sendRequest("workspace/executeCommand", { command: name, arguments: (0, config_1.commandArguments)(target?.toString()) });
        }));
    }
    await client.start();
}
async function deactivate() {
    await client?.stop();
}
//# sourceMappingURL=extension.js.map