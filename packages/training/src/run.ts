/**
 * The run lifecycle every loop shares (SFT, RL, DPO, distillation, GEM, eval): the log-dir policy, the resume point
 * from `checkpoints.jsonl`, truncation of `metrics.jsonl` past it, the loggers (console, JSONL, W&B) and
 * `config.json`, SIGINT handling, and closing everything — loggers, report, the service client the loop opened — on
 * success, error and interruption. Upstream spreads this over `cli_utils.check_log_dir`, `ml_log.setup_logging` and
 * each `train.main`; here a loop writes only its steps:
 *
 * ```ts
 * return runLoop({ ...config, config: configToKeyStyle(Schema, config, { keyStyle: 'snake_case' }) }, async (run) => {
 *   const service = run.own(deps.serviceClient ?? serviceClientFor(config));   // closed at the end
 *   for (let step = run.startStep; step < total && !run.signal.aborted; step++) { … run.logger.logMetrics(m, step) }
 *   return { totalSteps: total, endStep: step, finalCheckpoint };
 * });
 * ```
 *
 * Invariants: a run that fails before it logged a metric or a checkpoint leaves no trace in a log dir it created
 * (no stray `config.json` to meet the next run's log-dir prompt); anything a run wrote after that stays. A log dir
 * belongs to one live run at a time (`.run.lock`, with its pid): a second run on it refuses, naming the first.
 *
 * The pieces, one file each: the log-dir policy and the run lock (`run-log-dir.ts`), the loggers and the progress
 * line (`run-display.ts`), SIGINT/SIGTERM (`run-signals.ts`) and the close (`run-close.ts`).
 */
import { Tracer, withTracer } from '@cookbook/core';
import {
  appendTimingSpans,
  type CheckLogDirOptions,
  type CheckpointRecord,
  LOG_DIR_BEHAVIORS,
  type MetricsLogger,
  type TextSink,
} from '@cookbook/logging';
import { z } from 'zod';
import { closeRun, type OpenRun } from './run-close.js';
import { RunDisplay } from './run-display.js';
import { claimLogDir, decideLogDir } from './run-log-dir.js';
import { listenForInterrupts } from './run-signals.js';

export { RUN_LOCK_FILE, resumeStepOf } from './run-log-dir.js';

/**
 * The config fields every loop has, described and defaulted once. Spread them into a loop's schema:
 * `z.object({ ...runConfigShape, learningRate: … })`.
 */
export const runConfigShape = {
  logPath: z
    .string()
    .min(1)
    .describe('Run folder: config.json, metrics.jsonl, checkpoints.jsonl, transcripts/ and report.html go here'),
  behaviorIfLogDirExists: z
    .enum(LOG_DIR_BEHAVIORS)
    .default('ask')
    .describe('When log_path exists: ask (terminal only), delete it, resume from its last checkpoint, or raise'),
  baseUrl: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'Tinker-compatible server; null = TINKER_BASE_URL, the hosted service with TINKER_API_KEY, else embedded',
    ),
  wandbProject: z.string().nullable().default(null).describe('Weights & Biases project (needs WANDB_API_KEY)'),
  wandbName: z.string().nullable().default(null).describe('Weights & Biases run name; null = the log folder name'),
};

/** The shared run fields as a schema of their own. */
export const RunConfigSchema = z.object(runConfigShape);
/** The parsed shared run fields. */
export type RunConfig = z.infer<typeof RunConfigSchema>;

/**
 * How a run ended: `completed` (ran to its last step), `already_finished` (resumed a run whose final checkpoint
 * exists), `skipped` (the user chose `exit` at the log-dir prompt), `interrupted` (stopped at a step boundary after
 * SIGINT or an abort).
 */
export type RunStatus = 'completed' | 'already_finished' | 'skipped' | 'interrupted';

/** What every loop returns. `value` carries a loop's own extras (e.g. the training client). */
export interface RunResult<T = undefined> {
  status: RunStatus;
  logPath: string;
  /** The step this call started at: 0, or the `step` of the checkpoint it resumed from. */
  startStep: number;
  /** Steps this call ran. */
  stepsRun: number;
  /** Steps of the whole run (0 when skipped). */
  totalSteps: number;
  /** The final checkpoint, when the run reached its end (or found it). */
  finalCheckpoint: CheckpointRecord | undefined;
  value: T | undefined;
}

/**
 * What a loop's body returns to {@link runLoop}. A body resumed at or past its last step (`run.startStep >=
 * totalSteps`) returns at once with `endStep = run.startStep`; the run is reported `already_finished`.
 */
export interface LoopOutcome<T = undefined> {
  /** Steps of the whole run. */
  totalSteps: number;
  /** The step the body stopped at (`totalSteps` when it ran to the end). */
  endStep: number;
  finalCheckpoint?: CheckpointRecord | undefined;
  value?: T;
}

/** Options of {@link runLoop}: the shared run fields plus how to log. */
export interface RunLoopOptions {
  logPath: string;
  behaviorIfLogDirExists: RunConfig['behaviorIfLogDirExists'];
  wandbProject?: string | null;
  wandbName?: string | null;
  /** Written to `config.json` (and W&B) — the resolved config, in the command line's snake_case spelling. */
  config: unknown;
  /** Console table of metrics per step: true = stdout (default), false = none, or a sink. */
  console?: boolean | TextSink;
  /** Notices (resume point, interruption, report path). Default: stderr. */
  log?: (line: string) => void;
  /** Options of the log-dir prompt (TTY detection, prompt function). */
  logDirOptions?: CheckLogDirOptions;
  /**
   * Runs after the log-dir decision and before anything is written or deleted: validate data here, so bad input
   * fails before an old run is deleted.
   */
  prepare?: () => Promise<void> | void;
  /**
   * Runs after `prepare` and before the log dir is created or an old run deleted: contact the server here (see
   * `loopService`), so an unreachable server, a wrong URL or a missing key leaves the disk as it was. What it returns,
   * if anything, is closed when the run ends (the service client it created).
   */
  connect?: () => Promise<Closeable | undefined> | Closeable | undefined;
  /** Write report.html when the run closes. Default true. */
  writeReport?: boolean;
  /**
   * The first SIGINT or SIGTERM stops at the next step boundary (and is recorded for the exit status: 130 / 143), a
   * second exits at once. Default true.
   */
  handleSigint?: boolean;
  /** Checkpoint key a resumable record must have. Default `state_path`. */
  resumeKey?: string;
  /**
   * Progress of the run once the loop calls `setTotalSteps`: `step i/N`, elapsed, ETA and the headline metrics of
   * the last logged step — one updating line on a terminal, a plain line per 10 % otherwise. `true` = stderr
   * (default), `false` = none, or a sink.
   */
  progress?: boolean | TextSink;
}

/** Anything the run closes when it ends. */
export interface Closeable {
  close(): Promise<void> | void;
}

/** What a loop's body sees. */
export interface RunContext {
  readonly logPath: string;
  /** 0, or the `step` of the checkpoint the run resumes from (metrics rows from that step on were dropped). */
  readonly startStep: number;
  /** The checkpoint to resume from (load its `state_path` with the optimizer), if resuming. */
  readonly resumeFrom: CheckpointRecord | undefined;
  readonly logger: MetricsLogger;
  /** Prints a notice line. */
  log(line: string): void;
  /** Aborted on the first SIGINT: stop at the next step boundary (save a resumable checkpoint if you can). */
  readonly signal: AbortSignal;
  /** Registers `resource` to be closed when the run ends (after the loggers), and returns it. */
  own<R extends Closeable>(resource: R): R;
  /** Starts the progress display over `totalSteps` (call once the loop knows it). */
  setTotalSteps(totalSteps: number): void;
  /**
   * Work inside the current step, e.g. `rollouts 12/32`: shown after the headline metrics (`step 3/20 … loss 1.2 |
   * rollouts 12/32`) and redrawn as it changes, until the next logged step.
   */
  setProgressDetail(text: string): void;
  /**
   * Counts progress in units of work instead of steps (an eval counts samples): the line shows `sample 37/120` with
   * its rate and ETA, and logged steps no longer move it. The first call starts the display (`done` then counts as
   * already done, as in a resumed run); later calls update `done`. Ignored after `setTotalSteps`.
   */
  setProgressCount(done: number, total: number, unit: string): void;
}

/**
 * Runs `body` inside the run lifecycle and returns the loop's {@link RunResult}. Errors from `body` are rethrown
 * after everything is closed.
 * @throws ConfigError when `logPath` is a file or lies under one, or when the log-dir policy refuses.
 */
export async function runLoop<T = undefined>(
  options: RunLoopOptions,
  body: (run: RunContext) => Promise<LoopOutcome<T>>,
): Promise<RunResult<T>> {
  const display = new RunDisplay(options);
  const log = display.log;
  const logPath = options.logPath;
  const decision = await decideLogDir(logPath, options.behaviorIfLogDirExists, options.logDirOptions);
  if (decision === 'exit') {
    log(`log dir ${logPath} left as it is; nothing to do`);
    return {
      status: 'skipped',
      logPath,
      startStep: 0,
      stepsRun: 0,
      totalSteps: 0,
      finalCheckpoint: undefined,
      value: undefined,
    };
  }
  await options.prepare?.();
  const connection = (await options.connect?.()) ?? undefined;
  const { lock, resumeFrom, startStep, createdDir } = claimLogDir(
    logPath,
    decision,
    options.resumeKey ?? 'state_path',
    log,
  );
  // Every span the loop records (`timed`, `traceScope`, `recordTime`) is collected here and written with the step
  // whose metrics are logged next: `timing_spans.jsonl`, one line per step.
  const tracer = new Tracer(MAX_HELD_SPANS);
  const logger = withTimingSpans(display.openLoggers(logPath), logPath, tracer);
  const interrupts = listenForInterrupts(options.handleSigint ?? true, log);
  const run: OpenRun = {
    logPath,
    createdDir,
    lock,
    interrupts,
    display,
    logger,
    owned: connection === undefined ? [] : [connection],
    writeReport: options.writeReport ?? true,
  };
  const context: RunContext = {
    logPath,
    startStep,
    resumeFrom,
    logger,
    log,
    signal: interrupts.signal,
    own(resource) {
      run.owned.push(resource);
      return resource;
    },
    setTotalSteps: (totalSteps) => display.setTotalSteps(totalSteps, startStep),
    setProgressDetail: (text) => display.setProgressDetail(text),
    setProgressCount: (done, total, unit) => display.setProgressCount(done, total, unit),
  };
  let outcome: LoopOutcome<T>;
  try {
    outcome = await withTracer(tracer, () => body(context));
  } catch (error) {
    await closeRun(run, true);
    throw error;
  }
  await closeRun(run, false);
  const interrupted = interrupts.signal.aborted && outcome.endStep < outcome.totalSteps;
  // A resumed run whose checkpoint is at (or past) its last step: nothing ran. A longer run continues it.
  const alreadyFinished = resumeFrom !== undefined && startStep >= outcome.totalSteps;
  if (alreadyFinished) log(`${logPath}: the run already finished at step ${startStep}; nothing to do`);
  return {
    status: interrupted ? 'interrupted' : alreadyFinished ? 'already_finished' : 'completed',
    logPath,
    startStep,
    stepsRun: Math.max(0, outcome.endStep - startStep),
    totalSteps: outcome.totalSteps,
    finalCheckpoint: outcome.finalCheckpoint,
    value: outcome.value,
  };
}

/** Spans held between two logged steps at most (past this they are counted, not kept). */
const MAX_HELD_SPANS = 4096;

/**
 * `logger` whose `logMetrics(m, step)` also appends the spans `tracer` collected since the last logged step to
 * `timing_spans.jsonl` under `step` (nothing when there are none); `close` writes the spans recorded after the last
 * logged step under that step (a second line for it).
 */
function withTimingSpans(logger: MetricsLogger, logPath: string, tracer: Tracer): MetricsLogger {
  let lastStep: number | undefined;
  return {
    logHparams: (config) => logger.logHparams(config),
    close: () => {
      // Spans after the last logged step (the final checkpoint) go with that step, in a line of their own.
      const { spans, dropped } = tracer.take();
      if (lastStep !== undefined) appendTimingSpans(logPath, lastStep, spans, dropped);
      return logger.close();
    },
    logMetrics: (metrics, step) => {
      logger.logMetrics(metrics, step);
      if (step === undefined) return;
      lastStep = step;
      const { spans, dropped } = tracer.take();
      appendTimingSpans(logPath, step, spans, dropped);
    },
  };
}
