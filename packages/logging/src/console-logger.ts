/**
 * Console sink (upstream `ml_log.PrettyPrintLogger`, a Rich table per step). Difference: plain box-drawing text,
 * written to an injectable stream, so tests and non-terminal logs see exactly the same table.
 */
import type { MetricsLogger, MetricValue } from './metrics-logger.js';

/** Where text goes: `process.stdout`, `process.stderr` or anything with `write` (tests pass a collector). */
export interface TextSink {
  write(text: string): unknown;
  /** True when the sink is an interactive terminal (enables redrawing progress bars). */
  isTTY?: boolean;
  /** Terminal width in columns, when known. */
  columns?: number;
}

/** Keys ending in these suffixes are aggregation bookkeeping and are not shown on the console. */
const HIDDEN_SUFFIXES = [':total', ':count'];

/** Whether a metric key is hidden from the console table (`…:total`, `…:count`). */
export function isHiddenMetricKey(key: string): boolean {
  return HIDDEN_SUFFIXES.some((suffix) => key.endsWith(suffix));
}

/**
 * Formats one metric value for display. Integers print as they are; other numbers with 6 decimals
 * (`0.123457`), switching to 6 significant digits in exponent form when that would hide them
 * (|x| < 1e-4, e.g. a learning rate `2.00000e-5`) or be unwieldy (|x| ≥ 1e9).
 */
export function formatMetricValue(value: MetricValue | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs < 1e-4 || abs >= 1e9) return value.toExponential(5);
  return value.toFixed(6);
}

/**
 * Renders the console table for one step: a title line ("Step N", or "Metrics" without a step), then a two-column
 * box of metric/value rows sorted by key, hiding `:total`/`:count` keys. Ends with a newline.
 */
export function formatMetricsTable(metrics: Record<string, MetricValue>, step?: number): string {
  const rows = Object.keys(metrics)
    .filter((key) => !isHiddenMetricKey(key))
    .sort()
    .map((key) => [key, formatMetricValue(metrics[key])] as const);
  const title = step === undefined ? 'Metrics' : `Step ${step}`;
  const w0 = Math.max('metric'.length, ...rows.map(([k]) => k.length));
  const w1 = Math.max('value'.length, ...rows.map(([, v]) => v.length));
  const line = (l: string, m: string, r: string) => `${l}${'─'.repeat(w0 + 2)}${m}${'─'.repeat(w1 + 2)}${r}`;
  const row = (a: string, b: string, alignRight: boolean) =>
    `│ ${a.padEnd(w0)} │ ${alignRight ? b.padStart(w1) : b.padEnd(w1)} │`;
  const width = w0 + w1 + 7;
  const pad = Math.max(0, Math.floor((width - title.length) / 2));
  const out = [
    ' '.repeat(pad) + title,
    line('┌', '┬', '┐'),
    row('metric', 'value', false),
    line('├', '┼', '┤'),
    ...rows.map(([k, v]) => row(k, v, true)),
    line('└', '┴', '┘'),
  ];
  return `${out.join('\n')}\n`;
}

/** Options of {@link ConsoleLogger}. */
export interface ConsoleLoggerOptions {
  /** Where tables go. Default: `process.stdout`. */
  stream?: TextSink;
}

/** Prints a metrics table per `logMetrics` call; `logHparams` prints nothing (the config is in config.json). */
export class ConsoleLogger implements MetricsLogger {
  readonly #stream: TextSink;

  constructor(options: ConsoleLoggerOptions = {}) {
    this.#stream = options.stream ?? process.stdout;
  }

  logHparams(_config: unknown): void {}

  logMetrics(metrics: Record<string, MetricValue>, step?: number): void {
    this.#stream.write(formatMetricsTable(metrics, step));
  }

  async close(): Promise<void> {}
}
