/**
 * `report.html`: the run at a glance, viewable offline (no upstream equivalent; upstream leaves this to W&B).
 * Metric curves drawn with uPlot (inlined, so the file needs no network), the config, latest values and the newest
 * transcripts embedded in iframes.
 */

import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { DataError } from '@cookbook/core';
import { writeFileAtomic } from './atomic-write.js';
import { formatMetricValue } from './console-logger.js';
import { escapeHtml, jsonForScript } from './internal/html.js';
import { buildSeries, flattenConfig, type ReportChart } from './internal/report-data.js';
import { uplotAssets } from './internal/uplot-assets.js';
import { type MetricsRow, readMetrics, type SkippedLine } from './jsonl.js';
import { CONFIG_FILE, METRICS_FILE } from './metrics-logger.js';

/** File name of the report inside a log dir. */
export const REPORT_FILE = 'report.html';

/** A transcript to show in the report. */
export interface ReportTranscript {
  /** Path relative to the log dir (used for the link). */
  relPath: string;
  /** The HTML to embed, or undefined to link only. */
  html: string | undefined;
  /** Last modification time. */
  mtime: Date;
}

/** Everything a report is made of; {@link buildRunReport} turns it into HTML. */
export interface RunReportInput {
  title: string;
  rows: readonly MetricsRow[];
  config: unknown;
  /** Newest first; the first `embedCount` with `html` are embedded, all are linked. */
  transcripts: readonly ReportTranscript[];
  /** How many transcripts to embed. */
  embedCount: number;
  truncated?: SkippedLine | undefined;
  generatedAt?: Date;
}

/** Options of {@link writeRunReport}. */
export interface RunReportOptions {
  /** Report title. Default: the log dir's name. */
  title?: string;
  /** How many of the newest transcripts to embed. Default: 3. */
  maxTranscripts?: number;
  /** Transcripts larger than this many bytes are linked, not embedded. Default: 5 MB. */
  maxEmbedBytes?: number;
  /** Where to write. Default: `<logDir>/report.html`. */
  outPath?: string;
}

const PAGE_CSS = `
body { font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 1.5em auto; max-width: 1280px; padding: 0 1em; color: #1f2328; }
h1 { margin: 0 0 0.1em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #d0d7de; padding-bottom: 0.2em; }
.meta { color: #6e7781; font-size: 0.85em; }
.warn { background: #fff8c5; border: 1px solid #d4a72c; padding: 0.4em 0.7em; border-radius: 4px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(560px, 100%), 1fr)); gap: 1em; }
.chart { border: 1px solid #d0d7de; border-radius: 6px; padding: 0.5em; min-width: 0; }
.chart h3 { font-size: 0.95em; margin: 0 0 0.3em; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.controls { display: flex; flex-wrap: wrap; gap: 0.6em 1.4em; align-items: center; margin-bottom: 0.8em; font-size: 0.9em; }
#filter { padding: 0.3em 0.5em; width: 22em; max-width: 100%; }
.finals { font-size: 0.8em; color: #57606a; margin-bottom: 0.3em; }
.final { margin-right: 0.8em; white-space: nowrap; } .final .key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
details > summary { cursor: pointer; margin: 0.8em 0; font-weight: 600; }
@media (max-width: 640px) { .charts { grid-template-columns: 1fr; } table.kv th, table.kv td { padding: 0.2em 0.35em; overflow-wrap: anywhere; } }
@media print { .controls { display: none; } details > .charts { display: grid; } }
table.kv { border-collapse: collapse; font-size: 0.85em; display: block; max-width: 100%; overflow-x: auto; }
table.kv th, table.kv td { border: 1px solid #d0d7de; padding: 0.2em 0.6em; text-align: left; vertical-align: top; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table.kv th { background: #f6f8fa; font-weight: 600; }
table.kv td.num { text-align: right; white-space: nowrap; }
iframe.transcript { width: 100%; box-sizing: border-box; height: 600px; border: 1px solid #d0d7de; border-radius: 6px; resize: vertical; }
.empty { color: #6e7781; font-style: italic; }
h3 a { overflow-wrap: anywhere; }
`;

// Runs in the browser: draws one uPlot chart into each server-rendered chart box, with optional smoothing (EMA)
// and a log-scale y axis; legends show the last value when the cursor is not over a chart (static view, print).
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  var plots = [];
  var smoothEl = document.getElementById('smooth');
  var logEl = document.getElementById('logy');
  function fmt(v, digits) {
    if (v === null || v === undefined) return '--';
    var a = Math.abs(v);
    if (a === 0) return '0';
    if (a < 1e-3 || a >= 1e6) return v.toExponential(digits - 1).replace(/\\.?0+e/, 'e');
    return String(+v.toPrecision(digits));
  }
  function lastValue(ys) { for (var i = ys.length - 1; i >= 0; i--) if (ys[i] !== null) return ys[i]; return null; }
  function smooth(ys, w) {
    if (!(w > 0)) return ys;
    var out = [], acc = null;
    for (var i = 0; i < ys.length; i++) {
      var v = ys[i];
      if (v === null) { out.push(null); continue; }
      acc = acc === null ? v : w * acc + (1 - w) * v;
      out.push(acc);
    }
    return out;
  }
  function positive(ys) { return ys.map(function (v) { return v !== null && v > 0 ? v : null; }); }
  function yTicks(u, splits) { return splits.map(function (v) { return fmt(v, 4); }); }
  function xTicks(u, splits) { return splits.map(function (v) { return Number.isInteger(v) ? String(v) : ''; }); }
  function draw(chart, el, old) {
    if (old) old.destroy();
    el.innerHTML = '';
    var w = smoothEl ? Number(smoothEl.value) : 0;
    var logy = logEl ? logEl.checked : false;
    var series = [{ label: data.xLabel, value: function (u, v, si, idx) { var x = idx === null || idx === undefined ? lastValue(data.x) : v; return x === null || x === undefined ? '--' : String(x); } }];
    var columns = [data.x];
    chart.keys.forEach(function (key, i) {
      var raw = data.series[key];
      var ys = smooth(logy ? positive(raw) : raw, w);
      var n = 0;
      for (var j = 0; j < ys.length; j++) if (ys[j] !== null) n++;
      series.push({ label: key, stroke: palette[i % palette.length], width: 1.5, spanGaps: true, points: { show: n <= 60, size: 5 },
        value: function (u, v, si, idx) { return fmt(idx === null || idx === undefined ? lastValue(raw) : v, 6); } });
      columns.push(ys);
    });
    var width = Math.max(280, el.clientWidth || 560);
    return new uPlot({ width: width, height: 240, scales: { x: { time: false }, y: logy ? { distr: 3 } : {} }, series: series,
      axes: [{ label: data.xLabel, values: xTicks }, { label: chart.yLabel, size: 64, values: yTicks }],
      legend: { live: true } }, columns, el);
  }
  data.charts.forEach(function (chart, i) {
    var el = document.getElementById('plot-' + i);
    if (el) plots.push({ chart: chart, el: el, plot: draw(chart, el) });
  });
  function redraw() { plots.forEach(function (p) { p.plot = draw(p.chart, p.el, p.plot); }); }
  function resize() { plots.forEach(function (p) { if (p.el.clientWidth > 0) p.plot.setSize({ width: Math.max(280, p.el.clientWidth), height: 240 }); }); }
  if (smoothEl) smoothEl.addEventListener('input', function () {
    document.getElementById('smooth-value').textContent = Number(smoothEl.value).toFixed(2);
    redraw();
  });
  if (logEl) logEl.addEventListener('change', redraw);
  window.addEventListener('resize', resize);
  Array.prototype.forEach.call(document.querySelectorAll('details'), function (d) { d.addEventListener('toggle', resize); });
  var filter = document.getElementById('filter');
  if (filter) filter.addEventListener('input', function () {
    var q = filter.value.toLowerCase();
    Array.prototype.forEach.call(document.querySelectorAll('.chart'), function (el) {
      el.style.display = el.getAttribute('data-name').toLowerCase().indexOf(q) >= 0 ? '' : 'none';
    });
  });
})();
`;

function chartBox(chart: ReportChart, index: number): string {
  const finals = chart.keys
    .map(
      (k) =>
        `<span class="final"><span class="key">${escapeHtml(k)}</span> ${escapeHtml(formatMetricValue(chart.final[k] ?? null) || '–')}</span>`,
    )
    .join(' ');
  return `<div class="chart" data-name="${escapeHtml(`${chart.keys.join(' ')} ${chart.title}`)}"><h3>${escapeHtml(chart.title)}</h3><div class="finals">final: ${finals}</div><div class="plot" id="plot-${index}"></div></div>`;
}

function latestValues(rows: readonly MetricsRow[]): Array<[string, string, string]> {
  const last = new Map<string, [string, string]>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (key === 'step' || value === null) continue;
      last.set(key, [formatMetricValue(value), row.step === undefined ? '' : String(row.step)]);
    }
  }
  return [...last.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, [v, s]]) => [k, v, s]);
}

/** Renders the report document (pure: no file access except reading the bundled chart library). */
export function buildRunReport(input: RunReportInput): string {
  const data = buildSeries(input.rows);
  const { js, css } = uplotAssets();
  const generatedAt = input.generatedAt ?? new Date();
  const lastStep = data.xLabel === 'step' ? data.x[data.x.length - 1] : undefined;

  const configRows = input.config === undefined ? [] : flattenConfig(input.config);
  const configHtml =
    configRows.length === 0
      ? '<p class="empty">No config.json.</p>'
      : `<table class="kv"><tbody>${configRows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</tbody></table>`;

  const latest = latestValues(input.rows);
  const latestHtml =
    latest.length === 0
      ? '<p class="empty">No metrics yet.</p>'
      : `<details${latest.length <= 30 ? ' open' : ''}><summary>${latest.length} metrics</summary><table class="kv"><thead><tr><th>metric</th><th>last value</th><th>at step</th></tr></thead><tbody>${latest
          .map(
            ([k, v, s]) =>
              `<tr><th>${escapeHtml(k)}</th><td class="num">${escapeHtml(v)}</td><td class="num">${escapeHtml(s)}</td></tr>`,
          )
          .join('')}</tbody></table></details>`;

  const embedded = input.transcripts.filter((t) => t.html !== undefined).slice(0, input.embedCount);
  const link = (t: ReportTranscript) =>
    `<a href="${escapeHtml(t.relPath.split(sep).map(encodeURIComponent).join('/'))}">${escapeHtml(t.relPath)}</a>`;
  const transcriptsHtml =
    input.transcripts.length === 0
      ? '<p class="empty">No transcripts yet.</p>'
      : [
          ...embedded.map(
            (t) =>
              `<h3>${link(t)} <span class="meta">${escapeHtml(t.mtime.toISOString())}</span></h3><iframe class="transcript" sandbox title="${escapeHtml(t.relPath)}" srcdoc="${escapeHtml(t.html ?? '')}"></iframe>`,
          ),
          `<details><summary>All transcripts (${input.transcripts.length})</summary><ul>${input.transcripts
            .slice(0, 500)
            .map((t) => `<li>${link(t)} <span class="meta">${escapeHtml(t.mtime.toISOString())}</span></li>`)
            .join('')}</ul></details>`,
        ].join('\n');

  const warn = input.truncated
    ? `<p class="warn">metrics.jsonl ended in a truncated line (line ${input.truncated.line}, skipped).</p>`
    : '';
  const boxes = data.charts.map((c, i) => ({ c, html: chartBox(c, i) }));
  const headline = boxes.filter((b) => b.c.headline);
  const rest = boxes.filter((b) => !b.c.headline);
  const constantList = (keep: (key: string) => boolean) =>
    data.constants
      .filter(([k]) => keep(k))
      .map(([k, v]) => `<code>${escapeHtml(k)}</code> = ${escapeHtml(formatMetricValue(v))}`)
      .join(', ');
  const flatHeadline = new Set(data.headlineConstants);
  const headlineConstantsHtml =
    flatHeadline.size === 0
      ? ''
      : `<p class="warn">Flat at every step (not charted): ${constantList((k) => flatHeadline.has(k))}</p>`;
  const otherConstants = constantList((k) => !flatHeadline.has(k));
  const constantsHtml =
    otherConstants === '' ? '' : `<p class="meta">Constant over the run (not charted): ${otherConstants}</p>`;
  const chartsHtml =
    data.charts.length === 0 && data.constants.length === 0
      ? '<p class="empty">No numeric metrics yet.</p>'
      : [
          '<div class="controls"><input id="filter" type="search" placeholder="filter charts by metric name">',
          '<label>smoothing <input id="smooth" type="range" min="0" max="0.95" step="0.05" value="0"> <span id="smooth-value">0.00</span></label>',
          '<label><input id="logy" type="checkbox"> log y</label></div>',
          headlineConstantsHtml,
          headline.length > 0 ? `<div class="charts">${headline.map((b) => b.html).join('')}</div>` : '',
          rest.length > 0
            ? `<details${headline.length === 0 ? ' open' : ''}><summary>More metrics (${rest.length} charts)</summary><div class="charts">${rest.map((b) => b.html).join('')}</div></details>`
            : '',
          constantsHtml,
        ].join('\n');

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)} — report</title>
<style>${css}</style>
<style>${PAGE_CSS}</style>
</head>
<body>
<h1>${escapeHtml(input.title)}</h1>
<div class="meta">Generated ${escapeHtml(generatedAt.toISOString())} · ${input.rows.length} metric rows${lastStep === undefined ? '' : ` · last step ${lastStep}`}</div>
${warn}
<h2>Metrics</h2>
${chartsHtml}
<h2>Latest values</h2>
${latestHtml}
<h2>Transcripts</h2>
${transcriptsHtml}
<h2>Config</h2>
${configHtml}
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${js}</script>
<script>${data.charts.length === 0 ? '' : PAGE_SCRIPT}</script>
</body>
</html>
`;
}

async function listHtml(dir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listHtml(full)));
    else if (entry.isFile() && entry.name.endsWith('.html')) out.push(full);
  }
  return out;
}

/** Transcripts under `transcripts/` and `iteration_*` folders of a log dir, newest first. */
export async function findTranscripts(logDir: string): Promise<Array<{ path: string; mtime: Date; size: number }>> {
  const roots = [join(logDir, 'transcripts')];
  try {
    for (const entry of await readdir(logDir, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name.startsWith('iteration_')) roots.push(join(logDir, entry.name));
    }
  } catch {
    return [];
  }
  const files = (await Promise.all(roots.map(listHtml))).flat();
  const stats = await Promise.all(
    files.map(async (path) => {
      const s = await stat(path);
      return { path, mtime: s.mtime, size: s.size };
    }),
  );
  return stats.sort((a, b) => b.mtime.getTime() - a.mtime.getTime() || b.path.localeCompare(a.path));
}

/**
 * Builds `<logDir>/report.html` from `metrics.jsonl`, `config.json` and the newest transcripts, and writes it
 * atomically. Safe to call while the run is going (a truncated last metrics line is skipped). Returns the path.
 */
export async function writeRunReport(logDir: string, options: RunReportOptions = {}): Promise<string> {
  const maxTranscripts = options.maxTranscripts ?? 3;
  const maxEmbedBytes = options.maxEmbedBytes ?? 5_000_000;
  let rows: MetricsRow[] = [];
  let truncated: SkippedLine | undefined;
  try {
    ({ rows, truncated } = await readMetrics(join(logDir, METRICS_FILE)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  let config: unknown;
  const configPath = join(logDir, CONFIG_FILE);
  let configText: string | undefined;
  try {
    configText = await readFile(configPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (configText !== undefined) {
    try {
      config = JSON.parse(configText) as unknown;
    } catch (error) {
      throw new DataError('config.json is not valid JSON; rewrite it with logHparams(config)', {
        file: configPath,
        cause: error,
      });
    }
  }
  const found = await findTranscripts(logDir);
  const transcripts: ReportTranscript[] = await Promise.all(
    found.map(async (f, i) => ({
      relPath: relative(logDir, f.path),
      mtime: f.mtime,
      html: i < maxTranscripts && f.size <= maxEmbedBytes ? await readFile(f.path, 'utf8') : undefined,
    })),
  );
  const outPath = options.outPath ?? join(logDir, REPORT_FILE);
  const html = buildRunReport({
    title: options.title ?? (basename(logDir) || 'run'),
    rows,
    config,
    transcripts,
    embedCount: maxTranscripts,
    truncated,
  });
  await writeFileAtomic(outPath, html);
  return outPath;
}
