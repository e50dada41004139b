/**
 * Metric loggers and `setupLogging` (upstream `utils/ml_log.py`: JsonLogger, PrettyPrintLogger, WandbLogger behind a
 * MultiplexLogger). Differences: no Neptune/Trackio sinks, and the W&B sink speaks HTTP itself instead of using a
 * client library; it never throws into training.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from './atomic-write.js';
import { ConsoleLogger, type TextSink } from './console-logger.js';
import { toJsonValue } from './internal/to-json.js';
import { appendJsonLine, repairTruncatedTail } from './jsonl.js';
import { WandbLogger } from './wandb-logger.js';

/** A metric value: a number, or a short string (e.g. a checkpoint name). */
export type MetricValue = number | string;

/** A sink for hyperparameters and per-step metrics. */
export interface MetricsLogger {
  /** Records the resolved config of the run (once, at start). */
  logHparams(config: unknown): void;
  /** Records the metrics of one step; `step` is omitted from the record when undefined. */
  logMetrics(metrics: Record<string, MetricValue>, step?: number): void;
  /** Flushes and releases the sink. Never rejects for a remote sink's failure. */
  close(): Promise<void>;
}

/** File name of the resolved config inside a log dir. */
export const CONFIG_FILE = 'config.json';
/** File name of the metrics log inside a log dir. */
export const METRICS_FILE = 'metrics.jsonl';

/** Metrics with non-finite numbers written as strings (`"NaN"`, `"Infinity"`) so the JSON line stays valid. */
function toRecord(metrics: Record<string, MetricValue>, step: number | undefined): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = step === undefined ? {} : { step };
  for (const [key, value] of Object.entries(metrics)) {
    out[key] = typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
  }
  return out;
}

/**
 * Writes `config.json` (atomically: temp file + rename) and appends `{"step": n, ...metrics}` lines to
 * `metrics.jsonl`, one complete line per write. On open, a half-written last line left by a killed process is cut
 * off so new lines never glue onto it.
 */
export class JsonLogger implements MetricsLogger {
  /** The log directory. */
  readonly logDir: string;
  /** Path of `metrics.jsonl`. */
  readonly metricsPath: string;

  constructor(logDir: string, options: { warn?: TextSink } = {}) {
    this.logDir = logDir;
    this.metricsPath = join(logDir, METRICS_FILE);
    mkdirSync(logDir, { recursive: true });
    const removed = repairTruncatedTail(this.metricsPath);
    if (removed !== undefined) {
      (options.warn ?? process.stderr).write(
        `warning: ${this.metricsPath} ended in a truncated line (${JSON.stringify(removed.slice(0, 80))}); removed it before appending\n`,
      );
    }
  }

  logHparams(config: unknown): void {
    writeFileAtomicSync(join(this.logDir, CONFIG_FILE), `${JSON.stringify(toJsonValue(config), null, 2)}\n`);
  }

  logMetrics(metrics: Record<string, MetricValue>, step?: number): void {
    appendJsonLine(this.metricsPath, toRecord(metrics, step));
  }

  async close(): Promise<void> {}
}

/** Sends every call to each of its loggers, in order. */
export class MultiplexLogger implements MetricsLogger {
  /** The sinks, in call order. */
  readonly loggers: readonly MetricsLogger[];

  constructor(loggers: readonly MetricsLogger[]) {
    this.loggers = loggers;
  }

  logHparams(config: unknown): void {
    for (const logger of this.loggers) logger.logHparams(config);
  }

  logMetrics(metrics: Record<string, MetricValue>, step?: number): void {
    for (const logger of this.loggers) logger.logMetrics(metrics, step);
  }

  async close(): Promise<void> {
    await Promise.all(this.loggers.map((logger) => logger.close()));
  }
}

/** Options of {@link setupLogging}. */
export interface SetupLoggingOptions {
  /** Folder of the run: `config.json`, `metrics.jsonl`, transcripts and `report.html` go here. Created if missing. */
  logDir: string;
  /** W&B project; the W&B sink is on when this is set and `WANDB_API_KEY` is in the environment. Default: off. */
  wandbProject?: string;
  /** W&B run display name. Default: the name of `logDir`. */
  wandbName?: string;
  /** Resolved config; when given it is logged right away (`config.json`, W&B run config). */
  config?: unknown;
  /** Console table per step: `true` = stdout (default), `false` = none, or a stream. */
  console?: boolean | TextSink;
  /** Where warnings go (e.g. "W&B unreachable"). Default: `process.stderr`. */
  warn?: TextSink;
  /** Environment to read `WANDB_API_KEY`, `WANDB_BASE_URL`, `WANDB_ENTITY` from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * Sets up the loggers of a run: JSON files always, a console table unless `console: false`, and W&B when
 * `wandbProject` and `WANDB_API_KEY` are set. Call `close()` at the end of the run (it waits for W&B to drain).
 */
export function setupLogging(options: SetupLoggingOptions): MultiplexLogger {
  const env = options.env ?? process.env;
  const warn = options.warn ?? process.stderr;
  const loggers: MetricsLogger[] = [new JsonLogger(options.logDir, { warn })];
  if (options.console !== false) {
    loggers.push(
      new ConsoleLogger({
        stream: options.console === true || options.console === undefined ? process.stdout : options.console,
      }),
    );
  }
  if (options.wandbProject !== undefined) {
    const apiKey = env.WANDB_API_KEY;
    if (apiKey) {
      loggers.push(
        new WandbLogger({
          project: options.wandbProject,
          name: options.wandbName ?? (options.logDir.split(/[\\/]/).filter(Boolean).pop() || undefined),
          apiKey,
          baseUrl: env.WANDB_BASE_URL,
          entity: env.WANDB_ENTITY,
          warn,
        }),
      );
    } else {
      warn.write(`warning: wandbProject is set but WANDB_API_KEY is not; not logging to Weights & Biases\n`);
    }
  }
  const logger = new MultiplexLogger(loggers);
  if (options.config !== undefined) logger.logHparams(options.config);
  return logger;
}
