// Pure helpers, kept apart from the `vscode` module so they can be tested with node alone.
import type { KindsResult } from "./protocol";

/** The language of JSON job files (the extension contributes it, so VS Code's own JSON features do
 * not check them a second time). */
export const LANGUAGE = "pai-job";
/** The language of YAML job files (`*.pai.yaml`: the v2 protocol), coloured by VS Code's YAML grammar. */
export const YAML_LANGUAGE = "pai-job-yaml";
/** Every job-file language: one per syntax the server's job-file formats are written in. */
export const LANGUAGES = [LANGUAGE, YAML_LANGUAGE];

/** What the extension's package.json says of itself (the part read here). */
export interface Manifest {
  contributes: { languages: { id: string; filenamePatterns?: string[] }[] };
}

/**
 * The file-name patterns of job files (`*.pai.json`, `*.paddle.json`, `*.pai.yaml` …): those of the
 * languages the extension contributes, which VS Code itself needs in the manifest and a test holds
 * equal to the server's registry of job-file formats (`pai.kinds`). Read from there, written nowhere else.
 */
export function jobFilePatterns(manifest: Manifest): string[] {
  return LANGUAGES.flatMap((id) => manifest.contributes.languages.find((l) => l.id === id)?.filenamePatterns ?? []);
}

/** The documents the server checks: job files on disk and unsaved ones, and the workspace's
 * `.vscode/settings.json` (its `pai.job.*` keys; the server adds only diagnostics there, VS Code's
 * own JSON features stay). */
export function documentSelector(patterns: string[]): { scheme: string; language?: string; pattern?: string }[] {
  return [
    ...LANGUAGES.map((language) => ({ scheme: "file", language })),
    ...patterns.map((pattern) => ({ scheme: "file", pattern: `**/${pattern}` })),
    { scheme: "file", pattern: "**/.vscode/settings.json" },
    ...LANGUAGES.map((language) => ({ scheme: "untitled", language })),
  ];
}

/** True for a path or URI whose file name matches one of `patterns` (`*` and `?` as in globs). */
export function isJobFile(path: string, patterns: string[]): boolean {
  const name = path.split(/[\\/]/).pop() ?? path;
  return patterns.some((pattern) => globRegExp(pattern).test(name));
}

function globRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
  return new RegExp(`^${body}$`, "i");
}

/** What the server knows (`pai.kinds`): the job-file formats and the cluster kinds. */
export type Catalogue = KindsResult;

/** The name of a job file of `job` on a cluster of kind `kind` ("mnist_1a2b.pai.json"). */
export function jobFileName(catalogue: Catalogue, kind: string, job: string): string {
  const pattern = catalogue.kinds.find((k) => k.name === kind)?.jobFiles[0] ?? "*.json";
  return pattern.replace("*", job);
}

/** The configured server command with blank parts dropped; undefined when nothing usable is set. */
export function configuredServerCommand(configured: string[] | string | undefined): [string, ...string[]] | undefined {
  const list = typeof configured === "string" ? [configured] : (configured ?? []);
  const parts = list.filter((part) => part.trim() !== "");
  return parts.length > 0 ? (parts as [string, ...string[]]) : undefined;
}

/**
 * Client command IDs: the server's IDs (all `pai.*`, registered by vscode-languageclient from
 * `executeCommandProvider`) with the extension's own prefix, so the two sets never meet.
 */
export const CLIENT_PREFIX = "pai-lsp.";

/** The client command that wraps a server command shown in a code lens, if there is one. */
export function clientCommandFor(serverCommand: string): string | undefined {
  const wrapped: Record<string, string> = {
    "pai.submitJob": `${CLIENT_PREFIX}submitJob`,
    "pai.runLocally": `${CLIENT_PREFIX}runLocally`,
    "pai.debugJob": `${CLIENT_PREFIX}debugJob`,
    "pai.previewUpload": `${CLIENT_PREFIX}previewUpload`,
  };
  return wrapped[serverCommand];
}

/** What a client has of one task's log, by UTF-8 byte offset: each byte is accepted once. */
export class TaskLog {
  have = 0;

  /**
   * The part of a chunk not accepted before ("" when none): `text` stands for `length` bytes of
   * the log from byte `offset` (its own UTF-8 length differs only where the log is not UTF-8).
   */
  accept(offset: number, text: string, length = Buffer.byteLength(text, "utf8")): string {
    const end = offset + length;
    if (end <= this.have) return "";
    const fresh = offset < this.have ? Buffer.from(text, "utf8").subarray(this.have - offset).toString("utf8") : text;
    this.have = end;
    return fresh;
  }
}

/**
 * Writes logs of several tasks into one stream: with `prefix`, whole lines only, each as
 * `[role:index] line` (a task's unfinished line waits for its end); without, as they come.
 */
export class LineJoiner {
  private readonly partial = new Map<string, string>();

  constructor(private readonly out: (text: string) => void) {}

  write(task: string, text: string, prefix: boolean): void {
    if (!prefix) {
      this.out(text);
      return;
    }
    const pending = (this.partial.get(task) ?? "") + text;
    const cut = pending.lastIndexOf("\n") + 1;
    this.partial.set(task, pending.slice(cut));
    if (cut > 0) this.out(pending.slice(0, cut).split(/(?<=\n)/).map((line) => `[${task}] ${line}`).join(""));
  }

  /** Write what is left of unfinished lines (at the end of the job). */
  flush(): void {
    for (const [task, rest] of this.partial) if (rest) this.out(`[${task}] ${rest}\n`);
    this.partial.clear();
  }
}

/**
 * Splits several tasks' logs into whole lines, `onLine(task, line)` each (its newline kept); a task's
 * unfinished line waits for its end, and `flush` gives it at the end of the job (the last line of a
 * task killed right after writing it is not lost).
 */
export class LineSplitter {
  private readonly partial = new Map<string, string>();

  constructor(private readonly onLine: (task: string, line: string) => void) {}

  write(task: string, text: string): void {
    const pending = (this.partial.get(task) ?? "") + text;
    const cut = pending.lastIndexOf("\n") + 1;
    this.partial.set(task, pending.slice(cut));
    if (cut > 0) for (const line of pending.slice(0, cut).split(/(?<=\n)/)) this.onLine(task, line);
  }

  flush(): void {
    for (const [task, rest] of this.partial) if (rest) this.onLine(task, rest + "\n");
    this.partial.clear();
  }
}

/**
 * Which lines of a job's log are shown: the words `role:NAME` and `task:N` pick tasks (several of a
 * kind: any of them), the rest is a regular expression (as plain text when it is not one), matched
 * ignoring case. The empty filter shows every line.
 */
export class LogFilter {
  constructor(readonly roles: string[] = [], readonly indices: number[] = [], readonly text = "", readonly pattern?: RegExp) {}

  static parse(input: string): LogFilter {
    const roles: string[] = [];
    const indices: number[] = [];
    const rest: string[] = [];
    for (const word of input.trim().split(/\s+/).filter(Boolean)) {
      const role = /^role:(.+)$/.exec(word);
      const task = /^(?:task|index):(\d+)$/.exec(word);
      if (role) roles.push(role[1]);
      else if (task) indices.push(Number(task[1]));
      else rest.push(word);
    }
    const text = rest.join(" ");
    let pattern: RegExp | undefined;
    if (text) {
      try {
        pattern = new RegExp(text, "i");
      } catch {
        pattern = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
      }
    }
    return new LogFilter(roles, indices, text, pattern);
  }

  get empty(): boolean {
    return !this.roles.length && !this.indices.length && !this.pattern;
  }

  wants(task: string, line: string): boolean {
    const cut = task.lastIndexOf(":");
    const role = cut < 0 ? task : task.slice(0, cut);
    const index = Number(task.slice(cut + 1));
    if (this.roles.length && !this.roles.includes(role)) return false;
    if (this.indices.length && !this.indices.includes(index)) return false;
    return !this.pattern || this.pattern.test(line);
  }

  toString(): string {
    return [...this.roles.map((r) => `role:${r}`), ...this.indices.map((i) => `task:${i}`), this.text].filter(Boolean).join(" ");
  }
}

/** A traceback frame in a log line: Python's `File "PATH", line N` (where in the line, the path, the line). */
export interface LogFrame {
  start: number;
  end: number;
  path: string;
  line: number;
}

export function logFrames(text: string): LogFrame[] {
  return [...text.matchAll(/File "([^"]+)", line (\d+)/g)].map((m) => ({
    start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, path: m[1], line: Number(m[2]),
  }));
}

/**
 * The workspace file a task's path stands for: the longest end of the path that names a file in one
 * of `folders` (a job's code runs from its own folder — the code dir, a storage, the job's name —
 * below which the workspace's layout is kept), as `exists` says; undefined when none does.
 */
export function workspaceFileOf(path: string, folders: string[], exists: (file: string) => boolean): string | undefined {
  const parts = path.split(/[\\/]+/).filter((part) => part && part !== ".");
  for (let from = 0; from < parts.length; from++) {
    for (const folder of folders) {
      const candidate = [folder.replace(/[\\/]+$/, ""), ...parts.slice(from)].join("/");
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}

/** "1h02m", "3m05s", "42s": how long a job ran (or runs), from times in ms. */
export function duration(created?: number | null, completed?: number | null, now = Date.now()): string {
  if (!created) return "";
  const seconds = Math.max(0, Math.floor(((completed || now) - created) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`;
}

export const FINAL_STATES = ["SUCCEEDED", "FAILED", "STOPPED"];

/**
 * The `contextValue` of a row of the HDFS and Storages views, which the manifest's menus match:
 * `hdfs.dir`, `hdfs.file`, `hdfs.root` (a storage itself: no rename or delete), with `ro.` after
 * `hdfs.` on a read-only storage, whose rows offer no write action.
 */
export function fileRowContext(kind: "dir" | "file" | "root", readOnly: boolean): string {
  return `hdfs.${readOnly ? "ro." : ""}${kind}`;
}
