// Preview Upload: what Submit would send (files, size, the largest, how many unchanged since the
// last upload, the job's name and final config), nothing sent. The server writes the report
// (`pai.previewUpload` → `text`); it is shown as a read-only `pai-preview:` document, made again
// each time the command runs (or VS Code reopens the tab).
import * as vscode from "vscode";
import { PaiServer, guarded } from "./server";
import { jobConfigTarget } from "./submit";

export const PREVIEW_SCHEME = "pai-preview";

/** The preview document of a config: its tab reads "mnist.pai.json (upload preview)"; the config's
 * URI rides in the query, so a tab VS Code restores can be made again. */
export function previewUri(config: vscode.Uri): vscode.Uri {
  return vscode.Uri.from({
    scheme: PREVIEW_SCHEME,
    path: vscode.l10n.t("{0} (upload preview)", config.path),
    query: config.toString(),
  });
}

class PreviewDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly server: PaiServer) {}

  /** Ask the server for the report now; an open document of it shows the new one. */
  async refresh(uri: vscode.Uri): Promise<void> {
    const result = await this.server.call("pai.previewUpload", { uri: uri.query });
    this.texts.set(uri.toString(), result.text);
    this.changed.fire(uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    if (!this.texts.has(uri.toString())) await this.refresh(uri); // a tab VS Code restored
    return this.texts.get(uri.toString()) ?? "";
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerPreview(context: vscode.ExtensionContext, server: PaiServer): void {
  const documents = new PreviewDocuments(server);
  /** The report of `uri` made again (what Submit would send now), with a status-bar progress. */
  const refresh = (uri: vscode.Uri) => {
    const name = vscode.Uri.parse(uri.query).path.split("/").pop();
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t("Previewing the upload of {0}", name ?? "") },
      () => documents.refresh(uri));
  };
  context.subscriptions.push(
    documents,
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, documents),
    vscode.commands.registerCommand("pai-lsp.previewUpload", (target?: vscode.Uri | string) =>
      guarded(async () => {
        const config = await jobConfigTarget(server, target, (patterns) => vscode.l10n.t("Open a job file ({0}) to preview its upload.", patterns));
        if (!config) return undefined;
        const uri = previewUri(config);
        await refresh(uri); // a failure is one error message, and no document
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(doc, { preview: true });
        return doc.getText();
      })),
    // The preview's title bar: the report again, for the files as they are now.
    vscode.commands.registerCommand("pai-lsp.previewUpload.refresh", (uri?: vscode.Uri) =>
      guarded(async () => {
        const shown = uri ?? vscode.window.activeTextEditor?.document.uri;
        if (shown?.scheme === PREVIEW_SCHEME) await refresh(shown);
      })),
  );
}
