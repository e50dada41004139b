/**
 * The close of a run, on success, error and interruption alike: signal handlers off, progress line ended, loggers
 * closed, then what the run owns (last registered first), then either the folder removed (a failed run that created
 * it and logged nothing) or `report.html` written, and the run lock released. A failure while closing is a warning,
 * never a second error.
 */
import { rmSync } from 'node:fs';
import type { HeldLock } from '@cookbook/core';
import { type MetricsLogger, writeRunReport } from '@cookbook/logging';
import type { Closeable } from './run.js';
import type { RunDisplay } from './run-display.js';
import { hasMetricsOrCheckpoints } from './run-log-dir.js';
import type { RunInterrupts } from './run-signals.js';

/** What a run holds until it closes. */
export interface OpenRun {
  logPath: string;
  /** The folder was made (or emptied) by this run. */
  createdDir: boolean;
  lock: HeldLock;
  interrupts: RunInterrupts;
  display: RunDisplay;
  logger: MetricsLogger;
  /** Closed after the loggers, last first. */
  owned: Closeable[];
  /** Write report.html (unless the folder is removed). */
  writeReport: boolean;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Closes everything `run` holds; `failed` = the loop threw. */
export async function closeRun(run: OpenRun, failed: boolean): Promise<void> {
  run.interrupts.stop();
  run.display.finish();
  const problems: string[] = [];
  try {
    await run.logger.close();
  } catch (error) {
    problems.push(`closing the loggers: ${messageOf(error)}`);
  }
  for (const r of run.owned.reverse()) {
    try {
      await r.close();
    } catch (error) {
      problems.push(`closing ${r.constructor.name}: ${messageOf(error)}`);
    }
  }
  if (failed && run.createdDir && !hasMetricsOrCheckpoints(run.logPath)) {
    rmSync(run.logPath, { recursive: true, force: true });
  } else if (run.writeReport) {
    try {
      await writeRunReport(run.logPath);
    } catch (error) {
      problems.push(`writing report.html: ${messageOf(error)}`);
    }
  }
  for (const p of problems) run.display.log(`warning: ${p}`);
  run.lock.release();
}
