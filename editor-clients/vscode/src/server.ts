// The language server connection, started the first time something needs it, and the one way
// the extension calls the server's commands: typed by the protocol (`protocol.ts`, generated from
// the server's own classes), each answers {ok: true, …its result} or {ok: false, kind, message}.
import * as vscode from "vscode";
import {
  CancellationToken, ExecuteCommandRequest, LanguageClient, LanguageClientOptions, NotificationType, ResponseError, ServerOptions,
  State, WorkDoneProgress, WorkDoneProgressCancelNotification,
} from "vscode-languageclient/node";
import { clientCommandFor, configuredServerCommand, documentSelector, isJobFile, jobFilePatterns, Manifest } from "./config";
import { findServer } from "./install";
import { CommandFailure, Commands, FailureKind, KindsResult, Notifications } from "./protocol";

/**
 * Any failure of a server command, the one error the extension catches: the command's
 * `{ok: false, kind, message}` answer (`message`: one line for the user, in the editor's language),
 * or a request the server refused (wrong arguments: `invalid`).
 */
export class CommandError extends Error {
  constructor(message: string, readonly kind: FailureKind) {
    super(message);
  }

  static of(failure: unknown): CommandError {
    if (failure instanceof ResponseError) return new CommandError(failure.message, "invalid");
    const answer = failure as Partial<CommandFailure>;
    return new CommandError(String(answer?.message ?? failure), answer?.kind ?? "server");
  }
}

/** A command's argument and result, by its name. */
export type Argument<C extends keyof Commands> = Commands[C]["argument"];
export type Answer<C extends keyof Commands> = Commands[C]["result"];

type Handler = (params: any) => void;

export class PaiServer implements vscode.Disposable {
  private starting: Promise<LanguageClient> | undefined;
  private readonly handlers = new Map<string, Handler[]>();
  private readonly restartListeners: (() => void)[] = [];
  private tokens = 0;
  private catalogue: Promise<KindsResult> | undefined;
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
  kinds(): Promise<KindsResult> {
    this.catalogue ??= this.call("pai.kinds").catch((err) => {
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
  on<N extends keyof Notifications>(method: N, handler: (params: Notifications[N]) => void): void {
    this.handlers.set(method, [...(this.handlers.get(method) ?? []), handler as Handler]);
  }

  /** Called when the server came back after a crash (followers and watches must be renewed). */
  onRestart(listener: () => void): void {
    this.restartListeners.push(listener);
  }

  /** Run a server command with its one argument, an object; a failure throws CommandError. */
  async call<C extends keyof Commands>(command: C, argument?: Argument<C>, token?: CancellationToken): Promise<Answer<C>> {
    const client = await this.client();
    let result;
    try {
      result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: argument === undefined ? [] : [argument] }, token);
    } catch (err) {
      throw CommandError.of(err);
    }
    if (!result || typeof result !== "object" || result.ok === false) throw CommandError.of(result);
    return result as Answer<C>;
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

  /** The command line that starts the server: `pai.server.command`, else the one found (or installed). */
  async serverCommand(): Promise<[string, ...string[]]> {
    const configured = configuredServerCommand(vscode.workspace.getConfiguration("pai").get("server.command"));
    return configured ?? (await findServer(this.context));
  }

  private async start(): Promise<LanguageClient> {
    const [command, ...args] = await this.serverCommand();
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
