// Preview Upload: what Submit would send (files, size, the largest, how many unchanged since the
// last upload, the job's name and final config), nothing sent; Preview Rendered Job: the job as the
// server will see it (a v2 job's templates filled in, its deployment merged, defaults applied,
// secrets masked). The server writes each (`pai.previewUpload` / `pai.previewRendered` → `text`); it
// is shown as a read-only `pai-preview:` document, made again each time the command runs (or VS Code
// reopens the tab).
import * as vscode from "vscode";
import { PaiServer, guarded } from "./server";
import { jobConfigTarget } from "./submit";

export const PREVIEW_SCHEME = "pai-preview";

/** Which preview: the server command that writes it, and its fragment in the document's URI. */
type Kind = "upload" | "rendered";

/** The preview document of a config: its tab reads "mnist.pai.json (upload preview)" or
 * "mnist.pai.yaml (rendered)"; the config's URI rides in the query and the kind in the fragment, so a
 * tab VS Code restores can be made again. */
export function previewUri(config: vscode.Uri, kind: Kind = "upload"): vscode.Uri {
  return vscode.Uri.from({
    scheme: PREVIEW_SCHEME,
    path: kind === "upload" ? vscode.l10n.t("{0} (upload preview)", config.path) : vscode.l10n.t("{0} (rendered)", config.path),
    query: config.toString(),
    fragment: kind === "upload" ? "" : kind,
  });
}

function kindOf(uri: vscode.Uri): Kind {
  return uri.fragment === "rendered" ? "rendered" : "upload";
}

class PreviewDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly server: PaiServer) {}

  readonly languages = new Map<string, string>();

  /** Ask the server for the report now; an open document of it shows the new one. */
  async refresh(uri: vscode.Uri): Promise<void> {
    if (kindOf(uri) === "rendered") {
      const result = await this.server.call("pai.previewRendered", { uri: uri.query });
      this.texts.set(uri.toString(), result.text);
      this.languages.set(uri.toString(), result.language);
    } else {
      const result = await this.server.call("pai.previewUpload", { uri: uri.query });
      this.texts.set(uri.toString(), result.text);
    }
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
    const name = vscode.Uri.parse(uri.query).path.split("/").pop() ?? "";
    const title = kindOf(uri) === "upload" ? vscode.l10n.t("Previewing the upload of {0}", name) : vscode.l10n.t("Rendering {0}", name);
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, () => documents.refresh(uri));
  };
  /** Open the `kind` preview of the job file `target` (the active editor's when none). */
  const open = (kind: Kind, target: vscode.Uri | string | undefined, prompt: (patterns: string) => string) =>
    guarded(async () => {
      const config = await jobConfigTarget(server, target, prompt);
      if (!config) return undefined;
      const uri = previewUri(config, kind);
      await refresh(uri); // a failure is one error message, and no document
      let doc = await vscode.workspace.openTextDocument(uri);
      const language = documents.languages.get(uri.toString());
      if (language && doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
      await vscode.window.showTextDocument(doc, { preview: true });
      return doc.getText();
    });
  context.subscriptions.push(
    documents,
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, documents),
    vscode.commands.registerCommand("pai-lsp.previewUpload", (target?: vscode.Uri | string) =>
      open("upload", target, (patterns) => vscode.l10n.t("Open a job file ({0}) to preview its upload.", patterns))),
    vscode.commands.registerCommand("pai-lsp.previewRendered", (target?: vscode.Uri | string) =>
      open("rendered", target, (patterns) => vscode.l10n.t("Open a job file ({0}) to see it rendered.", patterns))),
    // The preview's title bar: the report again, for the files as they are now.
    vscode.commands.registerCommand("pai-lsp.previewUpload.refresh", (uri?: vscode.Uri) =>
      guarded(async () => {
        const shown = uri ?? vscode.window.activeTextEditor?.document.uri;
        if (shown?.scheme === PREVIEW_SCHEME) await refresh(shown);
      })),
  );
}
