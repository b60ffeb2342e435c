import { test } from "node:test";
import * as assert from "node:assert/strict";
import { serverCommand, commandArguments, documentSelector } from "../config";

test("the server command defaults to pai-lsp and keeps configured arguments", () => {
  assert.deepEqual(serverCommand(undefined), ["pai-lsp"]);
  assert.deepEqual(serverCommand(["", " "]), ["pai-lsp"]);
  assert.deepEqual(serverCommand(["python", "-m", "pai_lsp", "lsp"]), ["python", "-m", "pai_lsp", "lsp"]);
});

test("commands pass the file they were invoked on", () => {
  assert.deepEqual(commandArguments("file:///w/job.pai.json"), ["file:///w/job.pai.json"]);
  assert.deepEqual(commandArguments(undefined), []);
});

test("only *.pai.json files on disk are served", () => {
  assert.equal(documentSelector[0].pattern, "**/*.pai.json");
});
