// A job's metrics history as inline SVG: one chart per figure (GPU utilisation, GPU memory, CPU,
// memory), one line per task (and GPU), drawn here so the webview needs no library, no CDN and no
// inline style (its CSP allows only its own nonce'd <style>). Pure: no `vscode`, tested with node alone.
import type { MetricSeries } from "./protocol";

/** The charts, in the order shown, with the series each draws. */
export const PANELS = ["gpu", "gpu_memory", "cpu", "memory"] as const;
export type Panel = (typeof PANELS)[number];

/** The words the charts say, in the editor's language (the caller translates them). */
export interface ChartTexts {
  titles: Record<Panel, string>;
  /** The line drawn where a chart has no series: e.g. "No GPU in this job's tasks." */
  noGpu: string;
}

export const PALETTE_SIZE = 8;
const WIDTH = 640;
const HEIGHT = 180;
const LEFT = 64;
const RIGHT = 12;
const TOP = 24;
const BOTTOM = 24;

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

export function bytes(value: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let n = value;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit++;
  }
  return `${n.toFixed(unit ? 1 : 0)} ${units[unit]}`;
}

/** A series' name in the legend: `train:0`, or `train:0 GPU1` for a GPU's. */
export function seriesName(s: Pick<MetricSeries, "role" | "index" | "minor">): string {
  return s.minor === null || s.minor === undefined ? `${s.role}:${s.index}` : `${s.role}:${s.index} GPU${s.minor}`;
}

function clock(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** The top of a chart's scale: percent charts at least 100 (CPU may pass it: 100 = one core), rounded up to a
 *  whole step; memory to the next power of two of MiB. */
export function scaleTop(panel: Panel, highest: number): number {
  if (panel === "memory") {
    let top = 1024 * 1024;
    while (top < highest) top *= 2;
    return top;
  }
  return Math.max(100, Math.ceil(highest / 100) * 100);
}

/** A series' points as polyline runs: broken where samples are missing (a gap of more than two steps). */
export function runs(points: number[][], step: number): number[][][] {
  const out: number[][][] = [];
  let run: number[][] = [];
  for (const point of [...points].sort((a, b) => a[0] - b[0])) {
    if (!Number.isFinite(point[1])) continue;
    if (run.length && point[0] - run[run.length - 1][0] > 2 * step) {
      out.push(run);
      run = [];
    }
    run.push(point);
  }
  if (run.length) out.push(run);
  return out;
}

/** One chart: its title, the axes with their first and last time and the scale's top, a line per series
 *  (a single sample shows as a dot), a legend. `colour` maps a series' legend name to its palette index, the
 *  same in every chart. */
export function chartSvg(panel: Panel, title: string, series: MetricSeries[], start: number, end: number, step: number,
                         colour: (name: string) => number): string {
  const highest = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p[1]).filter(Number.isFinite)));
  const top = scaleTop(panel, highest);
  const span = Math.max(end - start, 1);
  const x = (t: number) => LEFT + ((t - start) / span) * (WIDTH - LEFT - RIGHT);
  const y = (v: number) => TOP + (1 - Math.min(v, top) / top) * (HEIGHT - TOP - BOTTOM);
  const label = (v: number) => (panel === "memory" ? bytes(v) : `${Math.round(v)}%`);
  const parts: string[] = [
    `<text class="title" x="${LEFT}" y="16">${escapeXml(title)}</text>`,
    `<line class="axis" x1="${LEFT}" y1="${y(0)}" x2="${WIDTH - RIGHT}" y2="${y(0)}"/>`,
    `<line class="grid" x1="${LEFT}" y1="${y(top)}" x2="${WIDTH - RIGHT}" y2="${y(top)}"/>`,
    `<line class="grid" x1="${LEFT}" y1="${y(top / 2)}" x2="${WIDTH - RIGHT}" y2="${y(top / 2)}"/>`,
    `<text class="tick" x="${LEFT - 6}" y="${y(top) + 4}" text-anchor="end">${label(top)}</text>`,
    `<text class="tick" x="${LEFT - 6}" y="${y(top / 2) + 4}" text-anchor="end">${label(top / 2)}</text>`,
    `<text class="tick" x="${LEFT - 6}" y="${y(0) + 4}" text-anchor="end">${label(0)}</text>`,
    `<text class="tick" x="${LEFT}" y="${HEIGHT - 6}">${clock(start)}</text>`,
    `<text class="tick" x="${WIDTH - RIGHT}" y="${HEIGHT - 6}" text-anchor="end">${clock(end)}</text>`,
  ];
  for (const s of series) {
    const name = seriesName(s);
    const cls = `s${colour(name) % PALETTE_SIZE}`;
    const shapes = runs(s.points, step).map((run) => run.length === 1
      ? `<circle class="${cls}" cx="${x(run[0][0]).toFixed(1)}" cy="${y(run[0][1]).toFixed(1)}" r="2.5"/>`
      : `<polyline class="${cls}" points="${run.map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(" ")}"/>`);
    const last = s.points.length ? s.points[s.points.length - 1][1] : undefined;
    parts.push(`<g class="series" data-series="${escapeXml(name)}"><title>${escapeXml(name)}${
      last === undefined ? "" : `: ${escapeXml(label(last))}`}</title>${shapes.join("")}</g>`);
  }
  return `<svg class="chart" data-panel="${panel}" role="img" aria-label="${escapeXml(title)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" `
    + `width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}</svg>`;
}

/** Every chart of a job's history, with one legend for all: the charts with no series say so in a line
 *  (a CPU-only job's GPU charts), never as an empty frame. */
export function chartsHtml(series: MetricSeries[], start: number, end: number, step: number, texts: ChartTexts): string {
  const names = [...new Set(series.map((s) => `${s.role}:${s.index}`))].sort();
  const colour = (name: string) => Math.max(0, names.indexOf(name.split(" ")[0]));
  const shown: string[] = [];
  const drawn = (panel: Panel) => series.filter((s) => s.metric === panel && s.points.length);
  if (!drawn("gpu").length && !drawn("gpu_memory").length) shown.push(`<p class="note">${escapeXml(texts.noGpu)}</p>`);
  for (const panel of PANELS) {
    const mine = drawn(panel);
    if (mine.length) shown.push(chartSvg(panel, texts.titles[panel], mine, start, end, step, colour));
  }
  const legend = names.map((name) => `<span class="key"><svg width="14" height="4"><line class="s${colour(name) % PALETTE_SIZE}" `
    + `x1="0" y1="2" x2="14" y2="2"/></svg>${escapeXml(name)}</span>`).join("");
  return `<div class="legend">${legend}</div>${shown.join("")}`;
}
