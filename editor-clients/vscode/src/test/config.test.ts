import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configuredServerCommand, clientCommandFor, CLIENT_PREFIX, documentSelector, isJobConfig } from "../config";

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

test("only *.pai.json files on disk are served", () => {
  assert.equal(documentSelector[0].pattern, "**/*.pai.json");
  assert.ok(isJobConfig("/w/mnist.pai.json"));
  assert.ok(!isJobConfig("/w/package.json"));
});

test("every %key% of the manifest has an English and a Chinese text", () => {
  const keys = [...JSON.stringify(manifest).matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
  for (const file of ["package.nls.json", "package.nls.zh-cn.json"]) {
    const texts = JSON.parse(readFileSync(join(__dirname, "..", "..", file), "utf8"));
    for (const key of keys) assert.ok(texts[key], `${file}: ${key}`);
  }
});
