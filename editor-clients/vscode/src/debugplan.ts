// What Debug Job and Attach Debugger do with each answer of `pai.debugTargets`: which tasks to attach to now,
// and whether to wait for more. Pure (no `vscode`), so node tests run it.
import { FINAL_STATES } from "./config";

/** What is read of a debug target here. */
export interface Target {
  task: string;
  state: string; // "waiting", "listening", "ended"
}

/** The targets that listen and have no debug session yet. */
export function toAttach<T extends Target>(targets: T[], attached: (target: T) => boolean): T[] {
  return targets.filter((t) => t.state === "listening" && !attached(t));
}

/**
 * After the sessions were started: "wait" for more (`all`: every debugged task, while the job runs and one
 * still waits), "done" (a session is attached), "quiet" (a post-mortem job that succeeded: nothing to
 * debug), "none" (nothing listens, nor will: said to the user).
 */
export function outcome<T extends Target>(targets: T[], attached: (target: T) => boolean, jobState: string,
  all: boolean): "wait" | "done" | "quiet" | "none" {
  const pending = targets.some((t) => t.state === "waiting");
  if (all && !FINAL_STATES.includes(jobState) && (!targets.length || pending)) return "wait";
  if (targets.some(attached)) return "done";
  return all && jobState === "SUCCEEDED" ? "quiet" : "none";
}
