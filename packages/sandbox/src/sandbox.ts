/**
 * The sandbox interface (upstream `sandbox/sandbox_interface.py`): a place where model-written code runs. Every backend
 * implements it; recipes, graders and envs are written against it, never against a backend.
 *
 * A sandbox holds files (`writeFile`) and runs shell commands over them (`runCommand`). A command that cannot run, runs
 * out of time, is cancelled or breaks a limit does not throw: it becomes exit code −1 with the reason in `stderr`, so a
 * grader reads a failure, never an exception.
 */
import { CookbookError, type CookbookErrorOptions } from '@cookbook/core';

/** What a command (or a file operation) returned. */
export interface SandboxResult {
  stdout: string;
  stderr: string;
  /** The command's exit status; 128 + n when signal n ended it; −1 when it could not run or was stopped. */
  exitCode: number;
  metrics: SandboxMetrics;
}

/** Measurements of one command. */
export interface SandboxMetrics {
  /** Wall time from spawn to exit, ms. */
  wallMs: number;
  /** The wall-clock deadline stopped it. */
  timedOut: boolean;
  /** stdout + stderr passed `maxOutputBytes`: the command was stopped and its output cut there. */
  outputLimitHit: boolean;
  /** The caller's `signal` stopped it. */
  cancelled: boolean;
  /** Peak resident memory of the sandbox's processes, KiB, when the backend can tell. */
  maxRssKiB?: number;
}

/** Options of {@link Sandbox.runCommand}. */
export interface RunCommandOptions {
  /** Working folder, relative to the sandbox's folder. Default: the sandbox's folder. */
  cwd?: string;
  /** Wall-clock limit, ms. Default 60 000. */
  timeoutMs?: number;
  /** Bytes of stdout + stderr kept; more stops the command. Default 128 KiB. */
  maxOutputBytes?: number;
  /** Bytes fed to the command's stdin. Default: none (stdin is empty). */
  stdin?: string;
  /** Stops the command (exit code −1, `metrics.cancelled`). */
  signal?: AbortSignal;
}

/** Defaults of {@link RunCommandOptions}. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 128 * 1024;

/** A place where untrusted code runs. */
export interface Sandbox {
  /** The backend's name (`bubblewrap`, `sandbox_fusion`, `unsafe_local`). */
  readonly backend: string;
  /** An identifier of this sandbox, for logs. */
  readonly sandboxId: string;
  /** Runs `command` with `/bin/sh -c` inside the sandbox. Never throws for a failure of the command itself. */
  runCommand(command: string, options?: RunCommandOptions): Promise<SandboxResult>;
  /** Stores a file (path relative to the sandbox's folder) that every later command sees. */
  writeFile(path: string, content: string | Uint8Array, options?: { executable?: boolean }): Promise<SandboxResult>;
  /** A file stored with {@link writeFile}, as text in `stdout` (at most `maxBytes`); exit code 1 when absent. */
  readFile(path: string, options?: { maxBytes?: number }): Promise<SandboxResult>;
  /** Keeps a remote sandbox alive; a no-op for local ones. */
  heartbeat(): Promise<void>;
  /** Stops every process the sandbox started and removes its files. Idempotent. */
  cleanup(): Promise<void>;
}

/** A sandbox could not be created or used (not a failure of the code it runs). */
export class SandboxError extends CookbookError {
  override name = 'SandboxError';
}

/** This machine cannot provide the isolation a backend promises; the message names the options. */
export class SandboxUnavailableError extends SandboxError {
  override name = 'SandboxUnavailableError';
  constructor(message: string, options?: CookbookErrorOptions) {
    super(message, options);
  }
}

/** A result for a command that did not run (exit code −1, the reason in stderr). */
export function failedResult(reason: string, metrics: Partial<SandboxMetrics> = {}): SandboxResult {
  return {
    stdout: '',
    stderr: reason,
    exitCode: -1,
    metrics: { wallMs: 0, timedOut: false, outputLimitHit: false, cancelled: false, ...metrics },
  };
}
