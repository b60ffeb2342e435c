import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  Catalogue, configuredServerCommand, clientCommandFor, CLIENT_PREFIX, documentSelector, duration, fileRowContext, isJobFile, jobFileName,
  jobFilePatterns, LANGUAGES, LineJoiner, LineSplitter, LogFilter, TaskLog, logFrames, workspaceFileOf,
} from "../config";

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));

test("a configured server command keeps its arguments; blank means not configured", () => {
  assert.equal(configuredServerCommand(undefined), undefined);
  assert.equal(configuredServerCommand(["", " "]), undefined);
  assert.deepEqual(configuredServerCommand("pai-lsp"), ["pai-lsp"]);
  assert.deepEqual(configuredServerCommand(["python", "-m", "pai_lsp", "lsp"]), ["python", "-m", "pai_lsp", "lsp"]);
});

test("no contributed command uses the server's pai.* namespace (vscode-languageclient registers those)", () => {
  const ids: string[] = manifest.contributes.commands.map((c: { command: string }) => c.command);
  assert.ok(ids.length > 0);
  for (const id of ids) assert.ok(id.startsWith(CLIENT_PREFIX), id);
  assert.equal(clientCommandFor("pai.submitJob"), "pai-lsp.submitJob");
  assert.equal(clientCommandFor("pai.previewUpload"), "pai-lsp.previewUpload"); // the Preview code lens
  assert.equal(clientCommandFor("pai.hdfs.ls"), undefined);
});

test("only job files (the patterns of the contributed languages) and .vscode/settings.json on disk are served", () => {
  // The patterns themselves are the server's (tests/test_vscode_manifest.py holds them equal to its registry).
  const patterns = jobFilePatterns(manifest);
  assert.deepEqual(patterns, ["*.pai.json", "*.paddle.json", "*.pai.yaml", "*.pai.yml"]);
  assert.deepEqual(documentSelector(patterns).map((s) => s.pattern).filter(Boolean),
    ["**/*.pai.json", "**/*.paddle.json", "**/*.pai.yaml", "**/*.pai.yml", "**/.vscode/settings.json"]);
  assert.deepEqual(documentSelector(patterns).map((s) => s.language).filter(Boolean), [...LANGUAGES, ...LANGUAGES]);
  for (const language of LANGUAGES) assert.ok(manifest.activationEvents.includes(`onLanguage:${language}`));
  assert.ok(isJobFile("/w/mnist.pai.json", patterns) && isJobFile("C:\\w\\train.paddle.json", patterns) && isJobFile("/w/A.PAI.JSON", patterns));
  assert.ok(isJobFile("/w/job.pai.yaml", patterns) && isJobFile("/w/job.pai.yml", patterns) && !isJobFile("/w/job.yaml", patterns));
  for (const name of ["/w/package.json", "/w/x.pai.json.bak", "/w/pai.json", "/w/xpai.json"]) assert.ok(!isJobFile(name, patterns), name);
});

test("Submit, Run Job Locally and Preview Upload are offered on the files of the job-file language", () => {
  const menus = manifest.contributes.menus;
  const entries = [...menus["explorer/context"], ...menus["editor/context"], ...menus["editor/title"], ...menus.commandPalette]
    .filter((entry) => entry.command.startsWith("pai-lsp.submitJob") || entry.command.startsWith("pai-lsp.runLocally")
      || entry.command === "pai-lsp.previewUpload");
  assert.ok(entries.length >= 8);
  for (const entry of entries) assert.equal(entry.when, "resourceLangId =~ /^pai-job(-yaml)?$/ && resourceScheme != untitled", entry.command);
});

test("a job's config is shown under the name of a job file of its cluster's kind", () => {
  const catalogue: Catalogue = {
    jobFiles: [],
    kinds: [{ name: "paddlecloud", title: "", jobFormat: "paddle", jobFiles: ["*.paddle.json"], storage: "PFS", storageRequired: false, local: null }],
  };
  assert.equal(jobFileName(catalogue, "paddlecloud", "fit-a-line-1a2b3c4d"), "fit-a-line-1a2b3c4d.paddle.json");
});

test("every %key% of the manifest has an English and a Chinese text", () => {
  const keys = [...JSON.stringify(manifest).matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
  for (const file of ["package.nls.json", "package.nls.zh-cn.json"]) {
    const texts = JSON.parse(readFileSync(join(__dirname, "..", "..", file), "utf8"));
    for (const key of keys) assert.ok(texts[key], `${file}: ${key}`);
  }
});

test("every vscode.l10n.t text of the sources has a Simplified Chinese translation", () => {
  const { readdirSync } = require("node:fs") as typeof import("node:fs");
  const src = join(__dirname, "..", "..", "src");
  const bundle = JSON.parse(readFileSync(join(__dirname, "..", "..", "l10n", "bundle.l10n.zh-cn.json"), "utf8"));
  const texts = readdirSync(src).filter((f) => f.endsWith(".ts"))
    .flatMap((f) => [...readFileSync(join(src, f), "utf8").matchAll(/l10n\.t\("((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`)));
  assert.ok(texts.length > 50);
  for (const text of texts) assert.ok(bundle[text], `no translation of ${JSON.stringify(text)}`);
});

test("a task's log accepts each byte once, whatever the chunks overlap", () => {
  const log = new TaskLog();
  assert.equal(log.accept(0, "héllo\n"), "héllo\n");
  assert.equal(log.accept(0, "héllo\n"), "");
  assert.equal(log.accept(3, "llo\nworld\n"), "world\n");
  assert.equal(log.have, Buffer.byteLength("héllo\nworld\n"));
});

test("logs of several tasks are joined by whole lines with their task prefix", () => {
  let out = "";
  const lines = new LineJoiner((t) => (out += t));
  lines.write("ps:0", "a\nb", true);
  lines.write("worker:0", "c\n", true);
  lines.write("ps:0", "c\n", true);
  lines.write("worker:0", "tail", true);
  lines.flush();
  assert.equal(out, "[ps:0] a\n[worker:0] c\n[ps:0] bc\n[worker:0] tail\n");
  assert.equal(duration(1000, 63000), "1m02s");
  assert.equal(duration(0, 5), "");
});

test("a job log's filter: roles and task indices pick tasks, the rest is a regular expression (plain text when not one)", () => {
  const filter = LogFilter.parse("role:worker task:1 loss=0\\.[23]");
  assert.deepEqual([filter.roles, filter.indices], [["worker"], [1]]);
  assert.ok(filter.wants("worker:1", "step 2 LOSS=0.2\n"));
  assert.ok(!filter.wants("worker:0", "step 2 loss=0.2\n") && !filter.wants("ps:1", "loss=0.2\n") && !filter.wants("worker:1", "loss=0.1\n"));
  assert.equal(filter.toString(), "role:worker task:1 loss=0\\.[23]");
  const plain = LogFilter.parse("f(x");
  assert.ok(plain.wants("a:0", "call f(x)") && !plain.wants("a:0", "fx"));
  assert.ok(LogFilter.parse("  ").empty && LogFilter.parse("").wants("any:3", "anything"));
});

test("a traceback frame in a log line names the workspace file it stands for", () => {
  const line = '[train:0]   File "/mnt/local/alice~job_1/pkg/ops.py", line 3, in <listcomp>';
  const [frame] = logFrames(line);
  assert.deepEqual({ ...frame, text: line.slice(frame.start, frame.end) },
    { start: 12, end: 60, path: "/mnt/local/alice~job_1/pkg/ops.py", line: 3, text: 'File "/mnt/local/alice~job_1/pkg/ops.py", line 3' });
  const files = new Set(["/ws/pkg/ops.py", "/ws/ops.py"]);
  assert.equal(workspaceFileOf(frame.path, ["/ws"], (f) => files.has(f)), "/ws/pkg/ops.py"); // the longest end first
  assert.equal(workspaceFileOf("/usr/lib/python3.11/json/decoder.py", ["/ws"], (f) => files.has(f)), undefined);
  assert.deepEqual(logFrames("no frame here"), []);
});

test("logs split into whole lines per task, the last unterminated one at the end", () => {
  const lines: string[] = [];
  const split = new LineSplitter((task, line) => lines.push(`${task}|${line}`));
  split.write("w:0", "a\nb");
  split.write("w:1", "x\n");
  split.write("w:0", "c\nlast words");
  split.flush();
  assert.deepEqual(lines, ["w:0|a\n", "w:1|x\n", "w:0|bc\n", "w:0|last words\n"]);
});

test("the HDFS and Storages views' menus: no write action on a read-only storage's rows, no rename or delete of a storage", () => {
  const entries: { command: string; when: string }[] = [...manifest.contributes.menus["view/item/context"]]
    .filter((e: { command: string }) => e.command.startsWith("pai-lsp.hdfs."));
  /** Whether the entry is offered on a row with this context value in both views. */
  const offered = (entry: { when: string }, context: string) => {
    const match = /viewItem =~ \/(.+?)\/(?: |$)/.exec(entry.when);
    assert.ok(match && entry.when.includes("view =~ /^pai\\.(hdfs|storages)$/"), entry.when);
    return new RegExp(match[1]).test(context);
  };
  const on = (command: string, context: string) => entries.filter((e) => e.command === command).some((e) => offered(e, context));
  const writes = ["uploadFile", "uploadFolder", "newFolder", "rename", "delete"];
  for (const kind of ["dir", "file", "root"] as const) {
    for (const w of writes) assert.equal(on(`pai-lsp.hdfs.${w}`, fileRowContext(kind, true)), false, `${w} on a read-only ${kind}`);
    for (const r of ["download", "copyPath"]) assert.ok(on(`pai-lsp.hdfs.${r}`, fileRowContext(kind, true)), `${r} on a read-only ${kind}`);
  }
  for (const w of ["uploadFile", "uploadFolder", "newFolder"]) {
    assert.ok(on(`pai-lsp.hdfs.${w}`, fileRowContext("dir", false)) && on(`pai-lsp.hdfs.${w}`, fileRowContext("root", false)), w);
    assert.equal(on(`pai-lsp.hdfs.${w}`, fileRowContext("file", false)), false, w);
  }
  for (const w of ["rename", "delete"]) {
    assert.ok(on(`pai-lsp.hdfs.${w}`, fileRowContext("dir", false)) && on(`pai-lsp.hdfs.${w}`, fileRowContext("file", false)), w);
    assert.equal(on(`pai-lsp.hdfs.${w}`, fileRowContext("root", false)), false, `${w} of a storage itself`);
  }
  assert.ok(on("pai-lsp.hdfs.refresh", fileRowContext("root", true)) && !on("pai-lsp.hdfs.refresh", fileRowContext("file", false)));
});
