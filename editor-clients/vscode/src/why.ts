// Why a job failed, and where (the daemon's explanation, `pai.job.why`): an Error in Problems at the
// deepest frame in the user's own code (the other frames as related information), the class on the
// job's row in the Jobs view, and "Why did it fail?", a short report. A job started from this window
// is explained by itself when it fails; its diagnostics go when the same config is run again or the
// user dismisses them.
import * as path from "path";
import * as vscode from "vscode";
import { JobNode, JobsView } from "./jobs";
import { WhyExplanation, WhyFrame, WhyResult, WhyText } from "./protocol";
import { PaiServer, guarded } from "./server";

type Text = WhyText;
type Frame = WhyFrame;
type Explanation = WhyExplanation;
export type { WhyResult };

const REPORT_SCHEME = "pai-why";

function pick(text: Text | null | undefined): string {
  if (!text) return "";
  return vscode.env.language.toLowerCase().startsWith("zh") ? text.zh : text.en;
}

export class WhyBook implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection("pai-why");
  /** The files each job's diagnostics are on, to take them away again. */
  private readonly shown = new Map<string, vscode.Uri[]>();
  /** Jobs started from this window, by the config they came from (run again: the old ones go). */
  private readonly byConfig = new Map<string, string[]>();
  private readonly mine = new Set<string>();
  /** What each explained job's row shows: its class's title. */
  readonly titles = new Map<string, string>();
  readonly onDidExplain = new vscode.EventEmitter<string>();
  private readonly reports = new Map<string, string>();
  private readonly reportChanged = new vscode.EventEmitter<vscode.Uri>();

  constructor(private readonly server: PaiServer) {
    server.on("pai/jobStatus", (p) => {
      if (p.state === "FAILED" && this.mine.has(p.job)) void this.explain(p.job, p.cluster ?? undefined).catch(() => undefined);
    });
  }

  /** Failed jobs the Jobs view listed whose class was asked for (once each: a dismissed one is not asked again). */
  private readonly asked = new Set<string>();

  /** The class of a failed job the Jobs view lists, for its row (no diagnostics: those are for the jobs run
   * from this window and the ones the user asks about). Asked once per job. */
  classify(job: string, cluster?: string): void {
    if (this.titles.has(job) || this.asked.has(job)) return;
    this.asked.add(job);
    this.server.call("pai.job.why", { job, cluster }).then((result) => {
      if (result.explanation && !this.titles.has(job)) this.title(job, result.explanation);
    }, () => undefined);
  }

  /** A job submitted from this window from `config`: the diagnostics of its earlier runs go. */
  submitted(config: vscode.Uri | undefined, job: string): void {
    this.mine.add(job);
    if (!config) return;
    const key = config.toString();
    for (const earlier of this.byConfig.get(key) ?? []) this.dismiss(earlier);
    this.byConfig.set(key, [job]);
  }

  /** Ask the daemon why `job` failed; put the diagnostic on the user's file and the class on its row. */
  async explain(job: string, cluster?: string): Promise<WhyResult> {
    const result = await this.server.call("pai.job.why", { job, cluster });
    const why = result.explanation;
    if (!why) return result;
    this.title(job, why);
    this.place(result, why);
    return result;
  }

  /** The class on the job's row. */
  private title(job: string, why: Explanation): void {
    this.titles.set(job, pick(why.title));
    this.onDidExplain.fire(job);
  }

  private place(result: WhyResult, why: Explanation): void {
    this.clear(result.job);
    const cause = why.cause ?? why;
    const primary = cause.traceback?.primary;
    const uri = primary ? this.fileOf(result, primary) : undefined;
    if (!primary || !uri) return;
    const diagnostic = new vscode.Diagnostic(lineRange(primary.line), `${result.job}: ${pick(why.message)}`, vscode.DiagnosticSeverity.Error);
    diagnostic.source = "pai";
    diagnostic.code = cause.kind;
    diagnostic.relatedInformation = (cause.traceback?.related ?? []).flatMap((frame) => {
      const other = this.fileOf(result, frame);
      const where = frame.function ? vscode.l10n.t("called from {0}", frame.function) : vscode.l10n.t("called from here");
      return other ? [new vscode.DiagnosticRelatedInformation(new vscode.Location(other, lineRange(frame.line)), where)] : [];
    });
    // The file changed since the upload: the version that ran, read-only from HDFS, is one click away.
    const uploaded = uploadedVersion(result, primary);
    if (uploaded) {
      diagnostic.relatedInformation.unshift(new vscode.DiagnosticRelatedInformation(new vscode.Location(uploaded, lineRange(primary.line)),
        vscode.l10n.t("{0} changed since the upload: the version that ran (read-only, from HDFS)", primary.workspace ?? "")));
    }
    this.diagnostics.set(uri, [...(this.diagnostics.get(uri) ?? []), diagnostic]);
    this.shown.set(result.job, [uri]);
  }

  /** The workspace file a frame came from (the submitting workspace, else this window's first folder). */
  private fileOf(result: WhyResult, frame: Frame): vscode.Uri | undefined {
    if (!frame.workspace) return undefined;
    const root = result.workspace ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return root ? vscode.Uri.file(path.join(root, ...frame.workspace.split("/"))) : undefined;
  }

  private clear(job: string): void {
    for (const uri of this.shown.get(job) ?? []) {
      const left = (this.diagnostics.get(uri) ?? []).filter((d) => !d.message.startsWith(`${job}: `));
      this.diagnostics.set(uri, left.length ? left : undefined);
    }
    this.shown.delete(job);
  }

  /** Take a job's diagnostics and its row's class away. */
  dismiss(job: string): void {
    this.asked.add(job); // its row stays without a class until the user asks again
    this.clear(job);
    if (this.titles.delete(job)) this.onDidExplain.fire(job);
  }

  /** "Why did it fail?": the short report, opened beside the editor. */
  async showReport(job: string, cluster?: string): Promise<void> {
    const result = await this.explain(job, cluster);
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${result.cluster}/${job}.md` });
    this.reports.set(uri.toString(), report(result, (f) => this.fileOf(result, f)));
    this.reportChanged.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, "markdown");
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  register(context: vscode.ExtensionContext): void {
    const provider: vscode.TextDocumentContentProvider = {
      onDidChange: this.reportChanged.event,
      provideTextDocumentContent: (uri) => this.reports.get(uri.toString()) ?? "",
    };
    context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, provider));
  }

  dispose(): void {
    this.diagnostics.dispose();
    this.onDidExplain.dispose();
    this.reportChanged.dispose();
  }
}

/** The uploaded copy of a frame's file that changed in the workspace since (`pai-hdfs:`, the HDFS view's documents). */
function uploadedVersion(result: WhyResult, frame: Frame): vscode.Uri | undefined {
  if (!frame.workspace || !frame.uploaded || !result.codeDir || !result.changed.includes(frame.workspace)) return undefined;
  return vscode.Uri.from({ scheme: "pai-hdfs", path: `${result.codeDir.replace(/\/+$/, "")}/${frame.uploaded}` });
}

function lineRange(line: number): vscode.Range {
  const at = Math.max(0, line - 1);
  return new vscode.Range(at, 0, at, Number.MAX_SAFE_INTEGER);
}

/** The report: what happened and what to do, how it ended, where (frames as links), the evidence. */
export function report(result: WhyResult, fileOf: (frame: Frame) => vscode.Uri | undefined): string {
  const why = result.explanation;
  if (!why) return `# ${result.job}\n\n${vscode.l10n.t("{0}: nothing to explain (it did not fail).", result.state)}\n`;
  const cause = why.cause ?? why;
  const task = cause.role !== null && cause.role !== undefined ? ` — ${cause.role}:${cause.index}` : "";
  const lines = [`# ${result.job}: ${pick(why.title)}${task}`, "", pick(why.message), ""];
  const how = pick(why.exitWords ?? cause.exitWords);
  const phrase = why.phrase && !how.includes(why.phrase) ? ` · ${why.phrase}` : "";
  if (how) lines.push(`*${how}*${phrase}`, "");
  const frames = [cause.traceback?.primary, ...(cause.traceback?.related ?? [])].filter((f): f is Frame => !!f);
  if (frames.length) {
    lines.push(`## ${vscode.l10n.t("Where")}`, "");
    for (const frame of frames) {
      const file = fileOf(frame);
      const name = `${frame.workspace ?? frame.path}:${frame.line}`;
      const uploaded = uploadedVersion(result, frame);
      const changed = uploaded ? ` (${vscode.l10n.t("changed since the upload")}: [${vscode.l10n.t("the version that ran")}](${uploaded.toString()}))` : "";
      const fn = frame.function ? ` ${vscode.l10n.t("in {0}", frame.function)}` : "";
      lines.push(`- ${file ? `[${name}](${file.toString()}#L${frame.line})` : `\`${name}\``}${fn}${changed}`);
    }
    lines.push("");
  }
  const evidence = cause.evidence.length ? cause.evidence : cause.lastLines;
  if (evidence.length) {
    lines.push(`## ${cause.evidence.length ? vscode.l10n.t("Evidence") : vscode.l10n.t("Last lines")}`, "", "```");
    lines.push(...evidence.map((e) => (e.line ? `${e.line}: ${e.text}` : e.text)), "```", "");
  }
  return lines.join("\n");
}

/** The commands: "Why did it fail?" (on a job's row, or with `{job, cluster}`) and "Dismiss Failure Explanation". */
export function registerWhy(context: vscode.ExtensionContext, why: WhyBook, jobs: JobsView): void {
  why.register(context);
  const ref = (target?: JobNode | { job: string; cluster?: string }) =>
    target instanceof JobNode ? { job: target.job.name, cluster: target.cluster.name } : target;
  context.subscriptions.push(
    why.onDidExplain.event((job) => jobs.note(job, why.titles.get(job))),
    jobs.onDidShowFailed((row) => why.classify(row.job, row.cluster)),
    vscode.commands.registerCommand("pai-lsp.job.why", (target?: JobNode | { job: string; cluster?: string }) => {
      const at = ref(target);
      return at ? guarded(() => why.showReport(at.job, at.cluster)) : undefined;
    }),
    vscode.commands.registerCommand("pai-lsp.job.dismissWhy", (target?: JobNode | { job: string }) => {
      const at = ref(target);
      if (at) why.dismiss(at.job);
    }),
  );
}
