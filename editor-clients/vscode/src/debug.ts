// The `pai` debug type: VS Code's debugger for a job's Python processes, with no other extension.
// A task started under `debugpy --listen` runs debugpy's own debug adapter on that port, so an attach
// with `connect` speaks the Debug Adapter Protocol to it there (directly, or through the SSH tunnel
// the daemon opened); everything else (a launch here, an attach by `listen` or `processId`) runs
// `python -m debugpy.adapter` with the Python that runs pai-lsp, which has debugpy as a dependency.
import * as vscode from "vscode";
import { outcome, toAttach } from "./debugplan";
import { thisMachine } from "./install";
import { findPython, serverPython } from "./python";
import { DebugTarget } from "./protocol";
import { PaiServer, guarded } from "./server";
import { DebugChoices, Submitted, submit } from "./submit";

export const DEBUG_TYPE = "pai";

/** Where a task's debugpy listens and how its files map to the workspace's (what `attach` is given). */
export interface AttachTarget {
  host: string;
  port: number;
  pathMappings: { localRoot: string; remoteRoot: string }[];
}

/** The attach configuration of one target: a debug session named "<job> <task>" (one per task's process). */
export function attachConfiguration(name: string, target: AttachTarget, extra: Record<string, unknown> = {}): vscode.DebugConfiguration {
  return {
    type: DEBUG_TYPE, request: "attach", name, connect: { host: target.host, port: target.port },
    pathMappings: target.pathMappings, justMyCode: true, ...extra,
  };
}

class Adapters implements vscode.DebugAdapterDescriptorFactory {
  private python: Promise<string[]> | undefined;

  constructor(private readonly server: PaiServer) {}

  async createDebugAdapterDescriptor(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
    const config = session.configuration;
    if (config.request === "attach" && config.connect) {
      return new vscode.DebugAdapterServer(Number(config.connect.port), String(config.connect.host ?? "127.0.0.1"));
    }
    this.python ??= this.serverPython().catch((err) => {
      this.python = undefined;
      throw err;
    });
    const [program, ...args] = await this.python;
    return new vscode.DebugAdapterExecutable(program, [...args, "-m", "debugpy.adapter"]);
  }

  /** The Python that runs pai-lsp (else any Python 3.10+), checked to have debugpy. */
  private async serverPython(): Promise<string[]> {
    const machine = thisMachine();
    const python = serverPython(await this.server.serverCommand(), machine) ?? (await findPython(machine));
    if (!python) throw new Error(vscode.l10n.t("No Python was found to run the debugger (debugpy): set pai.server.command to the pai-lsp you installed."));
    const [program, ...args] = python;
    try {
      await machine.run(program, [...args, "-c", "import debugpy"]);
    } catch {
      throw new Error(vscode.l10n.t("debugpy is not installed in the Python that runs pai-lsp: run {0} -m pip install debugpy", python.join(" ")));
    }
    return python;
  }
}

/** Fills in what an attach or launch configuration leaves out, and says in one line what it lacks. */
class Configurations implements vscode.DebugConfigurationProvider {
  constructor(private readonly server: PaiServer) {}

  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!config.type && !config.request) { // F5 with no launch.json: Debug Job on a job file, else run the Python file here
      const document = vscode.window.activeTextEditor?.document;
      if (document && this.server.isJobFile(document.uri.path)) {
        void vscode.commands.executeCommand("pai-lsp.debugJob", document.uri);
        return undefined;
      }
      if (document?.languageId !== "python") return undefined; // VS Code then offers to create a launch.json
      return { type: DEBUG_TYPE, request: "launch", name: vscode.l10n.t("Debug {0}", document.uri.path.split("/").pop() ?? ""),
        program: document.uri.fsPath, justMyCode: true };
    }
    return { justMyCode: true, ...config };
  }

  resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (config.request === "attach" && config.connect && !Number.isInteger(Number(config.connect.port))) {
      void vscode.window.showErrorMessage(vscode.l10n.t("The debug configuration {0} names no port to connect to (connect.port).", config.name));
      return undefined;
    }
    if (config.request === "launch" && !config.program && !config.module) {
      void vscode.window.showErrorMessage(vscode.l10n.t("The debug configuration {0} names no program to launch.", config.name));
      return undefined;
    }
    return config;
  }
}

export function registerDebugType(context: vscode.ExtensionContext, server: PaiServer): void {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new Adapters(server)),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new Configurations(server)),
  );
}

// -- Debug Job and Attach Debugger ---------------------------------------------------------------

/** A job, its cluster and (for a task's row) one task, "role:index". */
export interface DebugRef {
  job: string;
  cluster?: string;
  task?: string;
}

/** Seconds the server waits for a task to listen before answering (a long poll, not a sleep here). */
const WAIT_SECONDS = 15;

/**
 * Attaches the editor to the tasks of a job that listen for a debugger: one debug session per task,
 * named "<job> <task>", started as each task listens. `all`: keep waiting until every debugged task
 * has been attached (a job just submitted to debug); otherwise attach what listens now.
 */
export class Attacher implements vscode.Disposable {
  /** Sessions started, by "<cluster>/<job>/<task>", until they end. */
  private readonly attached = new Set<string>();
  private readonly ended: vscode.Disposable;

  constructor(private readonly server: PaiServer) {
    // The last session of a job ended: what the daemon opened to reach its tasks (SSH tunnels) is closed.
    this.ended = vscode.debug.onDidTerminateDebugSession((session) => {
      const pai = session.configuration.pai as { job: string; cluster?: string; task: string } | undefined;
      if (session.type !== DEBUG_TYPE || !pai) return;
      this.attached.delete(key(pai.cluster, pai.job, pai.task));
      if (![...this.attached].some((k) => k.startsWith(key(pai.cluster, pai.job, "")))) {
        server.call("pai.debugEnd", { job: pai.job, cluster: pai.cluster }).catch(() => undefined);
      }
    });
  }

  async attach(ref: DebugRef, folder: vscode.WorkspaceFolder | undefined, all: boolean): Promise<void> {
    const title = vscode.l10n.t("Waiting for {0} to start under the debugger", ref.task ? `${ref.job} ${ref.task}` : ref.job);
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, cancel) => {
      let known = 0;
      for (;;) {
        const answer = await this.server.call("pai.debugTargets", { job: ref.job, cluster: ref.cluster, wait: all ? WAIT_SECONDS : 0, known });
        if (cancel.isCancellationRequested) return;
        const cluster = ref.cluster ?? answer.cluster;
        const targets = answer.targets.filter((t) => !ref.task || t.task === ref.task);
        const attached = (t: DebugTarget) => this.attached.has(key(cluster, t.job, process(t)));
        for (const target of toAttach(targets, attached)) {
          const id = key(cluster, target.job, process(target));
          this.attached.add(id);
          progress.report({ message: vscode.l10n.t("attaching to {0}", target.task) });
          const ok = await vscode.debug.startDebugging(folder, attachConfiguration(sessionName(target), target,
            { pai: { job: target.job, cluster, task: process(target) } }));
          if (!ok) this.attached.delete(id);
        }
        known = answer.targets.filter((t) => t.state === "listening").length;
        const now = outcome(targets, attached, answer.state, all);
        if (now === "none") {
          throw new Error(answer.message ?? (ref.task
            ? vscode.l10n.t("No debugger can attach to {0} of {1}: its Python does not listen for one (Debug Job starts it so).", ref.task, ref.job)
            : vscode.l10n.t("No task of {0} listens for a debugger (Debug Job starts its Python so).", ref.job)));
        }
        if (now === "quiet" && answer.message) void vscode.window.showInformationMessage(answer.message);
        if (now !== "wait") return;
        const pending = targets.filter((t) => t.state === "waiting");
        progress.report({ message: pending.length ? vscode.l10n.t("{0} not listening yet", pending.map((t) => t.task).join(", ")) : undefined });
      }
    });
  }

  dispose(): void {
    this.ended.dispose();
  }
}

function key(cluster: string | undefined, job: string, task: string): string {
  return `${cluster ?? ""}/${job}/${task}`;
}

/** One debugged process of a task: "role:index", with "#worker" where the task starts several (torchrun). */
function process(target: DebugTarget): string {
  return target.worker === null || target.worker === undefined ? target.task : `${target.task}#${target.worker}`;
}

/** A debug session's name: "<job> <role:index>", and its worker where the task starts several. */
function sessionName(target: DebugTarget): string {
  return target.worker === null || target.worker === undefined ? `${target.job} ${target.task}`
    : vscode.l10n.t("{0} {1} worker {2}", target.job, target.task, target.worker);
}

/** The workspace folder a job file is in (its path mappings are relative to it), else the first one. */
function folderOf(uri: vscode.Uri | undefined): vscode.WorkspaceFolder | undefined {
  return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
}

/** Which cluster, which tasks wait for the debugger, whether only a failure stops them (post-mortem), and (on a
 *  real cluster) how the debugger reaches them; undefined: cancelled. */
async function askDebugChoices(server: PaiServer): Promise<(DebugChoices & { cluster: string }) | undefined> {
  const clusters = (await server.call("pai.clusters.list")).clusters;
  const local = clusters.filter((c) => c.local);
  const picked = await vscode.window.showQuickPick([...local, ...clusters.filter((c) => !c.local)].map((c) => ({
    label: c.name, description: c.local ? vscode.l10n.t("this machine") : c.default ? vscode.l10n.t("default") : undefined,
    cluster: c.name, local: c.local,
  })), { title: vscode.l10n.t("Debug Job With Options"), placeHolder: vscode.l10n.t("Run the job to debug on which cluster?") });
  if (!picked) return undefined;
  const tasks = await vscode.window.showInputBox({
    title: vscode.l10n.t("Debug Job With Options"), value: "first",
    prompt: vscode.l10n.t("Which tasks wait for the debugger: first (the first instance of the first role), all, a role, or ROLE:INDEX"),
    validateInput: (text) => (/^(first|all|[A-Za-z0-9_-]+(:\d+)?)$/.test(text.trim()) ? undefined
      : vscode.l10n.t("first, all, a role's name, or ROLE:INDEX")),
  });
  if (tasks === undefined) return undefined;
  const minutes = await vscode.window.showInputBox({
    title: vscode.l10n.t("Debug Job With Options"), value: "",
    prompt: vscode.l10n.t("Post-mortem: minutes a failed task's process stays stopped at the exception for the debugger (empty: wait for the debugger at the start)"),
    validateInput: (text) => (!text.trim() || /^\d+$/.test(text.trim()) ? undefined : vscode.l10n.t("A whole number of minutes, or empty")),
  });
  if (minutes === undefined) return undefined;
  // The local cluster's tasks listen on this machine; a real cluster's may be reachable only through the task's sshd.
  const via = picked.local ? undefined : (await vscode.window.showQuickPick([
    { label: vscode.l10n.t("Directly"), description: vscode.l10n.t("the task's address and debug port"), via: "direct" },
    { label: vscode.l10n.t("Through an SSH tunnel"), description: vscode.l10n.t("the job's ssh plugin; the port listens on the task's 127.0.0.1 only"), via: "ssh" },
  ], { title: vscode.l10n.t("Debug Job With Options"), placeHolder: vscode.l10n.t("How does the debugger reach the tasks?") }))?.via;
  if (!picked.local && !via) return undefined;
  return { cluster: picked.cluster, tasks: tasks.trim(), ...(minutes.trim() ? { postMortemMinutes: Number(minutes.trim()) } : {}),
    ...(via ? { via } : {}) };
}

/** A row of the Jobs view, as its commands receive it (a job, or one of its tasks). */
type Row = { kind: "job"; job: { name: string }; cluster: { name: string } }
  | { kind: "task"; job: { job: { name: string }; cluster: { name: string } }; task: { role: string; index: number } };

function refOf(row: Row): DebugRef {
  return row.kind === "job" ? { job: row.job.name, cluster: row.cluster.name }
    : { job: row.job.job.name, cluster: row.job.cluster.name, task: `${row.task.role}:${row.task.index}` };
}

/** Pick a running job of any cluster (Attach Debugger from the Command Palette). */
async function pickRunningJob(server: PaiServer): Promise<DebugRef | undefined> {
  const clusters = (await server.call("pai.clusters.list")).clusters;
  const items = (await Promise.all(clusters.map(async (c) => {
    const page = await server.call("pai.jobs.list", { cluster: c.name, offset: 0, limit: 50 }).catch(() => undefined);
    return (page?.jobs ?? []).filter((j) => j.state === "RUNNING").map((j) => ({ label: j.name, description: c.name, ref: { job: j.name, cluster: c.name } }));
  }))).flat();
  if (!items.length) throw new Error(vscode.l10n.t("No job is running."));
  return (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t("Attach the debugger to which running job?") }))?.ref;
}

/**
 * Debug Job (code lens, editor menus, Command Palette, F5 on a job file): submit the job with its Python
 * under debugpy (`started` tells the rest of the extension, as a submit does), then attach to its tasks.
 * Attach Debugger (a running job's or task's row in the Jobs view, the Command Palette): attach to what listens.
 */
export function registerDebugCommands(context: vscode.ExtensionContext, server: PaiServer, started: (result: Submitted, target?: vscode.Uri | string) => void): void {
  const attacher = new Attacher(server);
  context.subscriptions.push(
    attacher,
    vscode.commands.registerCommand("pai-lsp.debugJob", (target?: vscode.Uri | string, choices?: DebugChoices) => guarded(async () => {
      const result = await submit(server, target, "debug", choices);
      if (!result) return undefined;
      started(result, target);
      const uri = typeof target === "string" ? vscode.Uri.parse(target) : target ?? vscode.window.activeTextEditor?.document.uri;
      await attacher.attach({ job: result.job, cluster: result.cluster }, folderOf(uri), true);
      return result;
    })),
    vscode.commands.registerCommand("pai-lsp.debugJobWith", async (target?: vscode.Uri | string) => {
      const choices = await guarded(() => askDebugChoices(server));
      if (choices) await vscode.commands.executeCommand("pai-lsp.debugJob", target ?? vscode.window.activeTextEditor?.document.uri, choices);
    }),
    vscode.commands.registerCommand("pai-lsp.job.attachDebugger", (row?: Row) => guarded(async () => {
      const ref = row?.kind === "job" || row?.kind === "task" ? refOf(row) : await pickRunningJob(server);
      if (ref) await attacher.attach(ref, folderOf(undefined), false);
    })),
  );
}
