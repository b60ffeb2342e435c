// The HDFS view: the default cluster's HDFS as a lazy tree (home folder first), files opened
// read-only as `pai-hdfs:` documents, uploads from a picker or dragged from the Explorer.
import * as vscode from "vscode";
import { posix } from "node:path";
import { Argument, Answer, PaiServer, guarded } from "./server";

/** Files larger than this are not opened in an editor (download them instead). */
export const OPEN_LIMIT = 5 * 1024 * 1024;


export class HdfsNode {
  constructor(readonly path: string, readonly type: "file" | "dir", readonly size = 0, readonly label?: string) {}
}

class MessageNode {
  /** `icon`: "info" for an empty folder, "warning" for a failure to list. */
  constructor(readonly text: string, readonly icon: "info" | "warning" = "warning") {}
}

type Node = HdfsNode | MessageNode;

function sizeText(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${n.toFixed(1)} ${units[i]}`;
}

export class HdfsView implements vscode.TreeDataProvider<Node>, vscode.TreeDragAndDropController<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly dropMimeTypes = ["text/uri-list"];
  readonly dragMimeTypes: string[] = [];
  readonly view: vscode.TreeView<Node>;
  /** The folder nodes the tree holds, by path (a change must be fired with the very object). */
  private readonly nodes = new Map<string, HdfsNode[]>();

  constructor(private readonly server: PaiServer) {
    this.view = vscode.window.createTreeView("pai.hdfs", { treeDataProvider: this, dragAndDropController: this, canSelectMany: false, showCollapseAll: true });
  }

  refresh(node?: HdfsNode): void {
    const shown = node ? this.nodes.get(node.type === "dir" ? node.path : posix.dirname(node.path)) : undefined;
    if (!shown?.length) this.changed.fire(undefined);
    for (const n of shown ?? []) this.changed.fire(n);
  }

  private remember(nodes: HdfsNode[]): void {
    for (const n of nodes) {
      if (n.type !== "dir") continue;
      const same = (this.nodes.get(n.path) ?? []).filter((m) => (m.label !== undefined) !== (n.label !== undefined));
      this.nodes.set(n.path, [...same, n]);
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node instanceof MessageNode) {
      const item = new vscode.TreeItem(node.text);
      item.iconPath = new vscode.ThemeIcon(node.icon);
      return item;
    }
    const dir = node.type === "dir";
    const item = new vscode.TreeItem(node.label ?? (posix.basename(node.path) || "/"),
      dir ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `hdfs:${node.path}${node.label ? ":root" : ""}`;
    item.resourceUri = vscode.Uri.from({ scheme: "pai-hdfs", path: node.path });
    item.iconPath = dir ? vscode.ThemeIcon.Folder : vscode.ThemeIcon.File;
    item.description = node.label ? (node.label !== node.path ? node.path : undefined) : dir ? undefined : sizeText(node.size);
    item.tooltip = node.path;
    item.contextValue = dir ? "hdfs.dir" : "hdfs.file";
    if (!dir) item.command = { command: "pai-lsp.hdfs.open", title: vscode.l10n.t("Open"), arguments: [node] };
    return item;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node instanceof MessageNode) return [];
    try {
      if (!node) {
        // The default cluster's HDFS: say which one in the view's title.
        const profiles = await this.server.call("pai.clusters.list").catch(() => undefined);
        this.view.description = profiles?.default;
        const home = await this.server.call("pai.hdfs.stat", { path: "." }).catch(() => undefined);
        const roots = [new HdfsNode("/", "dir", 0, "/")];
        if (home && home.type === "dir") roots.unshift(new HdfsNode(home.path, "dir", 0, vscode.l10n.t("Home")));
        this.nodes.clear();
        this.remember(roots);
        return roots;
      }
      const listing = await this.server.call("pai.hdfs.ls", { path: node.path });
      const children = listing.entries
        .sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "dir" ? -1 : 1))
        .map((e) => new HdfsNode(posix.join(listing.path, e.name), e.type === "dir" ? "dir" : "file", e.size));
      this.remember(children);
      return children.length ? children : [new MessageNode(vscode.l10n.t("(empty folder)"), "info")];
    } catch (err) {
      return [new MessageNode(err instanceof Error ? err.message : String(err))];
    }
  }

  /** Files and folders dragged from the Explorer (or the OS) onto a folder: uploaded into it. */
  async handleDrop(target: Node | undefined, data: vscode.DataTransfer): Promise<void> {
    const list = await data.get("text/uri-list")?.asString();
    if (!list) return;
    const uris = list.split(/\r?\n/).filter((l) => l && !l.startsWith("#")).map((l) => vscode.Uri.parse(l.trim()));
    const folder = target instanceof HdfsNode ? (target.type === "dir" ? target : new HdfsNode(posix.dirname(target.path), "dir")) : undefined;
    if (!folder) {
      void vscode.window.showErrorMessage(vscode.l10n.t("Drop files onto an HDFS folder."));
      return;
    }
    await upload(this.server, this, uris.filter((u) => u.scheme === "file"), folder);
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}

/** A transfer with a progress notification: files and bytes as the server reports them on a token. */
export async function withTransferProgress<T>(server: PaiServer, title: string, run: (token: string) => Promise<T>): Promise<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, async (progress) => {
    let done = 0;
    const token = await server.progressToken((value) => {
      if (value.kind === "report") {
        const percentage = value.percentage ?? done;
        progress.report({ message: value.message, increment: percentage - done });
        done = percentage;
      }
    });
    try {
      return await run(token.token);
    } finally {
      token.dispose();
    }
  });
}

function transfer<C extends "pai.hdfs.put" | "pai.hdfs.get">(server: PaiServer, title: string, command: C, argument: Argument<C>): Promise<Answer<C>> {
  return withTransferProgress(server, title, (token) => server.call(command, { ...argument, workDoneToken: token }));
}

async function upload(server: PaiServer, view: HdfsView, uris: vscode.Uri[], folder: HdfsNode): Promise<void> {
  let files = 0;
  for (const uri of uris) {
    const name = posix.basename(uri.path);
    const done = await guarded(() => transfer(server, vscode.l10n.t("Uploading {0} to {1}", name, folder.path),
      "pai.hdfs.put", { local: uri.fsPath, remote: folder.path }));
    if (!done) break;
    files += done.files;
  }
  view.refresh(folder);
  if (files) void vscode.window.showInformationMessage(vscode.l10n.t("Uploaded {0} file(s) to {1}", files, folder.path));
}

export function registerHdfs(context: vscode.ExtensionContext, server: PaiServer, view: HdfsView): void {
  const onNode = (id: string, fn: (node: HdfsNode) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, (node?: HdfsNode) => guarded(async () => {
      const target = node instanceof HdfsNode ? node : (view.view.selection[0] instanceof HdfsNode ? view.view.selection[0] as HdfsNode : undefined);
      if (!target) throw new Error(vscode.l10n.t("Select a file or folder in the HDFS view first."));
      return fn(target);
    }));
  const parentOf = (node: HdfsNode) => new HdfsNode(posix.dirname(node.path), "dir");
  const pickAndUpload = (folders: boolean) => async (node: HdfsNode) => {
    const folder = node.type === "dir" ? node : parentOf(node);
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: !folders, canSelectFolders: folders, canSelectMany: true,
      openLabel: vscode.l10n.t("Upload to {0}", folder.path), defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    if (picked?.length) await upload(server, view, picked, folder);
  };

  context.subscriptions.push(
    vscode.commands.registerCommand("pai-lsp.hdfs.refresh", (node?: HdfsNode) => view.refresh(node instanceof HdfsNode ? node : undefined)),
    onNode("pai-lsp.hdfs.open", async (node) => {
      if (node.size > OPEN_LIMIT) {
        throw new Error(vscode.l10n.t("{0} is {1}: files over {2} are not opened in the editor. Download it instead.",
          node.path, sizeText(node.size), sizeText(OPEN_LIMIT)));
      }
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: "pai-hdfs", path: node.path }));
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
    onNode("pai-lsp.hdfs.uploadFile", pickAndUpload(false)),
    onNode("pai-lsp.hdfs.uploadFolder", pickAndUpload(true)),
    onNode("pai-lsp.hdfs.download", async (node) => {
      const dest = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: vscode.l10n.t("Download Here"),
        defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri });
      if (!dest?.[0]) return;
      const done = await transfer(server, vscode.l10n.t("Downloading {0}", node.path), "pai.hdfs.get",
        { remote: node.path, local: dest[0].fsPath });
      void vscode.window.showInformationMessage(vscode.l10n.t("Downloaded {0} file(s) to {1}", done.files, done.path));
    }),
    onNode("pai-lsp.hdfs.newFolder", async (node) => {
      const folder = node.type === "dir" ? node : parentOf(node);
      const name = await vscode.window.showInputBox({ prompt: vscode.l10n.t("New folder in {0}", folder.path),
        validateInput: (v) => (!v.trim() || v.includes("/") ? vscode.l10n.t("A name, without '/'") : undefined) });
      if (!name) return;
      await server.call("pai.hdfs.mkdir", { path: posix.join(folder.path, name.trim()) });
      view.refresh(folder);
    }),
    onNode("pai-lsp.hdfs.rename", async (node) => {
      const old = posix.basename(node.path);
      const name = await vscode.window.showInputBox({ prompt: vscode.l10n.t("Rename {0}", node.path), value: old,
        validateInput: (v) => (!v.trim() || v.includes("/") ? vscode.l10n.t("A name, without '/'") : undefined) });
      if (!name || name === old) return;
      await server.call("pai.hdfs.mv", { from: node.path, to: posix.join(posix.dirname(node.path), name.trim()) });
      view.refresh(parentOf(node));
    }),
    onNode("pai-lsp.hdfs.delete", async (node) => {
      const del = vscode.l10n.t("Delete");
      const question = node.type === "dir"
        ? vscode.l10n.t("Delete the folder {0} and everything in it?", node.path)
        : vscode.l10n.t("Delete {0}?", node.path);
      if ((await vscode.window.showWarningMessage(question, { modal: true }, del)) !== del) return;
      await server.call("pai.hdfs.rm", { path: node.path, recursive: node.type === "dir" });
      view.refresh(parentOf(node));
    }),
    onNode("pai-lsp.hdfs.copyPath", async (node) => {
      await vscode.env.clipboard.writeText(node.path);
    }),
    // Opened files: read-only documents, fetched once.
    vscode.workspace.registerTextDocumentContentProvider("pai-hdfs", {
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const stat = await server.call("pai.hdfs.stat", { path: uri.path });
        if (stat.size > OPEN_LIMIT) {
          return vscode.l10n.t("{0} is {1}: files over {2} are not opened in the editor. Download it instead.",
            uri.path, sizeText(stat.size), sizeText(OPEN_LIMIT));
        }
        return (await server.call("pai.hdfs.cat", { path: uri.path })).text;
      },
    }),
  );
}
