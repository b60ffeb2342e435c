// Thin client: every feature lives in the pai language server, so other editors get the same behaviour.
// The extension's own commands are `pai-lsp.*`; the server's (`pai.*`) are registered by the language client.
import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import { isJobConfig } from "./config";
import { PaiServer } from "./server";

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const server = new PaiServer(context);
  context.subscriptions.push(server);

  const submitWith = (serverCommand: string) => async (target?: vscode.Uri | string) => {
    const uri = typeof target === "string" ? target : (target ?? vscode.window.activeTextEditor?.document.uri)?.toString();
    const client = await server.client();
    return client.sendRequest(ExecuteCommandRequest.type, { command: serverCommand, arguments: uri ? [uri] : [] });
  };
  context.subscriptions.push(
    vscode.commands.registerCommand("pai-lsp.submitJob", submitWith("pai.submitJob")),
    vscode.commands.registerCommand("pai-lsp.runLocally", submitWith("pai.runLocally")),
  );

  // Start the server as soon as a job config is open (diagnostics, code lens …).
  const startFor = (doc: vscode.TextDocument) => {
    if (doc.uri.scheme === "file" && isJobConfig(doc.uri.fsPath)) void server.client();
  };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(startFor));
  vscode.workspace.textDocuments.forEach(startFor);
}

export function deactivate(): void {}
