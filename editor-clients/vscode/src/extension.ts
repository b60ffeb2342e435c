// Thin client: every feature lives in the pai language server, so other editors get the same behaviour.
// The extension's own commands are `pai-lsp.*`; the server's (`pai.*`) are registered by the language client.
import * as vscode from "vscode";
import { ClustersView, registerClusters } from "./clusters";
import { HdfsView, registerHdfs } from "./hdfs";
import { JobsView, registerJobCommands } from "./jobs";
import { LogBook } from "./logs";
import { registerMetrics } from "./metrics";
import { registerPreview } from "./preview";
import { registerRecords } from "./records";
import { PaiServer } from "./server";
import { Submitted, submit, whereTheCodeWent } from "./submit";
import { registerWaiting } from "./waiting";
import { WhyBook, registerWhy } from "./why";

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const server = new PaiServer(context);
  const logs = new LogBook(server);
  const jobs = new JobsView(server, logs);
  const hdfs = HdfsView.of(server, "pai.hdfs");
  const storages = HdfsView.of(server, "pai.storages");
  const clusters = new ClustersView(server);
  const why = new WhyBook(server);
  context.subscriptions.push(server, logs, jobs, hdfs, storages, clusters, why);
  registerWhy(context, why, jobs);
  registerWaiting(context, server, jobs);
  registerJobCommands(context, server, jobs, logs);
  registerMetrics(context, server, jobs);
  registerHdfs(context, server, [hdfs, storages]);
  registerClusters(context, server, clusters);
  registerPreview(context, server);
  registerRecords(context, server);
  server.onRestart(() => jobs.refresh()); // a new server watches what it lists again
  jobs.onDidList.event((node) => {
    if (node.local) clusters.localClusterUsed();
  });
  clusters.onDidChangeProfiles.event(() => {
    jobs.refresh();
    hdfs.refresh();
    storages.refresh();
  });

  const submitWith = (local: boolean) => async (target?: vscode.Uri | string) => {
    const result = await submit(server, target, local);
    if (result) {
      logs.started({ job: result.job, cluster: result.cluster });
      why.submitted(typeof target === "string" ? vscode.Uri.parse(target) : target ?? vscode.window.activeTextEditor?.document.uri, result.job);
      jobs.started(result.job, result.cluster);
      clusters.localClusterUsed(); // a run may have started the local cluster
      if (result.codeStorage) void toldWhereTheCodeWent(result, storages);
    }
    return result;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand("pai-lsp.submitJob", submitWith(false)),
    vscode.commands.registerCommand("pai-lsp.runLocally", submitWith(true)),
    vscode.commands.registerCommand("pai-lsp.restartServer", async () => {
      const client = await server.client();
      await client.restart();
    }),
  );

  // Start the server as soon as a job config is open (diagnostics, code lens …); a failure to
  // start is said once, not for every file opened.
  let told = false;
  const startFor = (doc: vscode.TextDocument) => {
    if (doc.uri.scheme === "file" && server.isJobFile(doc.uri.fsPath)) {
      server.client().catch((err) => {
        if (!told) void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
        told = true;
      });
    }
  };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(startFor));
  vscode.workspace.textDocuments.forEach(startFor);
}

export function deactivate(): void {}

/** Code sent to a storage the job mounts: a notification that stays says which storage, path and
 *  mount, with a button to the job's code folder in the Storages view (when it lists that cluster's). */
async function toldWhereTheCodeWent(result: Submitted, storages: HdfsView): Promise<void> {
  const to = result.codeStorage;
  if (!to) return;
  storages.refresh(); // the job's code folder is new there
  const folder = await storages.storageFolder(result.cluster, to.storage, to.path);
  const show = vscode.l10n.t("Show in Storages");
  const chosen = await vscode.window.showInformationMessage(whereTheCodeWent(result) ?? "", ...(folder ? [show] : []));
  if (folder && chosen === show) await storages.reveal(folder);
}
