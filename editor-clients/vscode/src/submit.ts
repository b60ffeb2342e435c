// Submit / Run Locally: a progress notification (upload files and bytes, then "submitted NAME"),
// cancellable while the upload runs; a failure is one error notification naming the cause.
import * as vscode from "vscode";
import { DebugJob, SubmitResult } from "./protocol";
import { CommandError, PaiServer } from "./server";

export type Submitted = SubmitResult;

/**
 * The job file a command acts on (the file right-clicked, a code lens's URI, else the active
 * editor's), saved if it has unsaved changes (the daemon reads the file on disk); undefined, with
 * `notConfig(patterns)` shown as an error, when that is no job file.
 */
export async function jobConfigTarget(server: PaiServer, target: vscode.Uri | string | undefined,
  notConfig: (patterns: string) => string): Promise<vscode.Uri | undefined> {
  const uri = typeof target === "string" ? vscode.Uri.parse(target) : (target ?? vscode.window.activeTextEditor?.document.uri);
  if (!uri || !server.isJobFile(uri.path)) {
    void vscode.window.showErrorMessage(notConfig(server.jobFiles.join(", ")));
    return undefined;
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open?.isDirty) await open.save();
  return uri;
}

/** How a job file is sent: to the default cluster, run locally, or submitted with its Python under the debugger. */
export type SubmitHow = "submit" | "local" | "debug";

const COMMANDS = { submit: "pai.submitJob", local: "pai.runLocally", debug: "pai.debugJob" } as const;

/** A Debug Job's choices (`pai.debugJob`): which cluster (the local one unless named), which tasks,
 *  post-mortem minutes, how the debugger reaches them. */
export type DebugChoices = Pick<DebugJob, "cluster" | "tasks" | "postMortemMinutes" | "via">;

export async function submit(server: PaiServer, target: vscode.Uri | string | undefined, way: SubmitHow,
  debug: DebugChoices = {}): Promise<Submitted | undefined> {
  const uri = await jobConfigTarget(server, target, (patterns) => vscode.l10n.t("Open a job file ({0}) to submit it.", patterns));
  if (!uri) return undefined;
  const name = uri.path.split("/").pop() ?? uri.path;
  const title = way === "local" ? vscode.l10n.t("Running {0} locally", name)
    : way === "debug" ? vscode.l10n.t("Submitting {0} to debug it", name) : vscode.l10n.t("Submitting {0}", name);
  let answer: (value: Submitted | undefined) => void = () => undefined;
  const answered = new Promise<Submitted | undefined>((resolve) => (answer = resolve));
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    async (progress, cancel) => {
      let done = 0;
      let uploaded = false; // after the upload the job is being submitted: too late to cancel
      const token = await server.progressToken((value) => {
        if (value.kind === "report" && value.message) {
          uploaded ||= value.percentage === 100;
          const step = value.percentage !== undefined ? Math.max(0, value.percentage - done) : undefined;
          done = value.percentage ?? done;
          progress.report({ message: value.message, increment: step });
        }
      });
      const onCancel = cancel.onCancellationRequested(() => {
        if (!uploaded) void token.cancel();
      });
      try {
        const result = await server.call(COMMANDS[way], {
          uri: uri.toString(), workDoneToken: token.token, ...(way === "debug" ? debug : {}),
        });
        progress.report({ message: vscode.l10n.t("submitted {0}", result.job), increment: 100 - done });
        answer(result);
        await new Promise((resolve) => setTimeout(resolve, SHOW_SUBMITTED_MS)); // leave "submitted NAME" readable
        return result;
      } catch (err) {
        if (err instanceof CommandError && err.kind === "cancelled") {
          void vscode.window.showInformationMessage(err.message);
        } else {
          void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
        }
        answer(undefined);
        return undefined;
      } finally {
        onCancel.dispose();
        token.dispose();
      }
    },
  ).then(undefined, (err) => {
    void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
    answer(undefined);
  });
  return answered;
}

const SHOW_SUBMITTED_MS = 4000;

/** Where a job's code went when it went to a storage the job mounts: "N files → storage S:/path, mounted at /mnt/S". */
export function whereTheCodeWent(result: Submitted): string | undefined {
  const to = result.codeStorage;
  if (!to) return undefined;
  const files = result.upload ? result.upload.sent_files + result.upload.unchanged_files : 0;
  return files === 1 ? vscode.l10n.t("{0} file → storage {1}:{2}, mounted at {3}", files, to.storage, to.path, to.mountPath)
    : vscode.l10n.t("{0} files → storage {1}:{2}, mounted at {3}", files, to.storage, to.path, to.mountPath);
}
