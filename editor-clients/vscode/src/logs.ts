// Live logs: one read-only Output channel `PAI: <job>` per job, filled from `pai/jobLog`, every task's
// log at once, as whole lines (each `[role:index] ` first when the job has several tasks). Each
// task's log arrives with its byte offset, so a chunk seen before (a resumed relay, a restarted server
// or daemon) is never written twice and the text is kept after the job ends. A log opened from the
// Jobs view starts at its last MiB (a 1 GB log does not come whole). "Filter Job Log…" shows only the
// lines of some roles, task indices and a text or regular expression — those there and those to come;
// "Load Earlier Log Lines" reads backwards, a MiB of each task's log at a time.
// A traceback's frames (`File "…/pkg/ops.py", line 3`) are links to that line of the workspace's file.
import * as fs from "fs";
import * as vscode from "vscode";
import { LineSplitter, LogFilter, TaskLog, logFrames, workspaceFileOf } from "./config";
import { EditorJobLog } from "./protocol";
import { PaiServer, guarded } from "./server";

export interface JobRef {
  job: string;
  cluster?: string | null;
}

const TAIL_BYTES = 1 << 20; // of each task's log, when a log is opened that this window has none of
const KEPT_LINES = 200_000; // lines kept per job for a filter to choose from (the oldest go first)
const EARLIER_BYTES = 1 << 20; // of each task's log read backwards by "Load Earlier Log Lines"

class JobLog {
  readonly channel: vscode.OutputChannel;
  readonly tasks = new Map<string, TaskLog>();
  readonly lines: LineSplitter;
  readonly kept: [string, string][] = [];
  readonly cut = new Set<string>(); // tasks whose log was opened mid-line: the part before the first newline is held back
  readonly first = new Map<string, number>(); // per task: the byte its log here starts at (after a tail: past 0)
  readonly heads = new Map<string, string>(); // per task: the part of a line held back at that start
  filter = new LogFilter();
  several = false;
  ended = false;
  following = false;

  constructor(readonly ref: JobRef) {
    this.channel = vscode.window.createOutputChannel(`PAI: ${ref.job}`, "log");
    this.lines = new LineSplitter((task, line) => this.line(task, line));
  }

  offsets(): Record<string, number> {
    return Object.fromEntries([...this.tasks].map(([task, log]) => [task, log.have]));
  }

  private shown(task: string, line: string): string {
    return this.several ? `[${task}] ${line}` : line;
  }

  private line(task: string, line: string): void {
    if (this.cut.delete(task)) {
      this.heads.set(task, line); // the end of a line whose start is before: joined to it when read
      return;
    }
    this.kept.push([task, line]);
    if (this.kept.length > KEPT_LINES) this.kept.splice(0, this.kept.length - KEPT_LINES);
    if (this.filter.wants(task, line)) this.channel.append(this.shown(task, line));
  }

  /** Lines read backwards, before those kept (a task's in order). */
  prepend(task: string, lines: string[]): void {
    this.kept.unshift(...lines.map((line): [string, string] => [task, line]));
    if (this.kept.length > KEPT_LINES) this.kept.splice(KEPT_LINES);
  }

  /** Show only what `filter` wants, from the lines kept, and from now on. */
  refilter(filter: LogFilter): void {
    this.filter = filter;
    const shown = this.kept.filter(([task, line]) => filter.wants(task, line)).map(([task, line]) => this.shown(task, line));
    this.channel.replace(shown.join(""));
  }
}

export class LogBook implements vscode.Disposable {
  private readonly logs = new Map<string, JobLog>();
  private last: JobLog | undefined; // the log shown last: what "Filter Job Log…" filters when no job is named

  private readonly links = vscode.languages.registerDocumentLinkProvider({ scheme: "output", language: "log" }, {
    provideDocumentLinks: (document) => frameLinks(document),
  });

  constructor(private readonly server: PaiServer) {
    server.on("pai/jobLog", (p) => this.append(p));
    server.on("pai/jobLogEnd", (p) => {
      const log = this.logs.get(p.job);
      if (!log) return;
      log.lines.flush();
      log.following = false;
      log.ended = !!p.state && ["SUCCEEDED", "FAILED", "STOPPED"].includes(p.state);
      if (p.message) log.channel.appendLine(`[pai] ${p.message}`);
    });
    // A job that waits: why, in its channel (the daemon's explanation, at most once a minute).
    server.on("pai/jobStatus", (p) => {
      const log = this.logs.get(p.job);
      if (log && p.state === "WAITING") void this.sayWhyItWaits(log);
    });
    // A restarted server has no relays: follow again from what each channel has.
    server.onRestart(() => {
      for (const log of this.logs.values()) if (!log.ended) void this.follow(log);
    });
  }

  /** The job's channel (created empty when new). */
  private get(ref: JobRef): JobLog {
    let log = this.logs.get(ref.job);
    if (!log) {
      log = new JobLog(ref);
      this.logs.set(ref.job, log);
    }
    if (ref.cluster && !log.ref.cluster) log.ref.cluster = ref.cluster;
    return log;
  }

  /** A job submitted from this window: its channel, shown; the server relays its log by itself. */
  started(ref: JobRef): void {
    const log = this.get(ref);
    log.following = true;
    this.last = log;
    log.channel.show(true);
  }

  /** Show Logs from the Jobs view: the channel, and the part of the log it does not have yet. */
  async show(ref: JobRef): Promise<void> {
    const log = this.get(ref);
    this.last = log;
    log.channel.show(true);
    if (!log.ended && !log.following) await guarded(() => this.follow(log));
  }

  /** Filter Job Log…: roles, task indices and a text or regular expression, asked for; empty shows all. */
  async filter(ref?: JobRef): Promise<void> {
    const log = ref ? this.get(ref) : this.last;
    if (!log) {
      void vscode.window.showInformationMessage(vscode.l10n.t("Open a job's log first (Show Logs in the Jobs view)."));
      return;
    }
    if (ref) await this.show(ref);
    const input = await vscode.window.showInputBox({
      title: vscode.l10n.t("Filter the log of {0}", log.ref.job),
      value: log.filter.toString(),
      placeHolder: "role:worker task:0 loss=\\d",
      prompt: vscode.l10n.t("role:NAME and task:N pick tasks; the rest is a regular expression (ignoring case). Empty: every line."),
    });
    if (input === undefined) return;
    log.refilter(LogFilter.parse(input));
    log.channel.show(true);
  }

  /** Load Earlier Log Lines: each task's EARLIER_BYTES before what the channel starts at (a log opened at its tail). */
  async earlier(ref?: JobRef): Promise<void> {
    const log = ref ? this.get(ref) : this.last;
    if (!log) return;
    let read = 0;
    for (const [task, first] of log.first) {
      if (first <= 0) continue;
      const from = Math.max(0, first - EARLIER_BYTES);
      const piece = await this.server.call("pai.job.logRead", { job: log.ref.job, cluster: log.ref.cluster ?? undefined, task,
        offset: from, length: first - from });
      const lines = (piece.text + (log.heads.get(task) ?? "")).split(/(?<=\n)/).filter(Boolean);
      if (from > 0) log.heads.set(task, lines.shift() ?? "");
      else log.heads.delete(task);
      log.first.set(task, from);
      log.prepend(task, lines);
      read += piece.length;
    }
    if (!read) {
      void vscode.window.showInformationMessage(vscode.l10n.t("The log of {0} is shown from its start.", log.ref.job));
      return;
    }
    log.refilter(log.filter);
    log.channel.show(true);
  }

  private readonly waitingSaid = new Map<string, number>();

  private async sayWhyItWaits(log: JobLog): Promise<void> {
    if (Date.now() - (this.waitingSaid.get(log.ref.job) ?? 0) < 60_000) return;
    this.waitingSaid.set(log.ref.job, Date.now());
    try {
      const result = await this.server.call("pai.job.waiting", { job: log.ref.job, cluster: log.ref.cluster ?? undefined });
      if (result.state === "WAITING") for (const line of result.lines) log.channel.appendLine(`[pai] ${line}`);
    } catch {
      // a cluster that cannot tell, or is unreachable: the channel says nothing more
    }
  }

  private async follow(log: JobLog): Promise<void> {
    log.following = true;
    const fresh = log.tasks.size === 0; // nothing of it here: its end first, however long it is
    try {
      await this.server.call("pai.job.follow", { job: log.ref.job, cluster: log.ref.cluster ?? undefined, offsets: log.offsets(),
        ...(fresh ? { tail: TAIL_BYTES } : {}) });
    } catch (err) {
      log.following = false;
      throw err;
    }
  }

  private append(p: EditorJobLog): void {
    const log = this.get(p);
    let task = log.tasks.get(p.task);
    if (!task) {
      task = new TaskLog();
      task.have = p.offset; // a log opened at its tail starts there
      log.first.set(p.task, p.offset);
      if (p.offset > 0) log.cut.add(p.task);
      log.tasks.set(p.task, task);
    }
    log.several = (p.taskCount ?? 1) > 1;
    const fresh = task.accept(p.offset, p.text, p.length);
    if (fresh) log.lines.write(p.task, fresh);
  }

  dispose(): void {
    this.links.dispose();
    for (const log of this.logs.values()) log.channel.dispose();
  }
}

/** Links from the traceback frames of a job's log to the workspace's files (those it has). */
function frameLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  if (!folders.length || document.lineCount > KEPT_LINES + 1000) return [];
  const links: vscode.DocumentLink[] = [];
  const known = new Map<string, string | undefined>();
  for (let number = 0; number < document.lineCount; number++) {
    const text = document.lineAt(number).text;
    if (!text.includes("File \"")) continue;
    for (const frame of logFrames(text)) {
      if (!known.has(frame.path)) known.set(frame.path, workspaceFileOf(frame.path, folders, (file) => fs.existsSync(file)));
      const file = known.get(frame.path);
      if (!file) continue;
      const target = vscode.Uri.file(file).with({ fragment: `L${frame.line}` });
      const link = new vscode.DocumentLink(new vscode.Range(number, frame.start, number, frame.end), target);
      link.tooltip = vscode.l10n.t("Open {0}, line {1}", vscode.workspace.asRelativePath(file), frame.line);
      links.push(link);
    }
  }
  return links;
}
