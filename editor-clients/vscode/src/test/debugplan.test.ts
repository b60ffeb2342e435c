import { test } from "node:test";
import * as assert from "node:assert/strict";
import { outcome, Target, toAttach } from "../debugplan";

const task = (name: string, state: string): Target => ({ task: name, state });
const among = (names: string[]) => (t: Target) => names.includes(t.task);

test("Debug Job waits while the job has not started, then attaches each task as it listens", () => {
  assert.equal(outcome([], among([]), "WAITING", true), "wait");
  const first = [task("train:0", "listening"), task("train:1", "waiting")];
  assert.deepEqual(toAttach(first, among([])).map((t) => t.task), ["train:0"]);
  assert.equal(outcome(first, among(["train:0"]), "RUNNING", true), "wait"); // train:1 still to come
  const both = [task("train:0", "listening"), task("train:1", "listening")];
  assert.deepEqual(toAttach(both, among(["train:0"])).map((t) => t.task), ["train:1"]); // one session per task
  assert.equal(outcome(both, among(["train:0", "train:1"]), "RUNNING", true), "done");
});

test("a job that ends before anything listens: said, unless it succeeded under post-mortem", () => {
  const ended = [task("train:0", "ended")];
  assert.equal(outcome(ended, among([]), "FAILED", true), "none");
  assert.equal(outcome(ended, among([]), "SUCCEEDED", true), "quiet");
  assert.equal(outcome([], among([]), "STOPPED", true), "none");
});

test("Attach Debugger attaches what listens now and never waits", () => {
  assert.equal(outcome([task("train:0", "waiting")], among([]), "RUNNING", false), "none");
  assert.equal(outcome([task("train:0", "listening")], among(["train:0"]), "RUNNING", false), "done");
  assert.deepEqual(toAttach([task("train:0", "listening")], among(["train:0"])), []); // attached already: no second session
});
