import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configuredServerCommand, clientCommandFor, CLIENT_PREFIX, documentSelector, duration, isJobConfig, LineJoiner, TaskLog } from "../config";

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
  assert.equal(clientCommandFor("pai.hdfs.ls"), undefined);
});

test("only job configs (*.pai.json, PaddlePaddle Cloud *.paddle.json) and .vscode/settings.json on disk are served", () => {
  assert.deepEqual(documentSelector.map((s) => s.pattern).filter(Boolean), ["**/*.pai.json", "**/*.paddle.json", "**/.vscode/settings.json"]);
  assert.deepEqual(manifest.contributes.languages[0].filenamePatterns, ["*.pai.json", "*.paddle.json"]);
  assert.ok(manifest.activationEvents.includes("onLanguage:pai-job"));
  assert.ok(isJobConfig("/w/mnist.pai.json") && isJobConfig("/w/train.paddle.json"));
  assert.ok(!isJobConfig("/w/package.json"));
});

test("Submit, Run Job Locally and Preview Upload are offered on exactly the files the server serves", () => {
  const menus = manifest.contributes.menus;
  const entries = [...menus["explorer/context"], ...menus["editor/context"], ...menus["editor/title"]]
    .filter((entry) => !entry.when.startsWith("resourceScheme == pai-preview")); // the preview's own Refresh
  assert.ok(entries.length >= 5);
  for (const entry of entries) {
    const regex = /resourceFilename =~ \/(.*)\/$/.exec(entry.when)?.[1];
    assert.ok(regex, entry.when);
    const matches = new RegExp(regex);
    for (const name of ["mnist.pai.json", "train.paddle.json", "package.json", "x.pai.json.bak"]) {
      assert.equal(matches.test(name), isJobConfig(name), `${entry.command} on ${name}: ${entry.when}`);
    }
  }
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
