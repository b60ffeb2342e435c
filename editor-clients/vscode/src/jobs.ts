// The Jobs view: the user's jobs per cluster, newest first, paged; kept current by the status the
// server pushes (`pai/jobStatus`), plus the actions on a job and the status-bar item.
import * as vscode from "vscode";
import { bytes } from "./chart";
import { FINAL_STATES, duration, jobFileName } from "./config";
import { replacing, withTransferProgress } from "./hdfs";
import { LogBook } from "./logs";
import { EditorJobEnded, EditorJobStatus, IdleGpu, TaskFigures, TaskRow as Task } from "./protocol";
import { PaiServer, guarded } from "./server";

const PAGE = 50;
/** Seconds between two refreshes of an expanded running job's figures (the local cluster samples every 10). */
const METRICS_SECONDS = 10;

interface Job {
  name: string;
  state: string;
  created?: number | null;
  completed?: number | null;
  exitCode?: number | null;
}


export class ClusterNode {
  readonly kind = "cluster";
  jobs: JobNode[] = [];
  total = 0;
  loaded = false;
  constructor(readonly name: string, readonly isDefault: boolean, readonly local: boolean, readonly clusterKind: string) {}
}

export class JobNode {
  readonly kind = "job";
  constructor(readonly cluster: ClusterNode, public job: Job) {}
}

class TaskNode {
  readonly kind = "task";
  /** `figures`: its GPU, CPU and memory now, where the cluster has metrics (a running job). */
  constructor(readonly job: JobNode, readonly task: Task, readonly figures?: TaskFigures) {}
}

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? "-" : `${Math.round(value)}%`;
}

/** One task's figures in a line: `GPU0 87% 40% · CPU 98% · mem 1.2 GiB/4.0 GiB (30%)`. */
export function figuresText(f: TaskFigures): string {
  const gpus = f.gpus.map((g) => vscode.l10n.t("GPU{0} {1} mem {2}", g.minor, percent(g.utilization), percent(g.memoryPercent)));
  const cpu = vscode.l10n.t("CPU {0}", percent(f.cpuPercent));
  const memory = f.memoryBytes === null ? "" : vscode.l10n.t("mem {0}", f.memoryLimitBytes
    ? `${bytes(f.memoryBytes)}/${bytes(f.memoryLimitBytes)} (${percent(f.memoryPercent)})` : bytes(f.memoryBytes));
  return [...gpus, cpu, memory].filter(Boolean).join(" · ");
}

class MoreNode {
  readonly kind = "more";
  constructor(readonly cluster: ClusterNode) {}
}

class MessageNode {
  readonly kind = "message";
  /** `icon`: "info" for an empty list, "warning" for a failure to list. */
  constructor(readonly text: string, readonly icon: "info" | "warning" = "warning") {}
}

type Node = ClusterNode | JobNode | TaskNode | MoreNode | MessageNode;

const ICONS: Record<string, [string, string?]> = {
  WAITING: ["clock", "charts.yellow"],
  RUNNING: ["sync~spin", "charts.blue"],
  SUCCEEDED: ["pass", "charts.green"],
  FAILED: ["error", "charts.red"],
  STOPPED: ["circle-slash", "disabledForeground"],
};

function stateIcon(state: string): vscode.ThemeIcon {
  const [id, color] = ICONS[state] ?? ["question"];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

export class JobsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private clusters: ClusterNode[] | undefined;
  /** The clusters' listing on its way, and each cluster's first page on its way. */
  private listing: Promise<ClusterNode[]> | undefined;
  private readonly pages = new Map<ClusterNode, Promise<void>>();
  private generation = 0;
  private readonly tasks = new Map<JobNode, Task[]>();
  /** Jobs started from this window that have not ended: the status bar counts them. */
  private readonly mine = new Map<string, { cluster: string; state: string }>();
  /** The last state pushed for any job. */
  private readonly seen = new Map<string, string>();
  /** A word on a job's row: why it failed (why.ts). */
  private readonly notes = new Map<string, string>();
  /** Why a waiting job waits, a line per fact (waiting.ts): its reason on the row, every line in the tooltip. */
  private readonly waiting = new Map<string, { reason: string; lines: string[] }>();
  private readonly waitingShown = new vscode.EventEmitter<{ job: string; cluster: string }>();
  /** A waiting job's row is shown (waiting.ts asks the daemon why it waits, now and then). */
  readonly onDidShowWaiting = this.waitingShown.event;
  private readonly failedShown = new vscode.EventEmitter<{ job: string; cluster: string }>();
  /** A failed job's row is shown without a word on it (why.ts asks the daemon for its class). */
  readonly onDidShowFailed = this.failedShown.event;
  private readonly statusBar = vscode.window.createStatusBarItem("pai.runningJobs", vscode.StatusBarAlignment.Left, 10);
  private readonly ticker: NodeJS.Timeout;
  readonly view: vscode.TreeView<Node>;
  /** A cluster's jobs were listed (for the local cluster: it runs now). */
  readonly onDidList = new vscode.EventEmitter<ClusterNode>();
  /** Running jobs whose tasks are shown: their figures are refreshed every METRICS_SECONDS. */
  private readonly expanded = new Set<JobNode>();
  private readonly metricsTicker: NodeJS.Timeout;
  /** Jobs whose idle GPUs were warned about (once each), or that the user asked never to be warned about. */
  private readonly idleWarned = new Set<string>();

  constructor(private readonly server: PaiServer, private readonly logs: LogBook) {
    this.view = vscode.window.createTreeView("pai.jobs", { treeDataProvider: this, showCollapseAll: true });
    this.statusBar.name = vscode.l10n.t("PAI running jobs");
    this.statusBar.command = "pai.jobs.focus";
    server.on("pai/jobStatus", (p) => this.onStatus(p));
    // Every watched job's end, wherever it was started (this window, another, the terminal): the daemon tells it once.
    server.on("pai/jobEnded", (p) => void this.announceEnd(p));
    server.on("pai/jobLogEnd", (p) => {
      if (p.state && FINAL_STATES.includes(p.state)) this.onStatus({ job: p.job, cluster: p.cluster, state: p.state });
    });
    this.view.onDidExpandElement((e) => { if (e.element instanceof JobNode) this.expanded.add(e.element); });
    this.view.onDidCollapseElement((e) => { if (e.element instanceof JobNode) this.expanded.delete(e.element); });
    this.metricsTicker = setInterval(() => {
      for (const job of this.expanded) if (job.job.state === "RUNNING") this.changed.fire(job);
    }, METRICS_SECONDS * 1000);
    // Durations of running jobs move on without any event.
    this.ticker = setInterval(() => {
      for (const c of this.clusters ?? []) if (c.jobs.some((j) => !FINAL_STATES.includes(j.job.state))) this.changed.fire(c);
    }, 15000);
  }

  refresh(): void {
    this.generation++; // a listing still on its way is older than this refresh: not kept
    this.clusters = undefined;
    this.listing = undefined;
    this.pages.clear();
    this.tasks.clear();
    this.expanded.clear();
    this.changed.fire(undefined);
  }

  /** A job submitted from this window: listed at once, counted in the status bar, announced at its end. */
  started(job: string, cluster: string): void {
    const seen = this.seen.get(job);
    if (!seen || !FINAL_STATES.includes(seen)) { // (one that ended before the submit's answer was read is told by `pai/jobEnded`)
      this.mine.set(job, { cluster, state: seen ?? "WAITING" });
      this.updateStatusBar();
    }
    const node = this.clusters?.find((c) => c.name === cluster);
    if (node) {
      if (!node.jobs.some((j) => j.job.name === job)) { // a listing may have brought it already
        const state = seen ?? "WAITING";
        node.jobs.unshift(new JobNode(node, { name: job, state, created: Date.now(),
          completed: FINAL_STATES.includes(state) ? Date.now() : null }));
        node.total += 1;
      }
      this.changed.fire(node);
    } else {
      this.refresh();
    }
  }

  /** Show `text` on the job's row (undefined: nothing). */
  note(job: string, text: string | undefined): void {
    if (text) this.notes.set(job, text);
    else this.notes.delete(job);
    for (const c of this.clusters ?? []) for (const node of c.jobs) if (node.job.name === job) this.changed.fire(node);
  }

  /** Why `job` waits (no reason: it does not, or cannot be told): shown on its row until it starts. */
  explainWaiting(job: string, reason: string | undefined, lines: string[]): void {
    if (reason) this.waiting.set(job, { reason, lines });
    else this.waiting.delete(job);
    for (const c of this.clusters ?? []) for (const node of c.jobs) if (node.job.name === job) this.changed.fire(node);
  }

  private onStatus(p: Pick<EditorJobStatus, "job" | "cluster" | "state"> & { exitCode?: number | null }): void {
    this.seen.set(p.job, p.state);
    if (p.state !== "WAITING") this.waiting.delete(p.job); // it started (or ended): the explanation goes
    for (const c of this.clusters ?? []) {
      for (const node of c.jobs) {
        if (node.job.name === p.job && (!p.cluster || p.cluster === c.name) && node.job.state !== p.state) {
          node.job = { ...node.job, state: p.state, exitCode: p.exitCode ?? node.job.exitCode,
            completed: FINAL_STATES.includes(p.state) ? (node.job.completed ?? Date.now()) : node.job.completed };
          this.tasks.delete(node);
          this.changed.fire(node);
        }
      }
    }
    const mine = this.mine.get(p.job);
    if (mine && mine.state !== p.state) {
      mine.state = p.state;
      if (FINAL_STATES.includes(p.state)) this.mine.delete(p.job); // its end is told by `pai/jobEnded`
      this.updateStatusBar();
    }
  }

  /** A job's end (or retry), with its log, a failure's report and the outputs one click away. */
  private async announceEnd(p: EditorJobEnded): Promise<void> {
    const { job, state } = p;
    const cluster = p.cluster ?? undefined;
    const showLogs = vscode.l10n.t("Show Logs");
    const download = vscode.l10n.t("Download Outputs");
    const said = state === "RETRIED" ? vscode.l10n.t("Job {0} is running again (retry {1})", job, p.retries ?? 1)
      : vscode.l10n.t("Job {0} {1}", job, state);
    const text = p.why ? `${said}: ${p.why}` : said;
    const show = state === "SUCCEEDED" || state === "RETRIED" ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    const why = vscode.l10n.t("Why did it fail?");
    const choice = await show(text, ...(state === "FAILED" ? [why] : []), showLogs,
      ...(state === "SUCCEEDED" || state === "FAILED" ? [download] : []));
    if (choice === why) await vscode.commands.executeCommand("pai-lsp.job.why", { job, cluster });
    if (choice === showLogs) await this.logs.show({ job, cluster });
    if (choice === download) await downloadOutputs(this.server, job, cluster);
  }

  private updateStatusBar(): void {
    const running = [...this.mine.values()].filter((m) => !FINAL_STATES.includes(m.state)).length;
    this.statusBar.text = `$(sync~spin) ${vscode.l10n.t("PAI: {0} running", running)}`;
    this.statusBar.tooltip = [...this.mine.entries()].map(([job, m]) => `${job} — ${m.state}`).join("\n");
    if (running > 0) this.statusBar.show();
    else this.statusBar.hide();
  }

  // -- tree --------------------------------------------------------------------------
  getTreeItem(node: Node): vscode.TreeItem {
    if (node instanceof ClusterNode) {
      const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `cluster/${node.name}`;
      item.iconPath = new vscode.ThemeIcon(node.local ? "vm" : "cloud");
      item.description = node.isDefault ? vscode.l10n.t("default") : undefined;
      item.contextValue = "cluster";
      return item;
    }
    if (node instanceof JobNode) {
      const { job } = node;
      const item = new vscode.TreeItem(job.name, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `job/${node.cluster.name}/${job.name}`;
      item.iconPath = stateIcon(job.state);
      if (job.state === "FAILED" && !this.notes.has(job.name)) this.failedShown.fire({ job: job.name, cluster: node.cluster.name });
      if (job.state === "WAITING") this.waitingShown.fire({ job: job.name, cluster: node.cluster.name });
      const waiting = job.state === "WAITING" ? this.waiting.get(job.name) : undefined;
      item.description = [job.state, this.notes.get(job.name) ?? waiting?.reason, duration(job.created, job.completed)]
        .filter(Boolean).join(" · ");
      item.tooltip = new vscode.MarkdownString([
        `**${job.name}** — ${job.state}`,
        waiting ? waiting.lines.map((line) => line.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, "\\$&")).join("  \n") : "",
        job.created ? vscode.l10n.t("started {0}", new Date(job.created).toLocaleString()) : "",
        job.exitCode !== null && job.exitCode !== undefined ? vscode.l10n.t("exit code {0}", job.exitCode) : "",
      ].filter(Boolean).join("\n\n"));
      const ended = FINAL_STATES.includes(job.state) ? "ended" : "active";
      item.contextValue = `job.${ended}${node.cluster.local ? "" : ".remote"}`;
      item.command = { command: "pai-lsp.job.showLogs", title: vscode.l10n.t("Show Logs"), arguments: [node] };
      return item;
    }
    if (node instanceof TaskNode) {
      const t = node.task;
      const item = new vscode.TreeItem(`${t.role}:${t.index}`, vscode.TreeItemCollapsibleState.None);
      item.iconPath = stateIcon(t.state);
      const ports = Object.entries(t.ports ?? {}).map(([label, p]) => `${label} ${p}`).join(", ");
      const exit = t.exitCode !== null && t.exitCode !== undefined ? vscode.l10n.t("exit {0}", t.exitCode) : "";
      item.description = [t.state, node.figures ? figuresText(node.figures) : "", t.ip ?? "", ports, exit].filter(Boolean).join(" · ");
      item.contextValue = "task";
      return item;
    }
    if (node instanceof MoreNode) {
      const item = new vscode.TreeItem(vscode.l10n.t("Load more…"), vscode.TreeItemCollapsibleState.None);
      item.command = { command: "pai-lsp.jobs.loadMore", title: vscode.l10n.t("Load more…"), arguments: [node.cluster] };
      item.iconPath = new vscode.ThemeIcon("ellipsis");
      return item;
    }
    const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon(node.icon);
    return item;
  }

  getParent(node: Node): Node | undefined {
    if (node instanceof JobNode) return node.cluster;
    if (node instanceof TaskNode) return node.job;
    if (node instanceof MoreNode) return node.cluster;
    return undefined;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    try {
      if (!node) {
        if (this.clusters) return this.clusters;
        // One listing at a time: a second caller (the tree, Show Metrics' pick) gets the same nodes, so the
        // rows on screen are the nodes later updates change.
        this.listing ??= this.listClusters();
        return await this.listing;
      }
      if (node instanceof ClusterNode) {
        if (!node.loaded) await this.firstPage(node);
        const more = node.jobs.length < node.total ? [new MoreNode(node)] : [];
        return node.jobs.length ? [...node.jobs, ...more] : [new MessageNode(vscode.l10n.t("No jobs yet."), "info")];
      }
      if (node instanceof JobNode) {
        const ref = { job: node.job.name, cluster: node.cluster.name };
        const status = await this.server.call("pai.job.status", ref);
        if (status.state !== "RUNNING") return status.tasks.map((t) => new TaskNode(node, t));
        this.expanded.add(node);
        if (status.idleGpu) void this.warnIdle(node, status.idleGpu);
        // A cluster without metrics (YARN-era, PaddlePaddle Cloud) answers with one line: the tasks show without figures.
        const figures = await this.server.call("pai.job.metrics", ref).then((m) => m.tasks, () => []);
        return status.tasks.map((t) => new TaskNode(node, t, figures.find((f) => f.role === t.role && f.index === t.index)));
      }
    } catch (err) {
      return [new MessageNode(err instanceof Error ? err.message : String(err))];
    }
    return [];
  }

  /** Once per job: its GPUs sat idle (the daemon's guard, the portal's rule); Stop Job, Keep Running or never again. */
  private async warnIdle(node: JobNode, idle: IdleGpu): Promise<void> {
    const key = `${node.cluster.name}/${node.job.name}`;
    if (this.idleWarned.has(key)) return;
    this.idleWarned.add(key);
    const stop = vscode.l10n.t("Stop Job");
    const keep = vscode.l10n.t("Keep Running");
    const never = vscode.l10n.t("Don't Ask for This Job");
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t(
      "The GPUs of {0} are idle: {1}% on average over the last {2} minutes (below {3}%).",
      node.job.name, idle.average, idle.minutes, idle.threshold), stop, keep, never);
    if (choice === stop) {
      await guarded(() => this.server.call("pai.job.stop", { job: node.job.name, cluster: node.cluster.name }));
    } else if (choice !== never) { // Keep Running, or dismissed: asked again if it stays idle another window
      setTimeout(() => this.idleWarned.delete(key), idle.minutes * 60 * 1000);
    }
  }

  private async listClusters(): Promise<ClusterNode[]> {
    const generation = this.generation;
    try {
      const list = await this.server.call("pai.clusters.list");
      // The default cluster first: that is where Submit goes.
      const sorted = [...list.clusters].sort((a, b) => Number(b.default) - Number(a.default));
      const nodes = sorted.map((p) => new ClusterNode(p.name, p.default, p.local, p.kind));
      if (generation === this.generation) this.clusters = nodes;
      return nodes;
    } finally {
      if (generation === this.generation) this.listing = undefined;
    }
  }

  /** A cluster's first page, read once however many ask at the same time (its job rows stay the ones shown). */
  private firstPage(node: ClusterNode): Promise<void> {
    let loading = this.pages.get(node);
    if (!loading) {
      loading = this.loadPage(node, 0).finally(() => this.pages.delete(node));
      this.pages.set(node, loading);
    }
    return loading;
  }

  async loadPage(node: ClusterNode, offset: number): Promise<void> {
    const page = await this.server.call("pai.jobs.list", { cluster: node.name, offset, limit: PAGE });
    const known = new Set(node.jobs.map((j) => j.job.name));
    node.jobs = offset === 0 ? [] : node.jobs;
    for (const job of page.jobs) if (offset === 0 || !known.has(job.name)) node.jobs.push(new JobNode(node, job));
    node.total = page.total;
    node.loaded = true;
    this.onDidList.fire(node);
  }

  async loadMore(node: ClusterNode): Promise<void> {
    await guarded(() => this.loadPage(node, node.jobs.length));
    this.changed.fire(node);
  }

  /** The jobs the view lists (listing each cluster's first page if the view has not yet), running ones first. */
  async listed(): Promise<JobNode[]> {
    const clusters = (await this.getChildren()).filter((n): n is ClusterNode => n instanceof ClusterNode);
    const jobs: JobNode[] = [];
    for (const cluster of clusters) {
      if (!cluster.loaded) await this.firstPage(cluster).catch(() => undefined); // a cluster that cannot list: none of its jobs
      jobs.push(...cluster.jobs);
    }
    return jobs.sort((a, b) => Number(b.job.state === "RUNNING") - Number(a.job.state === "RUNNING"));
  }

  async showTasks(node: JobNode): Promise<void> {
    await this.view.reveal(node, { expand: true, focus: true, select: true });
  }

  dispose(): void {
    clearInterval(this.ticker);
    clearInterval(this.metricsTicker);
    this.onDidList.dispose();
    this.failedShown.dispose();
    this.statusBar.dispose();
    this.view.dispose();
    this.changed.dispose();
  }
}

// -- actions on a job --------------------------------------------------------------------
export async function downloadOutputs(server: PaiServer, job: string, cluster: string | undefined): Promise<void> {
  const folder = await vscode.window.showOpenDialog({
    canSelectFolders: true, canSelectFiles: false, openLabel: vscode.l10n.t("Download Here"),
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
  });
  if (!folder?.[0]) return;
  const result = await guarded(() => replacing((overwrite) => withTransferProgress(server,
    vscode.l10n.t("Downloading the outputs of {0}", job),
    (token) => server.call("pai.jobOutputs", { job, dest: folder[0].fsPath, cluster, workDoneToken: token, overwrite }))));
  if (result) {
    const reveal = vscode.l10n.t("Reveal");
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t("Downloaded the outputs of {0} to {1}", job, result.path), reveal);
    if (choice === reveal) await vscode.commands.executeCommand("revealFileInOS", vscode.Uri.file(result.path));
  }
}

export function registerJobCommands(context: vscode.ExtensionContext, server: PaiServer, view: JobsView, logs: LogBook): void {
  const ref = (node: JobNode) => ({ job: node.job.name, cluster: node.cluster.name });
  const command = (id: string, fn: (node: JobNode) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, (node?: JobNode) => (node instanceof JobNode ? guarded(() => fn(node)) : undefined));
  context.subscriptions.push(
    vscode.commands.registerCommand("pai-lsp.jobs.refresh", () => view.refresh()),
    vscode.commands.registerCommand("pai-lsp.jobs.loadMore", (node: ClusterNode) => view.loadMore(node)),
    command("pai-lsp.job.showLogs", (node) => logs.show(ref(node))),
    // From a job's row, or the Command Palette (the log shown last).
    vscode.commands.registerCommand("pai-lsp.job.filterLogs", (node?: JobNode) =>
      guarded(() => logs.filter(node instanceof JobNode ? ref(node) : undefined))),
    vscode.commands.registerCommand("pai-lsp.job.earlierLogs", (node?: JobNode) =>
      guarded(() => logs.earlier(node instanceof JobNode ? ref(node) : undefined))),
    command("pai-lsp.job.showTasks", (node) => view.showTasks(node)),
    command("pai-lsp.job.stop", async (node) => {
      const stop = vscode.l10n.t("Stop Job");
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t("Stop job {0}? Its tasks are killed.", node.job.name), { modal: true }, stop);
      if (choice !== stop) return;
      await server.call("pai.job.stop", ref(node));
      void vscode.window.showInformationMessage(vscode.l10n.t("Stopping {0}", node.job.name));
    }),
    command("pai-lsp.job.downloadOutputs", (node) => downloadOutputs(server, node.job.name, node.cluster.name)),
    command("pai-lsp.job.copySsh", async (node) => {
      const answer = await server.call("pai.job.ssh", ref(node));
      const usable = answer.tasks.filter((t) => t.command);
      if (!usable.length) throw new Error(vscode.l10n.t("No running task of {0} has an SSH port.", node.job.name));
      const picked = usable.length === 1 ? usable[0]
        : await vscode.window.showQuickPick(usable.map((t) => ({ label: t.task, description: t.command ?? "", t })),
          { placeHolder: vscode.l10n.t("Which task?") }).then((p) => p?.t);
      if (!picked?.command) return;
      await vscode.env.clipboard.writeText(picked.command);
      void vscode.window.showInformationMessage(vscode.l10n.t("Copied: {0}", picked.command));
    }),
    command("pai-lsp.job.openConfig", async (node) => {
      // Named as a job file of the cluster's kind (`<job>.paddle.json` …), so VS Code shows it as one.
      const file = jobFileName(await server.kinds(), node.cluster.clusterKind, node.job.name);
      const uri = vscode.Uri.from({ scheme: "pai-job", path: `/${node.cluster.name}/${node.job.name}/${file}` });
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    }),
    command("pai-lsp.job.openPortal", async (node) => {
      const status = await server.call("pai.job.status", ref(node));
      if (!status.webPortal) throw new Error(vscode.l10n.t("The local cluster has no web portal."));
      await vscode.env.openExternal(vscode.Uri.parse(status.webPortal));
    }),
    // A job's config as the cluster has it, read-only.
    vscode.workspace.registerTextDocumentContentProvider("pai-job", {
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const [, cluster, job] = uri.path.split("/");
        return (await server.call("pai.job.config", { job, cluster })).text; // in the cluster's key order
      },
    }),
  );
}
