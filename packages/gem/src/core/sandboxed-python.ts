/**
 * Runs a Python program for GEM's code env and python tool in `@cookbook/sandbox` (by default the local bubblewrap
 * sandbox: no network, only its own fresh folder, CPU/memory/process/file/output limits, nothing left running
 * afterwards). The caller's prelude (GEM's in-process guards) still runs first, inside the sandbox.
 */
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { BubblewrapSandbox, type Sandbox } from '@cookbook/sandbox';

/** Makes the sandbox one run uses (a fresh one per run, cleaned up after). */
export type SandboxMaker = () => Sandbox;

/** The default maker: the local bubblewrap sandbox; an interpreter outside `/usr` gets its installation mounted read-only. */
export function defaultSandboxMaker(python: string): SandboxMaker {
  const readOnlyPaths: string[] = [];
  if (python.startsWith('/') && !python.startsWith('/usr/')) {
    readOnlyPaths.push(dirname(dirname(realpathSync(python))));
  }
  // Constructing one now refuses early (SandboxUnavailableError naming the options) where bubblewrap cannot work.
  new BubblewrapSandbox({ readOnlyPaths });
  return () => new BubblewrapSandbox({ readOnlyPaths });
}

/** One program run. */
export interface SandboxedPythonRun {
  python: string;
  /** Python source run as the program (`python -I prelude.py args…`). */
  prelude: string;
  args: readonly string[];
  /** Files beside the prelude. */
  files?: Record<string, string>;
  stdin: string;
  timeoutMs: number;
  maxOutputBytes: number;
  makeSandbox: SandboxMaker;
}

/** The run's outcome; `ok` = exit status 0 within the limits. */
export interface SandboxedPythonResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Runs the prelude with its files in a fresh sandbox. Never throws. */
export async function runSandboxedPython(run: SandboxedPythonRun): Promise<SandboxedPythonResult> {
  const sandbox = run.makeSandbox();
  try {
    for (const [path, content] of Object.entries({ ...run.files, 'prelude.py': run.prelude })) {
      const w = await sandbox.writeFile(path, content);
      if (w.exitCode !== 0) return { ok: false, stdout: '', stderr: w.stderr, timedOut: false };
    }
    const command = [run.python, '-I', 'prelude.py', ...run.args].map(shellQuote).join(' ');
    const r = await sandbox.runCommand(command, {
      stdin: run.stdin,
      timeoutMs: run.timeoutMs,
      maxOutputBytes: run.maxOutputBytes,
    });
    return { ok: r.exitCode === 0, stdout: r.stdout, stderr: r.stderr, timedOut: r.metrics.timedOut };
  } finally {
    await sandbox.cleanup();
  }
}
