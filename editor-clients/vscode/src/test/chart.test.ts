import { test } from "node:test";
import * as assert from "node:assert/strict";
import { chartsHtml, runs, scaleTop, seriesName } from "../chart";
import type { MetricSeries } from "../protocol";

const TEXTS = {
  titles: { gpu: "GPU utilisation", gpu_memory: "GPU memory", cpu: "CPU", memory: "Memory" },
  noGpu: "No GPU in this job's tasks.",
};

function series(role: string, index: number, metric: string, points: number[][], minor: string | null = null): MetricSeries {
  return { role, index, metric, minor, points };
}

test("a CPU-only job: a CPU and a memory chart with a line per task, and one line instead of the GPU charts", () => {
  const html = chartsHtml([
    series("train", 0, "cpu", [[100, 90], [110, 99], [120, 98]]),
    series("train", 1, "cpu", [[100, 1], [110, 2]]),
    series("train", 0, "memory", [[100, 300 * 2 ** 20], [110, 310 * 2 ** 20]]),
  ], 100, 120, 10, TEXTS);
  assert.equal((html.match(/<svg class="chart"/g) ?? []).length, 2);
  assert.match(html, /data-panel="cpu"/);
  assert.match(html, /data-panel="memory"/);
  assert.equal((html.match(/No GPU in this job&#39;s tasks\./g) ?? []).length, 1);
  assert.equal((html.match(/<polyline/g) ?? []).length, 3);
  assert.match(html, /<span class="key">.*train:0<\/span><span class="key">.*train:1<\/span>/);
  assert.match(html, /512\.0 MiB/); // memory's scale: the next power of two above 310 MiB
});

test("a GPU job draws a line per GPU, named by its minor number", () => {
  const html = chartsHtml([series("worker", 0, "gpu", [[0, 50], [10, 60]], "1")], 0, 10, 10, TEXTS);
  assert.match(html, /data-series="worker:0 GPU1"/);
  assert.doesNotMatch(html, /No GPU/);
  assert.equal(seriesName({ role: "w", index: 2, minor: null }), "w:2");
});

test("missing samples break a line; a lone sample is a dot", () => {
  assert.deepEqual(runs([[0, 1], [10, 2], [50, 3]], 10), [[[0, 1], [10, 2]], [[50, 3]]]);
  const html = chartsHtml([series("a", 0, "cpu", [[0, 5]])], 0, 10, 10, TEXTS);
  assert.match(html, /<circle /);
});

test("percent scales start at 100 and grow by whole hundreds; names are escaped", () => {
  assert.equal(scaleTop("cpu", 12), 100);
  assert.equal(scaleTop("cpu", 250), 300);
  const html = chartsHtml([series("<b>", 0, "cpu", [[0, 5], [1, 6]])], 0, 1, 1, TEXTS);
  assert.doesNotMatch(html, /<b>/);
  assert.match(html, /&lt;b&gt;:0/);
});
