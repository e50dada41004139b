/**
 * The output settings every training loop's `deps` accepts (config.json override, console table, progress line,
 * report, notices, log-dir prompt) and their one mapping onto {@link runLoop}'s options, so each loop passes them
 * through the same way with the same defaults.
 */

import type { CheckLogDirOptions, TextSink } from '@cookbook/logging';
import type { RunLoopOptions } from './run.js';

/** Output settings of a loop's `deps`. */
export interface RunOutputDeps {
  /** Written to config.json instead of the parsed config (e.g. a recipe's own fields), in snake_case. */
  hparams?: unknown;
  /** Console table of metrics per step (true = stdout, or a sink). Default true. */
  console?: boolean | TextSink;
  /** Progress line (`step i/N`, elapsed, ETA, headline metrics). Default true (stderr). */
  progress?: boolean | TextSink;
  /** Write report.html at the end. Default true. */
  writeReport?: boolean;
  /** Notices (resume point, interruption, report path). Default: stderr. */
  log?: (line: string) => void;
  /** Options of the log-dir prompt (TTY detection, prompt function). */
  logDirOptions?: CheckLogDirOptions;
}

/**
 * `deps`' output settings as runLoop options; `config` gives config.json's content when `deps.hparams` is unset. A
 * training loop records its run plan (`resolveRunPlan`), which writes the values it resolved over `deps.hparams`.
 */
export function runOutputOptions(
  deps: RunOutputDeps,
  config: () => unknown,
): Pick<RunLoopOptions, 'config' | 'console' | 'progress' | 'writeReport' | 'log' | 'logDirOptions'> {
  return {
    config: deps.hparams ?? config(),
    console: deps.console ?? true,
    progress: deps.progress ?? true,
    writeReport: deps.writeReport ?? true,
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.logDirOptions ? { logDirOptions: deps.logDirOptions } : {}),
  };
}
