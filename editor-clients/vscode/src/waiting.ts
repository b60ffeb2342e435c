// Why a job waits (the daemon's explanation, `pai.job.waiting`, in the editor's language): the reason
// on the job's row in the Jobs view, and in its tooltip the jobs ahead (an estimate), what is free and
// who holds it. Asked when a waiting job's row is shown, again at most once a minute while it waits;
// gone when the job starts.
import * as vscode from "vscode";
import { JobsView } from "./jobs";
import { PaiServer } from "./server";

const ASK_AGAIN_MS = 60_000;

export function registerWaiting(context: vscode.ExtensionContext, server: PaiServer, jobs: JobsView): void {
  const asked = new Map<string, number>(); // job -> when it was last asked about
  context.subscriptions.push(jobs.onDidShowWaiting(({ job, cluster }) => {
    if (Date.now() - (asked.get(job) ?? 0) < ASK_AGAIN_MS) return;
    asked.set(job, Date.now());
    server.call("pai.job.waiting", { job, cluster }).then(
      (result) => jobs.explainWaiting(job, result.state === "WAITING" ? result.reason ?? undefined : undefined, result.lines),
      () => undefined, // a cluster that cannot tell, or is unreachable: the row says nothing more
    );
  }));
}
