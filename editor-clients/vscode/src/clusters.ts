// The Clusters view: `local` and the added profiles (the CLI's own, `pai cluster list`), which is
// the default, whether a password is stored; add, log in, set default, remove, stop local.
import * as vscode from "vscode";
import { userInfo } from "node:os";
import { ClusterRow, NodeRow, VirtualClusterRow } from "./protocol";
import { CommandError, PaiServer, guarded } from "./server";

/** A cluster profile as `pai.clusters.list` answers it. */
export type Profile = ClusterRow;

class ClusterItem {
  constructor(readonly profile: Profile) {}
}

class MessageItem {
  constructor(readonly text: string) {}
}

/** A virtual cluster of an expanded cluster (`pai.vc.list`): free / total per resource, its queue. */
class VcItem {
  constructor(readonly row: VirtualClusterRow) {}
}

/** The cluster's nodes (`?nodes`), under its virtual clusters: each node's free GPUs. */
class NodesItem {
  constructor(readonly nodes: NodeRow[]) {}
}

class NodeItem {
  constructor(readonly node: NodeRow) {}
}

type Node = ClusterItem | MessageItem | VcItem | NodesItem | NodeItem;

/** A usage bar of ten cells: how much of `total` is used. */
function bar(used: number, total: number): string {
  if (total <= 0) return "";
  const full = Math.round((10 * Math.min(used, total)) / total);
  return "█".repeat(full) + "░".repeat(10 - full);
}

export class ClustersView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<Node>;
  /** Views that show per-cluster data and must follow a change of profiles. */
  readonly onDidChangeProfiles = new vscode.EventEmitter<void>();
  private shown: Profile[] | undefined;

  constructor(private readonly server: PaiServer) {
    this.view = vscode.window.createTreeView("pai.clusters", { treeDataProvider: this });
  }

  refresh(profilesChanged = false): void {
    this.changed.fire(undefined);
    if (profilesChanged) this.onDidChangeProfiles.fire();
  }

  /** The local cluster starts on first use (a listing, a run): a view that shows it stopped is out of date. */
  localClusterUsed(): void {
    if (this.shown?.some((p) => p.local && !p.running)) this.refresh();
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node instanceof VcItem) {
      const r = node.row;
      const item = new vscode.TreeItem(r.name, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon("server-environment");
      const usage = r.total.gpu ? `${bar(r.used.gpu, r.total.gpu)} ` : "";
      item.description = usage + vscode.l10n.t("{0} of {1} GPUs free · {2} waiting, {3} running", r.free.gpu, r.total.gpu,
        r.waiting, r.running);
      item.tooltip = [
        vscode.l10n.t("GPUs: {0} free, {1} used, {2} in all", r.free.gpu, r.used.gpu, r.total.gpu),
        vscode.l10n.t("CPUs: {0} free, {1} used, {2} in all", r.free.cpu, r.used.cpu, r.total.cpu),
        vscode.l10n.t("Memory (MB): {0} free, {1} used, {2} in all", r.free.memory, r.used.memory, r.total.memory),
        r.permitted === false ? vscode.l10n.t("You may not submit to this virtual cluster.") : "",
      ].filter(Boolean).join("\n");
      item.contextValue = "virtualCluster";
      return item;
    }
    if (node instanceof NodesItem) {
      const item = new vscode.TreeItem(vscode.l10n.t("Nodes"), vscode.TreeItemCollapsibleState.Collapsed);
      item.iconPath = new vscode.ThemeIcon("server");
      item.description = String(node.nodes.length);
      return item;
    }
    if (node instanceof NodeItem) {
      const n = node.node;
      const item = new vscode.TreeItem(n.name, vscode.TreeItemCollapsibleState.None);
      item.description = `${bar(n.gpuUsed, n.gpuTotal)} ` + vscode.l10n.t("{0} of {1} GPUs free", n.gpuAvailable, n.gpuTotal);
      return item;
    }
    if (node instanceof MessageItem) {
      const item = new vscode.TreeItem(node.text);
      item.iconPath = new vscode.ThemeIcon("warning");
      return item;
    }
    const p = node.profile;
    // Expanded: its virtual clusters (asking a stopped local cluster for them starts it).
    const item = new vscode.TreeItem(p.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `cluster/${p.name}`;
    item.iconPath = new vscode.ThemeIcon(p.local ? "vm" : "cloud", p.default ? new vscode.ThemeColor("charts.green") : undefined);
    const state = p.local
      ? (p.running ? vscode.l10n.t("running") : vscode.l10n.t("stopped"))
      : (p.loggedIn ? vscode.l10n.t("logged in") : vscode.l10n.t("not logged in"));
    item.description = [p.default ? vscode.l10n.t("default") : "", state].filter(Boolean).join(" · ");
    item.tooltip = p.local
      ? vscode.l10n.t("The embedded local cluster: runs jobs on this machine, started on demand.")
      : `${p.rest}\n${p.user} · ${p.kind}`;
    item.contextValue = ["cluster", p.local ? "local" : "remote", p.default ? "default" : "other", p.local && p.running ? "running" : ""]
      .filter(Boolean).join(".");
    return item;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node instanceof NodesItem) return node.nodes.map((n) => new NodeItem(n));
    if (node instanceof ClusterItem) {
      try {
        const result = await this.server.call("pai.vc.list", { cluster: node.profile.name });
        if (node.profile.local) this.localClusterUsed();
        const vcs: Node[] = result.vcs.map((r) => new VcItem(r));
        return result.nodes.length ? [...vcs, new NodesItem(result.nodes)] : vcs;
      } catch (err) {
        return [new MessageItem(err instanceof Error ? err.message : String(err))];
      }
    }
    if (node) return [];
    try {
      const list = await this.server.call("pai.clusters.list");
      this.shown = list.clusters;
      return list.clusters.map((p) => new ClusterItem(p));
    } catch (err) {
      return [new MessageItem(err instanceof Error ? err.message : String(err))];
    }
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
    this.onDidChangeProfiles.dispose();
  }
}

async function ask(prompt: string, options: vscode.InputBoxOptions = {}): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({ prompt, ignoreFocusOut: true, ...options });
  return value === undefined ? undefined : value.trim();
}

/** A password box; `problem` (why the last one was refused) shows under it, in place of the
 * prompt, until the user types (the placeholder still asks the question). */
function askPassword(question: string, prompt: string, problem?: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    box.placeholder = question;
    box.prompt = prompt;
    box.password = true;
    box.ignoreFocusOut = true;
    box.validationMessage = problem && { message: problem, severity: vscode.InputBoxValidationSeverity.Error };
    let answer: string | undefined;
    box.onDidChangeValue(() => (box.validationMessage = undefined));
    box.onDidAccept(() => {
      answer = box.value;
      box.hide();
    });
    box.onDidHide(() => {
      box.dispose();
      resolve(answer);
    });
    box.show();
  });
}

const URL_CHECK = (v: string) => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : vscode.l10n.t("A URL starting with http:// or https://"));

export function registerClusters(context: vscode.ExtensionContext, server: PaiServer, view: ClustersView): void {
  const onItem = (id: string, fn: (p: Profile) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, (node?: ClusterItem) => (node instanceof ClusterItem ? guarded(() => fn(node.profile)) : undefined));
  context.subscriptions.push(
    vscode.commands.registerCommand("pai-lsp.clusters.refresh", () => view.refresh()),
    vscode.commands.registerCommand("pai-lsp.clusters.add", () => guarded(async () => {
      const name = await ask(vscode.l10n.t("Cluster name (letters, digits, '.', '_', '-')"), {
        placeHolder: "lab", validateInput: (v) => (/^[A-Za-z0-9_.-]+$/.test(v.trim()) && v.trim() !== "local" ? undefined
          : vscode.l10n.t("Letters, digits, '.', '_' or '-'; not 'local'")),
      });
      if (!name) return;
      const rest = await ask(vscode.l10n.t("REST server URL of {0}", name), { placeHolder: "http://pai.example.com/rest-server", validateInput: URL_CHECK });
      if (!rest) return;
      const webhdfs = await ask(vscode.l10n.t("WebHDFS URL of {0}", name), { placeHolder: "http://pai.example.com:50070", validateInput: URL_CHECK });
      if (!webhdfs) return;
      const user = await ask(vscode.l10n.t("Your user name on {0}", name), { value: userInfo().username, validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t("A user name")) });
      if (!user) return;
      // The kinds whose profile is what was asked for (a REST and a WebHDFS URL), as the server names them.
      const kinds = (await server.kinds()).kinds.filter((k) => k.storage === "WebHDFS");
      const kind = await vscode.window.showQuickPick(kinds.map((k) => ({ label: k.name, description: k.title })),
        { placeHolder: vscode.l10n.t("Kind of cluster"), ignoreFocusOut: true });
      if (!kind) return;
      // A refused password asks again (nothing was added); Escape leaves everything as it was.
      let problem: string | undefined;
      for (;;) {
        const password = await askPassword(vscode.l10n.t("Password of {0} on {1}", user, name),
          vscode.l10n.t("Password of {0} on {1} (kept in the OS keyring; empty: log in later)", user, name), problem);
        if (password === undefined) return;
        try {
          const added = await Promise.resolve(vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Adding cluster {0}", name) },
            () => server.call("pai.clusters.add", { name, rest, webhdfs, user, kind: kind.label, password: password || undefined }),
          ));
          view.refresh(true);
          void vscode.window.showInformationMessage(added.loggedIn
            ? vscode.l10n.t("Added cluster {0} and logged in as {1}.", name, user)
            : vscode.l10n.t("Added cluster {0}, not logged in: use Log In… on it in the Clusters view.", name));
          return;
        } catch (err) {
          if (!(err instanceof CommandError && err.kind === "auth" && password)) throw err;
          problem = err.message;
        }
      }
    })),
    onItem("pai-lsp.clusters.login", async (p) => {
      const password = await vscode.window.showInputBox({ prompt: vscode.l10n.t("Password of {0} on {1}", p.user ?? "", p.name), password: true, ignoreFocusOut: true });
      if (!password) return;
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Logging in to {0}", p.name) },
        () => server.call("pai.clusters.login", { name: p.name, password }));
      view.refresh(true);
      void vscode.window.showInformationMessage(vscode.l10n.t("Logged in to {0} as {1}.", p.name, p.user ?? ""));
    }),
    onItem("pai-lsp.clusters.setDefault", async (p) => {
      await server.call("pai.clusters.setDefault", { name: p.name });
      view.refresh(true);
    }),
    onItem("pai-lsp.clusters.remove", async (p) => {
      const remove = vscode.l10n.t("Remove");
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t("Remove the cluster {0}? Its stored password goes too; jobs on it keep running.", p.name), { modal: true }, remove);
      if (choice !== remove) return;
      await server.call("pai.clusters.remove", { name: p.name });
      view.refresh(true);
    }),
    onItem("pai-lsp.clusters.stopLocal", async () => {
      const answer = await server.call("pai.clusters.stopLocal");
      view.refresh(); // not the other views: listing the local cluster's jobs or files would start it again
      void vscode.window.showInformationMessage(answer.stopped ? vscode.l10n.t("Stopped the local cluster.") : vscode.l10n.t("The local cluster was not running."));
    }),
  );
}
