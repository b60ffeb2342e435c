// The HDFS and Storages views: the default cluster's HDFS (home folder first), and the storages its
// jobs mount (each one's files under it), as lazy trees of one kind; files opened read-only as
// `pai-hdfs:` documents (a storage's as `pai-hdfs://<storage>/…`), uploads from a picker or dragged
// from the Explorer. A node knows its storage; every server call passes it on (`hdfs.*` with
// `storage` set), and a read-only storage's rows offer no write action.
import * as vscode from "vscode";
import { posix } from "node:path";
import { fileRowContext } from "./config";
import { StorageInfo } from "./protocol";
import { Argument, Answer, CommandError, PaiServer, guarded } from "./server";

/** Files larger than this are not opened in an editor (download them instead). */
export const OPEN_LIMIT = 5 * 1024 * 1024;


/** A file or folder: on the cluster's HDFS, or on `storage` (one the cluster's jobs mount). */
export class HdfsNode {
  constructor(readonly path: string, readonly type: "file" | "dir", readonly size = 0, readonly label?: string,
    readonly storage?: StorageInfo) {}

  /** A file or folder beside this one, on the same storage. */
  at(path: string, type: "file" | "dir", size = 0): HdfsNode {
    return new HdfsNode(path, type, size, undefined, this.storage);
  }

  /** What the server's `hdfs.*` commands need to find it besides its path. */
  get where(): { storage?: string } {
    return this.storage ? { storage: this.storage.name } : {};
  }

  get readOnly(): boolean {
    return this.storage?.readOnly === true;
  }

  /** The path as messages name it: `STORAGE:PATH` on a storage (as `pai storage` takes it), else the HDFS path. */
  get shown(): string {
    return this.storage ? `${this.storage.name}:${this.path}` : this.path;
  }

  /** The path as a job sees it: under the storage's mount path, or the HDFS path itself. */
  get jobPath(): string {
    return this.storage ? posix.join(this.storage.mountPath, this.path) : this.path;
  }

  get uri(): vscode.Uri {
    return vscode.Uri.from({ scheme: "pai-hdfs", authority: this.storage?.name ?? "", path: this.path });
  }
}

/** A storage itself, the top of its files: its type, read-only, mount path and default said beside it. */
class StorageRoot extends HdfsNode {
  constructor(storage: StorageInfo) {
    super("/", "dir", 0, storage.name, storage);
  }
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

/** A node's key among the folders a view holds: its storage and path. */
function key(node: HdfsNode, path = node.path): string {
  return `${node.storage?.name ?? ""}:${path}`;
}

/** What a view shows at its top, and the cluster it is of (said in the view's title). */
type Roots = (server: PaiServer) => Promise<{ cluster?: string; roots: Node[] }>;

/** The default cluster's HDFS: the home folder, then `/`. */
const hdfsRoots: Roots = async (server) => {
  const profiles = await server.call("pai.clusters.list").catch(() => undefined);
  const home = await server.call("pai.hdfs.stat", { path: "." }).catch(() => undefined);
  const roots: Node[] = [new HdfsNode("/", "dir", 0, "/")];
  if (home && home.type === "dir") roots.unshift(new HdfsNode(home.path, "dir", 0, vscode.l10n.t("Home")));
  return { cluster: profiles?.default, roots };
};

/** The storages the default cluster's jobs may mount, default first (a cluster without any says why). */
const storageRoots: Roots = async (server) => {
  const listed = await server.call("pai.storages.list", {});
  const roots = listed.storages.map((s) => new StorageRoot(s));
  return { cluster: listed.cluster, roots: roots.length ? roots
    : [new MessageNode(vscode.l10n.t("No storage: an administrator adds them to your groups."), "info")] };
};

export class HdfsView implements vscode.TreeDataProvider<Node>, vscode.TreeDragAndDropController<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly dropMimeTypes = ["text/uri-list"];
  readonly dragMimeTypes: string[] = [];
  readonly view: vscode.TreeView<Node>;
  /** The folder nodes the tree holds, by storage and path (a change must be fired with the very object). */
  private readonly nodes = new Map<string, HdfsNode[]>();

  /** The HDFS view (`pai.hdfs`) or the Storages view (`pai.storages`). */
  static of(server: PaiServer, id: "pai.hdfs" | "pai.storages"): HdfsView {
    return new HdfsView(server, id, id === "pai.hdfs" ? hdfsRoots : storageRoots);
  }

  private constructor(private readonly server: PaiServer, readonly id: string, private readonly roots: Roots) {
    this.view = vscode.window.createTreeView(id, { treeDataProvider: this, dragAndDropController: this, canSelectMany: false, showCollapseAll: true });
  }

  /** True for the nodes this view shows (the storages view: those on a storage). */
  holds(node: HdfsNode): boolean {
    return (node.storage !== undefined) === (this.id === "pai.storages");
  }

  refresh(node?: HdfsNode): void {
    const shown = node ? this.nodes.get(key(node, node.type === "dir" ? node.path : posix.dirname(node.path))) : undefined;
    if (!shown?.length) this.changed.fire(undefined);
    for (const n of shown ?? []) this.changed.fire(n);
  }

  private remember(nodes: Node[]): void {
    for (const n of nodes) {
      if (!(n instanceof HdfsNode) || n.type !== "dir") continue;
      const same = (this.nodes.get(key(n)) ?? []).filter((m) => (m.label !== undefined) !== (n.label !== undefined));
      this.nodes.set(key(n), [...same, n]);
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node instanceof MessageNode) {
      const item = new vscode.TreeItem(node.text);
      item.iconPath = new vscode.ThemeIcon(node.icon);
      return item;
    }
    if (node instanceof StorageRoot) return storageItem(node);
    const dir = node.type === "dir";
    const item = new vscode.TreeItem(node.label ?? (posix.basename(node.path) || "/"),
      dir ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `hdfs:${key(node)}${node.label ? ":root" : ""}`;
    item.resourceUri = node.uri;
    item.iconPath = dir ? vscode.ThemeIcon.Folder : vscode.ThemeIcon.File;
    item.description = node.label ? (node.label !== node.path ? node.path : undefined) : dir ? undefined : sizeText(node.size);
    item.tooltip = node.storage ? vscode.l10n.t("{0} (in jobs: {1})", node.path, node.jobPath) : node.path;
    item.contextValue = fileRowContext(node.type, node.readOnly);
    if (!dir) item.command = { command: "pai-lsp.hdfs.open", title: vscode.l10n.t("Open"), arguments: [node] };
    return item;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node instanceof MessageNode) return [];
    try {
      if (!node) {
        // The default cluster's: say which one in the view's title.
        const { cluster, roots } = await this.roots(this.server);
        this.view.description = cluster;
        this.nodes.clear();
        this.remember(roots);
        return roots;
      }
      const listing = await this.server.call("pai.hdfs.ls", { path: node.path, ...node.where });
      const children = listing.entries
        .sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "dir" ? -1 : 1))
        .map((e) => node.at(posix.join(listing.path, e.name), e.type === "dir" ? "dir" : "file", e.size));
      this.remember(children);
      return children.length ? children : [new MessageNode(vscode.l10n.t("(empty folder)"), "info")];
    } catch (err) {
      return [new MessageNode(err instanceof Error ? err.message : String(err))];
    }
  }

  /** A folder's or file's parent on a storage, up to the storage itself (what `reveal` walks up);
   *  an HDFS node's is not known (it may be under Home or under /), and is never revealed. */
  getParent(node: Node): Node | undefined {
    if (!(node instanceof HdfsNode) || !node.storage || node instanceof StorageRoot) return undefined;
    const up = posix.dirname(node.path);
    return up === "/" ? new StorageRoot(node.storage) : node.at(up, "dir");
  }

  /** The folder `path` of `storage` as this view would show it, when this view lists `cluster`'s storages
   *  and that one is among them (a job's code folder, to reveal after a submit). */
  async storageFolder(cluster: string, storage: string, path: string): Promise<HdfsNode | undefined> {
    const listed = await this.roots(this.server).catch(() => undefined);
    const root = listed?.cluster === cluster ? listed.roots.find((r) => r instanceof StorageRoot && r.storage?.name === storage) : undefined;
    return root instanceof StorageRoot ? root.at(path, "dir") : undefined;
  }

  /** Show `node` expanded and selected, the view opened if it was closed. */
  async reveal(node: HdfsNode): Promise<void> {
    await this.view.reveal(node, { expand: true, select: true, focus: true });
  }

  /** Files and folders dragged from the Explorer (or the OS) onto a folder: uploaded into it. */
  async handleDrop(target: Node | undefined, data: vscode.DataTransfer): Promise<void> {
    const list = await data.get("text/uri-list")?.asString();
    if (!list) return;
    const uris = list.split(/\r?\n/).filter((l) => l && !l.startsWith("#")).map((l) => vscode.Uri.parse(l.trim()));
    const folder = target instanceof HdfsNode ? (target.type === "dir" ? target : target.at(posix.dirname(target.path), "dir")) : undefined;
    if (!folder) {
      void vscode.window.showErrorMessage(this.id === "pai.hdfs" ? vscode.l10n.t("Drop files onto an HDFS folder.")
        : vscode.l10n.t("Drop files onto a folder of a storage."));
      return;
    }
    if (folder.readOnly) {
      void vscode.window.showErrorMessage(vscode.l10n.t("Storage {0} is read-only: nothing can be uploaded to it.", folder.storage?.name ?? ""));
      return;
    }
    await upload(this.server, this, uris.filter((u) => u.scheme === "file"), folder);
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}

/** A storage's row: its name; type, read-only, where jobs see it and default beside it; its server in the tooltip. */
function storageItem(node: StorageRoot): vscode.TreeItem {
  const s = node.storage!;
  const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `storage:${s.name}`;
  item.iconPath = new vscode.ThemeIcon(s.readOnly ? "lock" : "database");
  item.description = [s.type ?? "", s.readOnly ? vscode.l10n.t("read-only") : "", s.mountPath, s.default ? vscode.l10n.t("default") : ""]
    .filter(Boolean).join(" · ");
  item.tooltip = [
    vscode.l10n.t("Storage {0} ({1}) on {2}", s.name, s.type ?? "?", s.server || "?"),
    vscode.l10n.t("Jobs that name it in extras.storages see it at {0}", s.mountPath),
    s.readOnly ? vscode.l10n.t("Read-only: jobs mount it read-only, and nothing is written to it from here") : "",
    s.default ? vscode.l10n.t("A default storage: mounted by every job that names no storage") : "",
    s.share ? "" : vscode.l10n.t("Not shared: each user sees their own folder of it"),
  ].filter(Boolean).join("\n");
  item.contextValue = fileRowContext("root", s.readOnly);
  return item;
}

/**
 * A transfer with a progress notification: files and bytes as the server reports them on a token.
 * Closing the notification (Cancel) stops the transfer in the daemon, as Ctrl-C does in the terminal:
 * what was written in part is removed, and the failure says what was and was not done.
 */
export async function withTransferProgress<T>(server: PaiServer, title: string, run: (token: string) => Promise<T>): Promise<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, cancel) => {
    let done = 0;
    const token = await server.progressToken((value) => {
      if (value.kind === "report") {
        const percentage = value.percentage ?? done;
        progress.report({ message: value.message, increment: percentage - done });
        done = percentage;
      }
    });
    const onCancel = cancel.onCancellationRequested(() => void token.cancel());
    try {
      return await run(token.token);
    } finally {
      onCancel.dispose();
      token.dispose();
    }
  });
}

/**
 * `attempt(false)`, and when something is there already (an `exists` failure), asked as VS Code's own
 * Explorer asks: Replace runs `attempt(true)`; anything else leaves it as it is (undefined).
 */
export async function replacing<T>(attempt: (overwrite: boolean) => Promise<T>): Promise<T | undefined> {
  try {
    return await attempt(false);
  } catch (err) {
    if (!(err instanceof CommandError) || err.kind !== "exists") throw err;
    const replace = vscode.l10n.t("Replace");
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t("{0}. Replace it?", err.message), { modal: true }, replace);
    return choice === replace ? attempt(true) : undefined;
  }
}

function transfer<C extends "pai.hdfs.put" | "pai.hdfs.get">(server: PaiServer, title: string, command: C,
  argument: Argument<C>): Promise<Answer<C> | undefined> {
  return replacing((overwrite) => withTransferProgress(server, title,
    (token) => server.call(command, { ...argument, overwrite, workDoneToken: token })));
}

async function upload(server: PaiServer, view: HdfsView, uris: vscode.Uri[], folder: HdfsNode): Promise<void> {
  let files = 0;
  for (const uri of uris) {
    const name = posix.basename(uri.path);
    const done = await guarded(() => transfer(server, vscode.l10n.t("Uploading {0} to {1}", name, folder.shown),
      "pai.hdfs.put", { local: uri.fsPath, remote: folder.path, ...folder.where }));
    if (!done) continue;  // failed (said), cancelled (said), or not replaced
    files += done.files;
  }
  view.refresh(folder);
  if (files) {
    void vscode.window.showInformationMessage(files === 1 ? vscode.l10n.t("Uploaded {0} file to {1}", files, folder.shown)
      : vscode.l10n.t("Uploaded {0} files to {1}", files, folder.shown));
  }
}

/** The HDFS and Storages views' commands: each acts on the node it is given (or the one selected),
 * on HDFS or on the node's storage. */
export function registerHdfs(context: vscode.ExtensionContext, server: PaiServer, views: HdfsView[]): void {
  const viewOf = (node: HdfsNode) => views.find((v) => v.holds(node)) ?? views[0];
  const view = { refresh: (node: HdfsNode) => viewOf(node).refresh(node) };
  const onNode = (id: string, fn: (node: HdfsNode) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, (node?: HdfsNode) => guarded(async () => {
      const selected = views.map((v) => v.view.selection[0]).find((n): n is HdfsNode => n instanceof HdfsNode);
      const target = node instanceof HdfsNode ? node : selected;
      if (!target) throw new Error(vscode.l10n.t("Select a file or folder in the HDFS or Storages view first."));
      return fn(target);
    }));
  const parentOf = (node: HdfsNode) => node.at(posix.dirname(node.path), "dir");
  const pickAndUpload = (folders: boolean) => async (node: HdfsNode) => {
    const folder = node.type === "dir" ? node : parentOf(node);
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: !folders, canSelectFolders: folders, canSelectMany: true,
      openLabel: vscode.l10n.t("Upload to {0}", folder.shown), defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    if (picked?.length) await upload(server, viewOf(folder), picked, folder);
  };

  context.subscriptions.push(
    vscode.commands.registerCommand("pai-lsp.hdfs.refresh", (node?: HdfsNode) => (node instanceof HdfsNode ? view.refresh(node)
      : views.forEach((v) => v.refresh()))),
    onNode("pai-lsp.hdfs.open", async (node) => {
      if (node.size > OPEN_LIMIT) {
        throw new Error(vscode.l10n.t("{0} is {1}: files over {2} are not opened in the editor. Download it instead.",
          node.path, sizeText(node.size), sizeText(OPEN_LIMIT)));
      }
      const doc = await vscode.workspace.openTextDocument(node.uri);
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
    onNode("pai-lsp.hdfs.uploadFile", pickAndUpload(false)),
    onNode("pai-lsp.hdfs.uploadFolder", pickAndUpload(true)),
    onNode("pai-lsp.hdfs.download", async (node) => {
      const dest = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: vscode.l10n.t("Download Here"),
        defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri });
      if (!dest?.[0]) return;
      const done = await transfer(server, vscode.l10n.t("Downloading {0}", node.shown), "pai.hdfs.get",
        { remote: node.path, local: dest[0].fsPath, ...node.where });
      if (!done) return;
      void vscode.window.showInformationMessage(done.files === 1 ? vscode.l10n.t("Downloaded {0} file to {1}", done.files, done.path)
        : vscode.l10n.t("Downloaded {0} files to {1}", done.files, done.path));
    }),
    onNode("pai-lsp.hdfs.newFolder", async (node) => {
      const folder = node.type === "dir" ? node : parentOf(node);
      const name = await vscode.window.showInputBox({ prompt: vscode.l10n.t("New folder in {0}", folder.shown),
        validateInput: (v) => (!v.trim() || v.includes("/") ? vscode.l10n.t("A name, without '/'") : undefined) });
      if (!name) return;
      await server.call("pai.hdfs.mkdir", { path: posix.join(folder.path, name.trim()), ...folder.where });
      view.refresh(folder);
    }),
    onNode("pai-lsp.hdfs.rename", async (node) => {
      const old = posix.basename(node.path);
      const name = await vscode.window.showInputBox({ prompt: vscode.l10n.t("Rename {0}", node.shown), value: old,
        validateInput: (v) => (!v.trim() || v.includes("/") ? vscode.l10n.t("A name, without '/'") : undefined) });
      if (!name || name === old) return;
      await server.call("pai.hdfs.mv", { from: node.path, to: posix.join(posix.dirname(node.path), name.trim()), ...node.where });
      view.refresh(parentOf(node));
    }),
    onNode("pai-lsp.hdfs.delete", async (node) => {
      const del = vscode.l10n.t("Delete");
      const question = node.type === "dir"
        ? vscode.l10n.t("Delete the folder {0} and everything in it?", node.shown)
        : vscode.l10n.t("Delete {0}?", node.shown);
      if ((await vscode.window.showWarningMessage(question, { modal: true }, del)) !== del) return;
      await server.call("pai.hdfs.rm", { path: node.path, recursive: node.type === "dir", ...node.where });
      view.refresh(parentOf(node));
    }),
    // On a storage, the path as the job sees it (under its mount path): what a command in the job file needs.
    onNode("pai-lsp.hdfs.copyPath", async (node) => {
      await vscode.env.clipboard.writeText(node.jobPath);
    }),
    // Opened files: read-only documents, fetched once; a storage's name is the URI's authority.
    vscode.workspace.registerTextDocumentContentProvider("pai-hdfs", {
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const where = uri.authority ? { storage: uri.authority } : {};
        const stat = await server.call("pai.hdfs.stat", { path: uri.path, ...where });
        if (stat.size > OPEN_LIMIT) {
          return vscode.l10n.t("{0} is {1}: files over {2} are not opened in the editor. Download it instead.",
            uri.path, sizeText(stat.size), sizeText(OPEN_LIMIT));
        }
        return (await server.call("pai.hdfs.cat", { path: uri.path, ...where })).text;
      },
    }),
  );
}
