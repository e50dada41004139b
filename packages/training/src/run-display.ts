/**
 * What a run prints: notices, the loggers (console table, JSONL, W&B, `config.json`) and the progress line. The
 * progress line stays the terminal's last line; everything else the run prints goes above it.
 */
import {
  formatMetricValue,
  isHeadlineMetric,
  type MetricsLogger,
  type ProgressBar,
  progressBar,
  setupLogging,
  type TextSink,
} from '@cookbook/logging';

/** The output options of a run (a subset of `RunLoopOptions`). */
export interface RunDisplayOptions {
  config: unknown;
  console?: boolean | TextSink;
  log?: (line: string) => void;
  progress?: boolean | TextSink;
  wandbProject?: string | null;
  wandbName?: string | null;
}

/** `true`/`undefined` = the default sink, `false` = none, else the sink given. */
function sinkOf(option: boolean | TextSink | undefined, fallback: TextSink): TextSink | undefined {
  return option === false ? undefined : option === true || option === undefined ? fallback : option;
}

/** Notices, the loggers and the progress line of one run. */
export class RunDisplay {
  private bar: ProgressBar | undefined;
  private barTotal = 0;
  /** True when the bar counts units of work (`setProgressCount`) rather than logged steps. */
  private countsUnits = false;
  private headline = '';
  private stepDetail = '';
  private readonly writeNotice: (line: string) => void;
  private readonly progressSink: TextSink | undefined;

  constructor(private readonly options: RunDisplayOptions) {
    this.writeNotice = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    this.progressSink = sinkOf(options.progress, process.stderr);
  }

  /** Runs `write` above the progress line (directly while there is none). */
  private aboveBar(write: () => void): void {
    if (this.bar === undefined) write();
    else this.bar.above(write);
  }

  /** Prints a notice line. */
  readonly log = (line: string): void => this.aboveBar(() => this.writeNotice(line));

  /**
   * Opens the loggers in `logDir` (writes `config.json`) and returns what the loop logs through: the loggers, plus
   * the progress line after each step. Its `close` closes the loggers.
   */
  openLoggers(logDir: string): MetricsLogger {
    const consoleSink = sinkOf(this.options.console, process.stdout);
    const logger = setupLogging({
      logDir,
      config: this.options.config,
      console:
        consoleSink === undefined ? false : { write: (text: string) => this.aboveBar(() => consoleSink.write(text)) },
      ...(this.options.wandbProject ? { wandbProject: this.options.wandbProject } : {}),
      ...(this.options.wandbName ? { wandbName: this.options.wandbName } : {}),
    });
    return {
      logHparams: (config) => logger.logHparams(config),
      close: () => logger.close(),
      logMetrics: (metrics, step) => {
        logger.logMetrics(metrics, step);
        const bar = this.bar;
        if (bar === undefined || step === undefined) return;
        this.headline = Object.entries(metrics)
          .filter(([k, v]) => typeof v === 'number' && isHeadlineMetric(k))
          .slice(0, 3)
          .map(([k, v]) => `${k} ${formatMetricValue(v)}`)
          .join('  ');
        // The work inside the step is done; the next step sets its own detail.
        this.stepDetail = '';
        this.showDetail();
        // A final evaluation is logged at step = totalSteps: the bar stays at N/N.
        if (!this.countsUnits) bar.update(Math.min(step + 1, this.barTotal));
      },
    };
  }

  private showDetail(): void {
    this.bar?.setDetail([this.headline, this.stepDetail].filter((t) => t !== '').join(' | '));
  }

  /** Starts the progress line over `totalSteps`, at `startStep` (once; ignored without a progress sink). */
  setTotalSteps(totalSteps: number, startStep: number): void {
    if (this.progressSink === undefined || this.bar !== undefined) return;
    this.barTotal = totalSteps;
    this.bar = progressBar(totalSteps, { stream: this.progressSink, initial: startStep, unit: 'step' });
  }

  /** Work inside the current step, shown after the headline metrics until the next logged step. */
  setProgressDetail(text: string): void {
    this.stepDetail = text;
    this.showDetail();
  }

  /** Counts progress in units of work instead of steps (see `RunContext.setProgressCount`). */
  setProgressCount(done: number, total: number, unit: string): void {
    if (this.progressSink === undefined) return;
    if (this.bar === undefined) {
      this.countsUnits = true;
      this.barTotal = total;
      this.bar = progressBar(total, { stream: this.progressSink, initial: done, unit });
    } else if (this.countsUnits) {
      this.bar.update(done);
    }
  }

  /** Ends the progress line. */
  finish(): void {
    this.bar?.finish();
  }
}
