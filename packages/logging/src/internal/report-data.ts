import { isHiddenMetricKey } from '../console-logger.js';
import type { MetricsRow } from '../jsonl.js';

/** One chart of the report. */
export interface ReportChart {
  title: string;
  /** The metrics drawn on it. */
  keys: string[];
  /** Shown first, in the headline section (loss / NLL, reward, accuracy, KL, return, …). */
  headline: boolean;
  /** Title of the y axis: the quantity and its unit. */
  yLabel: string;
  /** Last logged value per key (what a static or printed view shows in the legend). */
  final: Record<string, number | null>;
}

/** Chart payload embedded in report.html. */
export interface ReportSeriesData {
  /** Label of the x axis ("step", or "row" when no row has a step). */
  xLabel: string;
  /** Sorted x values. */
  x: number[];
  /** Per charted metric, its value at each x (null where not logged). */
  series: Record<string, Array<number | null>>;
  /** Charts in display order: headline charts first, then the rest by rank. */
  charts: ReportChart[];
  /** Metrics left out of the charts because their value never changed, with that value. */
  constants: Array<[string, number]>;
  /** The headline metrics among {@link constants} (a flat reward is news: the report says so first). */
  headlineConstants: string[];
}

const SPLIT_WORDS = new Set(['train', 'test', 'eval', 'val', 'valid', 'validation']);

/**
 * The chart a metric goes on: `time/*` together; otherwise the name without split words, so `train/loss`,
 * `test/loss` and `eval_loss` share a chart, as do `env/all/reward` and `test/env/all/reward`.
 */
export function chartGroupOf(key: string): string {
  if (key.startsWith('time/')) return 'time';
  const parts = key.split('/').filter((p) => !SPLIT_WORDS.has(p.toLowerCase()));
  if (parts.length > 0) {
    // `train_mean_nll` and `test/nll` are the same quantity on two splits: strip the split and a `mean_` prefix.
    parts[0] = (parts[0] ?? '').replace(/^(train|test|eval|val|valid|validation)[_-]/i, '').replace(/^mean_/, '');
  }
  const group = parts.filter((p) => p !== '').join('/');
  return group === '' ? key : group;
}

/** Display order: the quantities a reader looks for first (loss, reward, KL), then the rest, schedule, timings. */
function chartRank(title: string): number {
  if (title === 'time') return 3;
  if (/^num_|_count$|\/count$/.test(title)) return 1; // counts such as num_loss_tokens are not the loss
  if (/nll|loss|reward|accuracy|correct|kl|bpb|return|win|score|pass@/i.test(title)) return 0;
  if (/^(learning_rate|progress|epoch)$/.test(title)) return 2;
  return 1;
}

/** Whether a metric is one a reader looks for first (loss / NLL, reward, accuracy, KL, return, score, pass@k). */
export function isHeadlineMetric(key: string): boolean {
  // `loss:sum` and friends are reductions of a headline metric, not one.
  return !key.includes(':') && chartRank(chartGroupOf(key)) === 0;
}

/** Bookkeeping that a chart would only repeat: the step itself, the run's progress fraction. */
function isBookkeeping(key: string): boolean {
  return key === 'progress' || key === 'step' || key.startsWith('step:');
}

/** Characters of a y-axis title that fit along a 240 px chart. */
const MAX_Y_LABEL = 24;

/** The y-axis title of a chart: the quantity and, where the name says it, its unit. */
export function yAxisLabel(title: string): string {
  if (title === 'time' || title.startsWith('time/')) return 'seconds';
  const unit = /nll|entropy/i.test(title)
    ? 'nats/token'
    : /bpb|bits_per_byte/i.test(title)
      ? 'bits/byte'
      : /tokens/i.test(title)
        ? 'tokens'
        : /^(accuracy|correct|frac_|win_rate)|\/(accuracy|correct|frac_[a-z_]+|win_rate)$/.test(title)
          ? 'fraction'
          : undefined;
  const full = unit === undefined ? title : `${title} (${unit})`;
  if (full.length <= MAX_Y_LABEL) return full;
  // A longer label is cut off along the axis (seen in Chromium at 1280 px); the chart's title names the metric.
  if (unit !== undefined) return unit;
  const last = title.slice(title.lastIndexOf('/') + 1);
  return last.length <= MAX_Y_LABEL ? last : `${last.slice(0, MAX_Y_LABEL - 1)}…`;
}

/** Merges rows by step (later values win) and builds one series per numeric metric and the chart grouping. */
export function buildSeries(rows: readonly MetricsRow[]): ReportSeriesData {
  const hasStep = rows.some((r) => typeof r.step === 'number');
  const byX = new Map<number, Map<string, number>>();
  const keyOrder: string[] = [];
  const seenKeys = new Set<string>();
  let lastX = 0;
  rows.forEach((row, i) => {
    const x = hasStep ? (typeof row.step === 'number' ? row.step : lastX) : i;
    lastX = x;
    let point = byX.get(x);
    if (!point) {
      point = new Map();
      byX.set(x, point);
    }
    for (const [key, value] of Object.entries(row)) {
      if (key === 'step' || typeof value !== 'number' || !Number.isFinite(value) || isHiddenMetricKey(key)) continue;
      point.set(key, value);
      if (!seenKeys.has(key)) {
        seenKeys.add(key);
        keyOrder.push(key);
      }
    }
  });
  const x = [...byX.keys()].sort((a, b) => a - b);
  const all: Record<string, Array<number | null>> = {};
  for (const key of keyOrder) all[key] = x.map((xv) => byX.get(xv)?.get(key) ?? null);
  const same = (a: ReadonlyArray<number | null>, b: ReadonlyArray<number | null>) =>
    a.every((v, i) => v === null || b[i] === null || v === b[i]);
  const constants: Array<[string, number]> = [];
  const charted: string[] = [];
  for (const key of keyOrder) {
    if (isBookkeeping(key)) continue;
    const values = (all[key] ?? []).filter((v): v is number => v !== null);
    // `learning_rate:mean` beside `learning_rate` with the same values is one series drawn twice.
    const base = key.replace(/:mean$/, '');
    if (base !== key && all[base] !== undefined && same(all[key] ?? [], all[base] ?? [])) continue;
    if (values.length > 1 && values.every((v) => v === values[0])) {
      constants.push([key, values[0]!]);
      continue;
    }
    charted.push(key);
  }
  const series: Record<string, Array<number | null>> = {};
  for (const key of charted) series[key] = all[key] ?? [];
  const groups = new Map<string, string[]>();
  for (const key of charted) {
    const g = chartGroupOf(key);
    const list = groups.get(g);
    if (list) list.push(key);
    else groups.set(g, [key]);
  }
  const lastOf = (ys: ReadonlyArray<number | null>) => {
    for (let i = ys.length - 1; i >= 0; i--) if (ys[i] !== null) return ys[i] ?? null;
    return null;
  };
  const charts: ReportChart[] = [...groups.entries()]
    .map(([group, keys]) => ({ group, title: keys.length === 1 ? (keys[0] ?? group) : group, keys }))
    .sort((a, b) => chartRank(a.group) - chartRank(b.group))
    .map(({ group, title, keys }) => ({
      title,
      keys,
      headline: chartRank(group) === 0,
      yLabel: yAxisLabel(group === 'time' ? 'time' : title),
      final: Object.fromEntries(keys.map((k) => [k, lastOf(series[k] ?? [])])),
    }));
  const headlineConstants = constants.map(([k]) => k).filter((k) => chartRank(chartGroupOf(k)) === 0);
  return { xLabel: hasStep ? 'step' : 'row', x, series, charts, constants, headlineConstants };
}

/** Flattens a nested config into dotted keys (arrays and leaves as JSON text). */
export function flattenConfig(value: unknown, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.push([prefix, '{}']);
    for (const [k, v] of entries) flattenConfig(v, prefix ? `${prefix}.${k}` : k, out);
    return out;
  }
  out.push([prefix || '(value)', typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined')]);
  return out;
}
