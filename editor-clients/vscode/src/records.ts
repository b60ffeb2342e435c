// What a job ran (its submission record): "Open Submitted Code" shows the files the job was
// submitted with as a read-only tree (each file fetched from the job's code folder on HDFS/PFS, checked
// against its recorded hash), "Compare with Workspace" opens VS Code's diff editor on what changed
// since, and "Rerun Job" submits the same code and config again under a new name.
import * as vscode from "vscode";
import { JobNode } from "./jobs";
import { RecordShowResult as Shown, SentFile as FileEntry, SubmissionRecord as Record } from "./protocol";
import { PaiServer, guarded } from "./server";

export const RECORD_SCHEME = "pai-record";
const RUNS_DIFF_SCHEME = "pai-runs-diff";

/** A file as the job sent it: `pai-record:/<cluster>/<job>/<path>`. */
export function submittedUri(cluster: string, job: string, path: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RECORD_SCHEME, path: `/${cluster}/${job}/${path}` });
}

class Folder {
  readonly children = new Map<string, Folder | SentFile>();
  constructor(readonly name: string) {}
}

class SentFile {
  constructor(readonly name: string, readonly path: string, readonly entry: FileEntry) {}
}

type Node = Folder | SentFile;

/** The files one job was submitted with, as folders and files. */
class SubmittedCode implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  root = new Folder("");
  job = "";
  cluster = "";

  show(shown: Shown, cluster: string): void {
    this.job = shown.record.job;
    this.cluster = cluster;
    this.root = new Folder("");
    for (const [path, entry] of Object.entries(shown.record.files).sort(([a], [b]) => a.localeCompare(b))) {
      const parts = path.split("/");
      let folder = this.root;
      for (const part of parts.slice(0, -1)) {
        let next = folder.children.get(part);
        if (!(next instanceof Folder)) folder.children.set(part, (next = new Folder(part)));
        folder = next;
      }
      folder.children.set(parts[parts.length - 1], new SentFile(parts[parts.length - 1], path, entry));
    }
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node instanceof Folder) {
      return Object.assign(new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded), { iconPath: vscode.ThemeIcon.Folder });
    }
    const uri = submittedUri(this.cluster, this.job, node.path);
    const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
    item.label = node.name;
    item.description = `${node.entry.size.toLocaleString()} B`;
    item.tooltip = `${node.path}\nsha256 ${node.entry.sha256 ?? "—"}`;
    item.contextValue = "submittedFile";
    item.command = { command: "vscode.open", title: vscode.l10n.t("Open"), arguments: [uri, { preview: true }] };
    return item;
  }

  getChildren(node?: Node): Node[] {
    const folder = node ?? this.root;
    if (!(folder instanceof Folder)) return [];
    // Folders first, then files, each by name (as the Explorer lists them).
    return [...folder.children.values()].sort((a, b) =>
      Number(b instanceof Folder) - Number(a instanceof Folder) || a.name.localeCompare(b.name));
  }
}

function workspaceFor(record: Record): vscode.Uri | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  return (folders.find((f) => f.uri.fsPath === record.workspace) ?? folders[0])?.uri;
}

async function compareWithWorkspace(server: PaiServer, job: string, cluster: string): Promise<void> {
  const shown = await server.call("pai.job.record", { job, cluster });
  const folder = workspaceFor(shown.record);
  if (!folder) throw new Error(vscode.l10n.t("Open the workspace folder to compare {0} with.", job));
  const found = await server.call("pai.job.compareWorkspace",
    { job, cluster, workspace: folder.fsPath });
  const differing = [...found.changed, ...found.removed];
  if (!differing.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t("The workspace holds exactly the code {0} ran.", job));
    return;
  }
  const picked = differing.length === 1 ? differing[0] : (await vscode.window.showQuickPick(
    differing.map((path) => ({ label: path, description: found.removed.includes(path) ? vscode.l10n.t("removed since") : vscode.l10n.t("changed since") })),
    { placeHolder: vscode.l10n.t("{0} files differ from what {1} ran: which one?", differing.length, job) }))?.label;
  if (!picked) return;
  await openDiff(cluster, job, folder, picked);
}

async function openDiff(cluster: string, job: string, folder: vscode.Uri, path: string): Promise<void> {
  await vscode.commands.executeCommand("vscode.diff", submittedUri(cluster, job, path), vscode.Uri.joinPath(folder, path),
    vscode.l10n.t("{0} ({1} ↔ workspace)", path, job), { preview: true });
}

export function registerRecords(context: vscode.ExtensionContext, server: PaiServer): void {
  const code = new SubmittedCode();
  const view = vscode.window.createTreeView("pai.submittedCode", { treeDataProvider: code, showCollapseAll: true });
  const onJob = (id: string, fn: (node: JobNode) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, (node?: JobNode) => (node instanceof JobNode ? guarded(() => fn(node)) : undefined));
  context.subscriptions.push(
    view,
    onJob("pai-lsp.job.openSubmittedCode", async (node) => {
      const shown = await server.call("pai.job.record", { job: node.job.name, cluster: node.cluster.name });
      for (const note of shown.notes) void vscode.window.showWarningMessage(note);
      code.show(shown, node.cluster.name);
      view.title = vscode.l10n.t("Submitted Code: {0}", node.job.name);
      await vscode.commands.executeCommand("setContext", "pai.submittedCode.open", true);
      await vscode.commands.executeCommand("pai.submittedCode.focus");
    }),
    onJob("pai-lsp.job.compareWithWorkspace", (node) => compareWithWorkspace(server, node.job.name, node.cluster.name)),
    onJob("pai-lsp.job.rerun", async (node) => {
      const done = await server.call("pai.job.rerun", { job: node.job.name, cluster: node.cluster.name });
      void vscode.window.showInformationMessage(vscode.l10n.t("Rerunning {0} as {1}: {2}", node.job.name, done.job, done.codeFrom ?? ""));
      await vscode.commands.executeCommand("pai-lsp.jobs.refresh");
    }),
    onJob("pai-lsp.job.compareWithJob", async (node) => {
      // Two runs compared as `pai diff` shows them: config keys, code (unified diffs), commit, environment.
      const others = node.cluster.jobs.filter((j) => j.job.name !== node.job.name).map((j) => ({ label: j.job.name, description: j.job.state }));
      const other = await vscode.window.showQuickPick(others, { placeHolder: vscode.l10n.t("Compare {0} with which job?", node.job.name) });
      if (!other) return;
      const uri = vscode.Uri.from({ scheme: RUNS_DIFF_SCHEME, path: `/${node.cluster.name}/${node.job.name}/${other.label}.diff` });
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    }),
    vscode.workspace.registerTextDocumentContentProvider(RUNS_DIFF_SCHEME, {
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const [, cluster, job, other] = uri.path.split("/");
        return (await server.call("pai.job.diff", { job, cluster, other: other.replace(/\.diff$/, "") })).text;
      },
    }),
    vscode.commands.registerCommand("pai-lsp.submittedCode.compare", (node?: SentFile) => guarded(async () => {
      if (!(node instanceof SentFile)) return;
      const shown = await server.call("pai.job.record", { job: code.job, cluster: code.cluster });
      const folder = workspaceFor(shown.record);
      if (!folder) throw new Error(vscode.l10n.t("Open the workspace folder to compare {0} with.", code.job));
      await openDiff(code.cluster, code.job, folder, node.path);
    })),
    // Each file as the job sent it, read-only.
    vscode.workspace.registerTextDocumentContentProvider(RECORD_SCHEME, {
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const [, cluster, job, ...rest] = uri.path.split("/");
        return (await server.call("pai.job.submittedFile", { job, cluster, path: rest.join("/") })).text;
      },
    }),
  );
}
