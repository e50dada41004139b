/**
 * What to do when a run's log dir already exists (upstream `cli_utils.check_log_dir`). Difference: the decision is
 * made first and applied later ({@link applyLogDirDecision}), so a run can validate its data before deleting anything.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { ConfigError } from '@cookbook/core';

/** The values of {@link LogDirBehavior}, in the order config schemas list them (e.g. for `z.enum`). */
export const LOG_DIR_BEHAVIORS = ['ask', 'delete', 'resume', 'raise'] as const;

/** Policy for an existing log dir: ask on a terminal, delete it, resume from its checkpoints, or fail. */
export type LogDirBehavior = (typeof LOG_DIR_BEHAVIORS)[number];

/** The outcome: start in a new dir, delete the old one first, resume in it, or stop without running. */
export type LogDirDecision = 'fresh' | 'delete' | 'resume' | 'exit';

/** Options of {@link checkLogDir}. */
export interface CheckLogDirOptions {
  /** Whether a person can answer a prompt. Default: stdin and stdout are TTYs. */
  isTTY?: boolean;
  /** Asks a question and returns the answer. Default: readline on stdin/stdout. */
  prompt?: (question: string) => Promise<string>;
  /** Config key named in error messages. Default `behavior_if_log_dir_exists`. */
  key?: string;
}

function isNonEmptyDir(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return readdirSync(path).length > 0;
  } catch {
    return true; // a file in the way counts as existing
  }
}

async function readlinePrompt(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/**
 * Decides what to do with `logDir`, touching nothing (apply the result with {@link applyLogDirDecision}). A missing or
 * empty dir is `fresh`. Otherwise `delete` and `resume` are returned
 * as given; `raise` throws; `ask` prompts `[delete, resume, exit]` on a TTY until it gets a valid answer, and throws a
 * ConfigError telling the user to pick a behavior when there is no TTY.
 */
export async function checkLogDir(
  logDir: string,
  behavior: LogDirBehavior,
  options: CheckLogDirOptions = {},
): Promise<LogDirDecision> {
  if (!isNonEmptyDir(logDir)) return 'fresh';
  const key = options.key ?? 'behavior_if_log_dir_exists';
  switch (behavior) {
    case 'delete':
      return 'delete';
    case 'resume':
      return 'resume';
    case 'raise':
      throw new ConfigError(
        `log dir ${logDir} already exists; pass ${key}=resume to continue it, ${key}=delete to start over, or choose another log_path`,
        { key },
      );
    case 'ask': {
      const isTTY = options.isTTY ?? (process.stdin.isTTY === true && process.stdout.isTTY === true);
      if (!isTTY) {
        throw new ConfigError(
          `log dir ${logDir} already exists and there is no terminal to ask; pass ${key}=resume, ${key}=delete or ${key}=raise`,
          { key },
        );
      }
      const prompt = options.prompt ?? readlinePrompt;
      for (;;) {
        const answer = (await prompt(`Log dir ${logDir} already exists. What to do? [delete, resume, exit]: `))
          .trim()
          .toLowerCase();
        if (answer === 'delete' || answer === 'resume' || answer === 'exit') return answer;
      }
    }
  }
}

/** Carries out a decision: deletes the dir for `delete`; nothing otherwise. */
export function applyLogDirDecision(logDir: string, decision: LogDirDecision): void {
  if (decision !== 'delete') return;
  if (existsSync(logDir) && !statSync(logDir).isDirectory()) {
    throw new ConfigError(`log_path ${logDir} is a file, not a folder; refusing to delete it (nothing was changed)`, {
      key: 'log_path',
    });
  }
  rmSync(logDir, { recursive: true, force: true });
}
