// Thin client: starts `pai-lsp` on stdio for *.pai.json files and forwards the menu commands.
// Every feature lives in the server, so other editors get the same behaviour.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { serverCommand, documentSelector, commandArguments } from "./config";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const [command, ...args] = serverCommand(vscode.workspace.getConfiguration("pai").get<string[]>("server.command"));
  const serverOptions: ServerOptions = { command, args };
  const clientOptions: LanguageClientOptions = {
    documentSelector,
    synchronize: { configurationSection: "pai" },
    initializationOptions: { pai: vscode.workspace.getConfiguration("pai") },
  };
  client = new LanguageClient("pai-lsp", "PAI Jobs", serverOptions, clientOptions);
  for (const name of ["pai.submitJob", "pai.runLocally"]) {
    context.subscriptions.push(
      vscode.commands.registerCommand(name, async (uri?: vscode.Uri) => {
        const target = uri ?? vscode.window.activeTextEditor?.document.uri;
        return client?.sendRequest("workspace/executeCommand", { command: name, arguments: commandArguments(target?.toString()) });
      }),
    );
  }
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
