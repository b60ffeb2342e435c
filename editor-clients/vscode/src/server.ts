// The language server connection, started the first time something needs it.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { clientCommandFor, configuredServerCommand, documentSelector } from "./config";

export class PaiServer implements vscode.Disposable {
  private starting: Promise<LanguageClient> | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {}

  /** The running client; starts the server on first use. */
  client(): Promise<LanguageClient> {
    this.starting ??= this.start().catch((err) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  private async start(): Promise<LanguageClient> {
    const [command, ...args] = configuredServerCommand(vscode.workspace.getConfiguration("pai").get("server.command")) ?? ["pai-lsp"];
    const serverOptions: ServerOptions = { command, args };
    const clientOptions: LanguageClientOptions = {
      documentSelector,
      synchronize: { configurationSection: "pai" },
      initializationOptions: { pai: vscode.workspace.getConfiguration("pai") },
      middleware: {
        // Code lenses run the client's wrapper of a server command, so they get its progress and errors.
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          for (const lens of lenses ?? []) {
            const wrapper = lens.command && clientCommandFor(lens.command.command);
            if (wrapper && lens.command) lens.command = { ...lens.command, command: wrapper };
          }
          return lenses;
        },
      },
    };
    const client = new LanguageClient("pai-lsp", "PAI Jobs", serverOptions, clientOptions);
    await client.start();
    return client;
  }

  async dispose(): Promise<void> {
    const client = await this.starting?.catch(() => undefined);
    await client?.stop();
  }
}
