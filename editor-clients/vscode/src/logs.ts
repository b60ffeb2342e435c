// Live logs: one read-only Output channel `PAI: <job>` per job, filled from `pai/jobLog`.
// Each task's log arrives with its byte offset, so a chunk seen before (a resumed relay, a
// restarted server or daemon) is never written twice and the text is kept after the job ends.
import * as vscode from "vscode";
import { LineJoiner, TaskLog } from "./config";
import { EditorJobLog } from "./protocol";
import { PaiServer, guarded } from "./server";

export interface JobRef {
  job: string;
  cluster?: string | null;
}


class JobLog {
  readonly channel: vscode.OutputChannel;
  readonly tasks = new Map<string, TaskLog>();
  readonly lines: LineJoiner;
  ended = false;
  following = false;

  constructor(readonly ref: JobRef) {
    this.channel = vscode.window.createOutputChannel(`PAI: ${ref.job}`, "log");
    this.lines = new LineJoiner((text) => this.channel.append(text));
  }

  offsets(): Record<string, number> {
    return Object.fromEntries([...this.tasks].map(([task, log]) => [task, log.have]));
  }
}

export class LogBook implements vscode.Disposable {
  private readonly logs = new Map<string, JobLog>();

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
    log.channel.show(true);
  }

  /** Show Logs from the Jobs view: the channel, and the part of the log it does not have yet. */
  async show(ref: JobRef): Promise<void> {
    const log = this.get(ref);
    log.channel.show(true);
    if (!log.ended && !log.following) await guarded(() => this.follow(log));
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
    try {
      await this.server.call("pai.job.follow", { job: log.ref.job, cluster: log.ref.cluster ?? undefined, offsets: log.offsets() });
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
      log.tasks.set(p.task, task);
    }
    const fresh = task.accept(p.offset, p.text, p.length);
    if (fresh) log.lines.write(p.task, fresh, (p.taskCount ?? 1) > 1);
  }

  dispose(): void {
    for (const log of this.logs.values()) log.channel.dispose();
  }
}
