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
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import {
  acquireProcessLock,
  ConfigError,
  describeLockOwner,
  type HeldLock,
  InterruptedError,
  type InterruptSignal,
  LockHeldError,
  type LockOwner,
  lockOwnerAlive,
  noteInterruption,
  readLockOwner,
  signalExitCode,
} from '@cookbook/core';
import {
  type CheckLogDirOptions,
  type CheckpointRecord,
  checkLogDir,
  formatMetricValue,
  getLastCheckpoint,
  isHeadlineMetric,
  LOG_DIR_BEHAVIORS,
  type LogDirDecision,
  type MetricsLogger,
  type ProgressBar,
  progressBar,
  readCheckpoints,
  setupLogging,
  type TextSink,
  truncateMetricsFrom,
  writeRunReport,
} from '@cookbook/logging';
import { z } from 'zod';

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

/** The step a checkpoint record resumes at: its `step`, or (records of older runs) `epoch × batches + batch`. */
export function resumeStepOf(record: CheckpointRecord, batchesPerEpoch?: number): number {
  if (typeof record.step === 'number') return record.step;
  if (typeof record.batch === 'number') return (record.epoch ?? 0) * (batchesPerEpoch ?? 0) + record.batch;
  return 0;
}

function checkLogPathShape(logPath: string): void {
  if (existsSync(logPath) && !statSync(logPath).isDirectory()) {
    throw new ConfigError(
      `log_path ${logPath} is a file, not a folder; choose another log_path (nothing was changed)`,
      {
        key: 'log_path',
      },
    );
  }
  for (let dir = dirname(resolve(logPath)); ; dir = dirname(dir)) {
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) {
        throw new ConfigError(`log_path ${logPath} is inside ${dir}, which is a file; choose another log_path`, {
          key: 'log_path',
        });
      }
      return;
    }
    if (dirname(dir) === dir) return;
  }
}

/** The lock file that makes a run the owner of its log dir. */
export const RUN_LOCK_FILE = '.run.lock';

const lockedMessage = (logPath: string) => (owner: LockOwner) =>
  `log_path ${logPath} is in use by another run: ${describeLockOwner(owner)}; wait for it to finish (or stop it), or choose another log_path`;

/** Takes `logPath`'s run lock (a lock left by a dead process is taken over). */
function takeRunLock(logPath: string): HeldLock {
  const who = [basename(process.argv[1] ?? 'node'), ...process.argv.slice(2, 3)].join(' ');
  return acquireProcessLock(resolve(logPath, RUN_LOCK_FILE), `run of "${who}"`, lockedMessage(logPath));
}

function hasMetricsOrCheckpoints(logPath: string): boolean {
  if (readCheckpoints(logPath).length > 0) return true;
  try {
    return statSync(resolve(logPath, 'metrics.jsonl')).size > 0;
  } catch {
    return false;
  }
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
  const writeNotice = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let bar: ProgressBar | undefined;
  // Everything else the run prints goes above the progress line (which stays the terminal's last line).
  const aboveBar = (write: () => void): void => (bar === undefined ? write() : bar.above(write));
  const log = (line: string): void => aboveBar(() => writeNotice(line));
  const logPath = options.logPath;
  checkLogPathShape(logPath);
  // A live run's folder is refused before anything is asked or read.
  const holder = readLockOwner(resolve(logPath, RUN_LOCK_FILE));
  if (holder !== undefined && lockOwnerAlive(holder)) throw new LockHeldError(lockedMessage(logPath)(holder), holder);
  const decision: LogDirDecision = await checkLogDir(logPath, options.behaviorIfLogDirExists, options.logDirOptions);
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

  let resumeFrom: CheckpointRecord | undefined;
  if (decision === 'resume') {
    resumeFrom = getLastCheckpoint(logPath, options.resumeKey ?? 'state_path');
    if (resumeFrom === undefined) log(`${logPath}: no checkpoint to resume from; starting at step 0`);
  }
  // Owned from here (before deleting anything in it); the lock file stays through a delete.
  let lock = existsSync(logPath) ? takeRunLock(logPath) : undefined;
  if (decision === 'delete') {
    for (const entry of readdirSync(logPath)) {
      if (entry !== RUN_LOCK_FILE) rmSync(resolve(logPath, entry), { recursive: true, force: true });
    }
  }
  const createdDir = decision === 'delete' || !existsSync(logPath);
  mkdirSync(logPath, { recursive: true });
  lock ??= takeRunLock(logPath);
  const startStep = resumeFrom === undefined ? 0 : resumeStepOf(resumeFrom);
  // Rows past the resume point were written after the checkpoint by a process that died: they are recomputed. A
  // final checkpoint is written after everything of its run (final evaluations included), so nothing is dropped.
  const dropped = resumeFrom?.final === true ? 0 : truncateMetricsFrom(logPath, startStep);
  if (dropped > 0) log(`dropped ${dropped} metrics rows at or after step ${startStep}; they will be recomputed`);
  if (resumeFrom !== undefined) log(`resuming from checkpoint "${resumeFrom.name}" at step ${startStep}`);

  const consoleSink: TextSink | undefined =
    options.console === false
      ? undefined
      : options.console === true || options.console === undefined
        ? process.stdout
        : options.console;
  const logger = setupLogging({
    logDir: logPath,
    config: options.config,
    console: consoleSink === undefined ? false : { write: (text: string) => aboveBar(() => consoleSink.write(text)) },
    ...(options.wandbProject ? { wandbProject: options.wandbProject } : {}),
    ...(options.wandbName ? { wandbName: options.wandbName } : {}),
  });
  const owned: Closeable[] = connection === undefined ? [] : [connection];
  let barTotal = 0;
  /** True when the bar counts units of work (`setProgressCount`) rather than logged steps. */
  let countsUnits = false;
  let headline = '';
  let stepDetail = '';
  const showDetail = () => bar?.setDetail([headline, stepDetail].filter((t) => t !== '').join(' | '));
  const progressSink =
    options.progress === false
      ? undefined
      : options.progress === true || options.progress === undefined
        ? process.stderr
        : options.progress;
  // What the loop logs through: the loggers, plus the progress line after each step.
  const runLogger: MetricsLogger = {
    logHparams: (config) => logger.logHparams(config),
    close: () => logger.close(),
    logMetrics(metrics, step) {
      logger.logMetrics(metrics, step);
      if (bar === undefined || step === undefined) return;
      headline = Object.entries(metrics)
        .filter(([k, v]) => typeof v === 'number' && isHeadlineMetric(k))
        .slice(0, 3)
        .map(([k, v]) => `${k} ${formatMetricValue(v)}`)
        .join('  ');
      // The work inside the step is done; the next step sets its own detail.
      stepDetail = '';
      showDetail();
      // A final evaluation is logged at step = totalSteps: the bar stays at N/N.
      if (!countsUnits) bar.update(Math.min(step + 1, barTotal));
    },
  };
  const controller = new AbortController();
  let sigints = 0;
  // SIGTERM (a scheduler, `kill`, a container stop) is handled like Ctrl-C: save, report, exit non-zero.
  const onSigint = (signal: NodeJS.Signals) => {
    const sig: InterruptSignal = signal === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
    noteInterruption(sig);
    sigints++;
    if (sigints === 1) {
      log(
        sig === 'SIGINT'
          ? 'interrupted: stopping after the current step (press Ctrl-C again to quit at once)'
          : 'SIGTERM: stopping after the current step (a second signal quits at once)',
      );
      controller.abort(
        new InterruptedError(
          sig === 'SIGINT'
            ? 'interrupted by SIGINT (Ctrl-C): stopping at the next step boundary'
            : 'interrupted by SIGTERM: stopping at the next step boundary',
        ),
      );
    } else {
      process.exit(signalExitCode(sig));
    }
  };
  if (options.handleSigint ?? true) {
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
  }

  const close = async (failed: boolean) => {
    if (options.handleSigint ?? true) {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    }
    bar?.finish();
    const problems: string[] = [];
    try {
      await logger.close();
    } catch (error) {
      problems.push(`closing the loggers: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const r of owned.reverse()) {
      try {
        await r.close();
      } catch (error) {
        problems.push(`closing ${r.constructor.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (failed && createdDir && !hasMetricsOrCheckpoints(logPath)) {
      rmSync(logPath, { recursive: true, force: true });
    } else if (options.writeReport ?? true) {
      try {
        await writeRunReport(logPath);
      } catch (error) {
        problems.push(`writing report.html: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    for (const p of problems) log(`warning: ${p}`);
    lock.release();
  };

  const context: RunContext = {
    logPath,
    startStep,
    resumeFrom,
    logger: runLogger,
    log,
    signal: controller.signal,
    own(resource) {
      owned.push(resource);
      return resource;
    },
    setTotalSteps(totalSteps) {
      if (progressSink === undefined || bar !== undefined) return;
      barTotal = totalSteps;
      bar = progressBar(totalSteps, { stream: progressSink, initial: startStep, unit: 'step' });
    },
    setProgressDetail(text) {
      stepDetail = text;
      showDetail();
    },
    setProgressCount(done, total, unit) {
      if (progressSink === undefined) return;
      if (bar === undefined) {
        countsUnits = true;
        barTotal = total;
        bar = progressBar(total, { stream: progressSink, initial: done, unit });
      } else if (countsUnits) {
        bar.update(done);
      }
    },
  };
  let outcome: LoopOutcome<T>;
  try {
    outcome = await body(context);
  } catch (error) {
    await close(true);
    throw error;
  }
  await close(false);
  const interrupted = controller.signal.aborted && outcome.endStep < outcome.totalSteps;
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
