// The language server connection, started the first time something needs it, and the one way
// the extension calls the server's commands (each answers {ok: true, …} or {ok: false, message}).
import * as vscode from "vscode";
import {
  CancellationToken, ExecuteCommandRequest, LanguageClient, LanguageClientOptions, NotificationType, ServerOptions, State,
  WorkDoneProgress, WorkDoneProgressCancelNotification,
} from "vscode-languageclient/node";
import { Catalogue, clientCommandFor, configuredServerCommand, documentSelector, isJobFile, jobFilePatterns, Manifest } from "./config";
import { findServer } from "./install";

/** A command's `{ok: false}` answer: `message` is one line for the user. */
export class CommandError extends Error {
  constructor(message: string, readonly kind: string) {
    super(message);
  }
}

type Handler = (params: any) => void;

export class PaiServer implements vscode.Disposable {
  private starting: Promise<LanguageClient> | undefined;
  private readonly handlers = new Map<string, Handler[]>();
  private readonly restartListeners: (() => void)[] = [];
  private tokens = 0;
  private catalogue: Promise<Catalogue> | undefined;
  /** The file-name patterns of job files (config.ts `jobFilePatterns`). */
  readonly jobFiles: string[];

  constructor(private readonly context: vscode.ExtensionContext) {
    this.jobFiles = jobFilePatterns(context.extension.packageJSON as Manifest);
  }

  /** True for a job file the server reads (by its name). */
  isJobFile(path: string): boolean {
    return isJobFile(path, this.jobFiles);
  }

  /** What the server knows of job files and cluster kinds (`pai.kinds`), asked once per server. */
  kinds(): Promise<Catalogue> {
    this.catalogue ??= this.call<Catalogue>("pai.kinds").catch((err) => {
      this.catalogue = undefined;
      throw err;
    });
    return this.catalogue;
  }

  /** The running client; starts (and if needed installs) the server on first use. */
  client(): Promise<LanguageClient> {
    this.starting ??= this.start().catch((err) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  /** Listen to a server notification (registered before the server starts). */
  on(method: string, handler: Handler): void {
    this.handlers.set(method, [...(this.handlers.get(method) ?? []), handler]);
  }

  /** Called when the server came back after a crash (followers and watches must be renewed). */
  onRestart(listener: () => void): void {
    this.restartListeners.push(listener);
  }

  /** Run a server command with one object argument; a failure throws CommandError. */
  call<T = any>(command: string, argument?: unknown, token?: CancellationToken): Promise<T> {
    return this.callWith<T>(command, argument === undefined ? [] : [argument], token);
  }

  /** Run a server command with positional arguments; a failure throws CommandError. */
  async callWith<T = any>(command: string, args: unknown[], token?: CancellationToken): Promise<T> {
    const client = await this.client();
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token);
    if (result && typeof result === "object" && result.ok === false) {
      throw new CommandError(String(result.message), String(result.kind ?? "server"));
    }
    return result as T;
  }

  /**
   * A fresh progress token whose `$/progress` reports reach `report`; `cancel()` sends the LSP
   * `window/workDoneProgress/cancel` for it.
   */
  async progressToken(report: (value: { kind: string; message?: string; percentage?: number }) => void) {
    const client = await this.client();
    const token = `pai-lsp-${process.pid}-${++this.tokens}`;
    const listener = client.onProgress(WorkDoneProgress.type, token, report);
    return {
      token,
      cancel: () => client.sendNotification(WorkDoneProgressCancelNotification.type, { token }),
      dispose: () => listener.dispose(),
    };
  }

  private async start(): Promise<LanguageClient> {
    const configured = configuredServerCommand(vscode.workspace.getConfiguration("pai").get("server.command"));
    const [command, ...args] = configured ?? (await findServer(this.context));
    const serverOptions: ServerOptions = { command, args };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(this.jobFiles),
      synchronize: { configurationSection: "pai" },
      initializationOptions: { pai: vscode.workspace.getConfiguration("pai"), client: { showsMessages: true } },
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
    for (const [method, handlers] of this.handlers) {
      client.onNotification(new NotificationType<any>(method), (params) => handlers.forEach((h) => h(params)));
    }
    let started = false;
    client.onDidChangeState((change) => {
      if (change.newState === State.Running && started) {
        this.catalogue = undefined; // another server may know other kinds
        this.restartListeners.forEach((l) => l());
      }
    });
    await client.start();
    started = true;
    return client;
  }

  async dispose(): Promise<void> {
    const client = await this.starting?.catch(() => undefined);
    await client?.stop();
  }
}

/** The one line to show for any failure. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Run a user action; any failure becomes exactly one error notification (a cancel the user asked for, one information). */
export async function guarded<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof CommandError && err.kind === "cancelled") void vscode.window.showInformationMessage(err.message);
    else void vscode.window.showErrorMessage(messageOf(err));
    return undefined;
  }
}
