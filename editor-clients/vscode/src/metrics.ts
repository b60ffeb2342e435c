// Show Metrics: a job's history per role and task (GPU utilisation, GPU memory, CPU, memory) as a
// picture, from the daemon's `job.metricsRange`, the last hour or since the job started. A webview
// with a strict CSP (its own nonce'd style and script, nothing loaded from anywhere) shows the SVG the
// extension draws (chart.ts); refreshed every REFRESH_SECONDS while the panel is visible and the job
// runs. A cluster with no metrics, or a job with no samples yet, is said in one line.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { ChartTexts, chartsHtml, escapeXml } from "./chart";
import { FINAL_STATES } from "./config";
import { JobNode, JobsView } from "./jobs";
import { CommandError, PaiServer, guarded } from "./server";

/** Seconds between two refreshes: the local cluster's sampling interval (a real cluster's is 30). */
export const REFRESH_SECONDS = 10;
const HOUR = 3600;

export interface MetricsTarget {
  job: string;
  cluster: string;
}

type Range = "hour" | "start";

function texts(): ChartTexts {
  return {
    titles: {
      gpu: vscode.l10n.t("GPU utilisation"),
      gpu_memory: vscode.l10n.t("GPU memory"),
      cpu: vscode.l10n.t("CPU (100% = one core)"),
      memory: vscode.l10n.t("Memory"),
    },
    noGpu: vscode.l10n.t("No GPU in this job's tasks."),
  };
}

class MetricsPanel implements vscode.Disposable {
  private static readonly open = new Map<string, MetricsPanel>();
  private readonly panel: vscode.WebviewPanel;
  private readonly timer: NodeJS.Timeout;
  /** Which span: until the user picks, since the start for a job younger than an hour, else the last hour. */
  private range: Range | undefined;
  private created: number | undefined; // unix seconds
  private completed: number | undefined;
  private ended = false;
  /** The cluster refused (it has no metrics): asking again every few seconds would only be refused again. */
  private refused = false;
  private busy = false;
  private again = false;
  private readonly nonce = randomBytes(16).toString("base64");

  static show(server: PaiServer, target: MetricsTarget): void {
    const key = `${target.cluster}/${target.job}`;
    const known = MetricsPanel.open.get(key);
    if (known) {
      known.panel.reveal();
      void known.refresh();
      return;
    }
    MetricsPanel.open.set(key, new MetricsPanel(server, target, () => MetricsPanel.open.delete(key)));
  }

  private constructor(private readonly server: PaiServer, private readonly target: MetricsTarget, private readonly gone: () => void) {
    this.panel = vscode.window.createWebviewPanel("pai.metrics", vscode.l10n.t("Metrics: {0}", target.job), vscode.ViewColumn.Active,
      { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: false });
    this.panel.webview.html = this.page();
    this.panel.webview.onDidReceiveMessage((m: { range?: Range; ready?: boolean }) => {
      if (m.ready) void this.refresh(); // the page (re)loaded: shown first, or shown again after being hidden
      else if (m.range === "hour" || m.range === "start") {
        this.range = m.range;
        void this.refresh();
      }
    });
    this.panel.onDidDispose(() => this.dispose());
    this.timer = setInterval(() => { if (this.panel.visible && !this.ended && !this.refused) void this.refresh(); }, REFRESH_SECONDS * 1000);
  }

  /** The page, once: its script swaps in what each refresh posts (the page is not made again, so it keeps its scroll). */
  private page(): string {
    const csp = `default-src 'none'; style-src 'nonce-${this.nonce}'; script-src 'nonce-${this.nonce}';`;
    const hour = escapeXml(vscode.l10n.t("Last hour"));
    const start = escapeXml(vscode.l10n.t("Since start"));
    return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<style nonce="${this.nonce}">
body { color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 8px 16px; }
h2 { font-weight: 600; font-size: 1.2em; margin: 4px 0 8px; }
.bar { display: flex; gap: 8px; align-items: center; margin-bottom: 8px; }
button { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: none; padding: 3px 10px; cursor: pointer; }
button.on { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
#status, .note { color: var(--vscode-descriptionForeground); }
.legend { display: flex; flex-wrap: wrap; gap: 14px; margin: 6px 0; }
.key svg { margin-right: 4px; vertical-align: middle; }
svg.chart { display: block; margin: 10px 0; max-width: 100%; height: auto; }
svg text { fill: var(--vscode-foreground); font-size: 11px; }
svg text.title { font-size: 12px; font-weight: 600; }
svg .axis { stroke: var(--vscode-foreground); stroke-opacity: 0.6; }
svg .grid { stroke: var(--vscode-foreground); stroke-opacity: 0.15; }
polyline, .key line { fill: none; stroke-width: 2; }
.s0 { stroke: var(--vscode-charts-blue); fill: var(--vscode-charts-blue); } .s1 { stroke: var(--vscode-charts-orange); fill: var(--vscode-charts-orange); }
.s2 { stroke: var(--vscode-charts-green); fill: var(--vscode-charts-green); } .s3 { stroke: var(--vscode-charts-purple); fill: var(--vscode-charts-purple); }
.s4 { stroke: var(--vscode-charts-red); fill: var(--vscode-charts-red); } .s5 { stroke: var(--vscode-charts-yellow); fill: var(--vscode-charts-yellow); }
.s6 { stroke: #4dd0e1; fill: #4dd0e1; } .s7 { stroke: #f06292; fill: #f06292; }
polyline.s0, polyline.s1, polyline.s2, polyline.s3, polyline.s4, polyline.s5, polyline.s6, polyline.s7, .key line { fill: none; }
</style></head><body>
<h2>${escapeXml(vscode.l10n.t("{0} on {1}", this.target.job, this.target.cluster))}</h2>
<div class="bar"><button id="hour">${hour}</button><button id="start">${start}</button><span id="status"></span></div>
<div id="charts"><p class="note">${escapeXml(vscode.l10n.t("Loading…"))}</p></div>
<script nonce="${this.nonce}">
const vscode = acquireVsCodeApi();
for (const id of ["hour", "start"]) document.getElementById(id).addEventListener("click", () => vscode.postMessage({ range: id }));
window.addEventListener("message", (e) => {
  const m = e.data;
  document.getElementById("charts").innerHTML = m.charts;
  document.getElementById("status").textContent = m.status;
  document.getElementById("hour").className = m.range === "hour" ? "on" : "";
  document.getElementById("start").className = m.range === "start" ? "on" : "";
});
vscode.postMessage({ ready: true });
</script></body></html>`;
  }

  /** Ask the daemon for the range now and show it (one ask at a time: a slow cluster is not asked twice). */
  async refresh(): Promise<void> {
    if (this.busy) {
      this.again = true; // e.g. the other span was picked meanwhile: asked once more when this answer is in
      return;
    }
    this.busy = true;
    try {
      do {
        this.again = false;
        await this.show();
      } while (this.again);
    } finally {
      this.busy = false;
    }
  }

  private async show(): Promise<void> {
    const ref = { job: this.target.job, cluster: this.target.cluster };
    let charts: string;
    let status = "";
    try {
      if (this.created === undefined || !this.ended) {
        const job = await this.server.call("pai.job.status", ref);
        this.created = job.created ? job.created / 1000 : undefined;
        this.completed = job.completed ? job.completed / 1000 : undefined;
        this.ended = FINAL_STATES.includes(job.state);
      }
      const end = this.ended && this.completed ? this.completed : Date.now() / 1000;
      this.range ??= this.created && end - this.created < HOUR ? "start" : "hour";
      const start = this.range === "start" && this.created ? Math.min(this.created, end - 60) : end - HOUR;
      const step = Math.max(REFRESH_SECONDS, Math.ceil((end - start) / 500));
      const got = await this.server.call("pai.job.metricsRange", { ...ref, start, end, step });
      charts = got.series.some((s) => s.points.length)
        ? chartsHtml(got.series, got.start, got.end, got.step, texts())
        : `<p class="note">${escapeXml(vscode.l10n.t("No samples of {0} in this range yet: its tasks have reported nothing to the cluster's metrics.", this.target.job))}</p>`;
      status = this.ended ? vscode.l10n.t("The job has ended.")
        : vscode.l10n.t("Updated {0}, every {1} s.", new Date().toLocaleTimeString(), REFRESH_SECONDS);
    } catch (err) {
      // A cluster with no metrics (YARN-era, PaddlePaddle Cloud, a local cluster with no Prometheus): its one line.
      charts = `<p class="note">${escapeXml(err instanceof Error ? err.message : String(err))}</p>`;
      this.refused = err instanceof CommandError && err.kind === "invalid";
    }
    await this.panel.webview.postMessage({ charts, status, range: this.range });
  }

  dispose(): void {
    clearInterval(this.timer);
    this.gone();
  }
}

/** Show Metrics: from a job's row, or the Command Palette (which asks which job, from those the Jobs view lists). */
export function registerMetrics(context: vscode.ExtensionContext, server: PaiServer, jobs: JobsView): void {
  context.subscriptions.push(vscode.commands.registerCommand("pai-lsp.job.showMetrics", (node?: JobNode) => guarded(async () => {
    let target: JobNode | undefined = node instanceof JobNode ? node : undefined;
    if (!target) {
      const listed = await jobs.listed();
      if (!listed.length) throw new Error(vscode.l10n.t("No jobs to show: the Jobs view lists none."));
      target = (await vscode.window.showQuickPick(listed.map((j) => ({
        label: j.job.name, description: `${j.cluster.name} · ${j.job.state}`, node: j })),
      { placeHolder: vscode.l10n.t("Show the metrics of which job?") }))?.node;
    }
    if (target) MetricsPanel.show(server, { job: target.job.name, cluster: target.cluster.name });
  })));
}
