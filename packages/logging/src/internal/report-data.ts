import { isHiddenMetricKey } from '../console-logger.js';
import type { MetricsRow } from '../jsonl.js';

/** Chart payload embedded in report.html. */
export interface ReportSeriesData {
  /** Label of the x axis ("step", or "row" when no row has a step). */
  xLabel: string;
  /** Sorted x values. */
  x: number[];
  /** Per numeric metric, its value at each x (null where not logged). */
  series: Record<string, Array<number | null>>;
  /** Charts in display order: a title and the metrics drawn on it. */
  charts: Array<{ title: string; keys: string[] }>;
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
  if (/^num_/.test(title)) return 1; // counts such as num_loss_tokens are not the loss
  if (/nll|loss|reward|accuracy|correct|kl|bpb/i.test(title)) return 0;
  if (/^(learning_rate|progress|epoch)$/.test(title)) return 2;
  return 1;
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
  const series: Record<string, Array<number | null>> = {};
  for (const key of keyOrder) series[key] = x.map((xv) => byX.get(xv)?.get(key) ?? null);
  const groups = new Map<string, string[]>();
  for (const key of keyOrder) {
    const g = chartGroupOf(key);
    const list = groups.get(g);
    if (list) list.push(key);
    else groups.set(g, [key]);
  }
  const charts = [...groups.entries()]
    .map(([group, keys]) => ({ group, title: keys.length === 1 ? (keys[0] ?? group) : group, keys }))
    .sort((a, b) => chartRank(a.group) - chartRank(b.group))
    .map(({ title, keys }) => ({ title, keys }));
  return { xLabel: hasStep ? 'step' : 'row', x, series, charts };
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
