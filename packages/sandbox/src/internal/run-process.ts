/**
 * Spawns one process in a process group of its own and waits for it under a wall-clock deadline, an output cap and an
 * abort signal; any of the three kills the whole group with SIGKILL. Extra pipes (fd 3, 4, …) carry data the process
 * reads at start (bubblewrap's `--file FD`).
 */
import { type StdioPipe, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { SandboxResult } from '../sandbox.js';

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  env: Record<string, string>;
  cwd?: string;
  uid?: number;
  gid?: number;
  stdin?: string;
  /** Written to fd 3, 4, … in order, each then closed. */
  extraInputs?: readonly Uint8Array[];
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/** Runs `argv` to its end (or its kill). Never rejects. */
export function runProcess(argv: readonly string[], options: RunProcessOptions): Promise<SandboxResult> {
  const started = performance.now();
  const extra = options.extraInputs ?? [];
  return new Promise((resolve) => {
    const stdio: StdioPipe[] = ['pipe', 'pipe', 'pipe', ...extra.map((): StdioPipe => 'pipe')];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(argv[0]!, argv.slice(1), {
        env: options.env,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.uid === undefined ? {} : { uid: options.uid }),
        ...(options.gid === undefined ? {} : { gid: options.gid }),
        stdio,
        detached: true,
      });
    } catch (e) {
      resolve(fail(`could not start ${argv[0]}: ${(e as Error).message}`, started));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let timedOut = false;
    let outputLimitHit = false;
    let cancelled = false;
    let done = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const take = (into: Buffer[]) => (b: Buffer) => {
      if (outputLimitHit) return;
      const room = options.maxOutputBytes - bytes;
      if (b.byteLength > room) {
        into.push(b.subarray(0, Math.max(0, room)));
        bytes = options.maxOutputBytes;
        outputLimitHit = true;
        killGroup();
        return;
      }
      into.push(b);
      bytes += b.byteLength;
    };
    child.stdout?.on('data', take(out));
    child.stderr?.on('data', take(err));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (code: number | null, sig: NodeJS.Signals | null, spawnError?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // The group may hold processes that outlived the leader (unconfined backends): end them too.
      killGroup();
      let stderr = Buffer.concat(err).toString('utf8');
      let exitCode = code ?? (sig === null ? -1 : 128 + signalNumber(sig));
      const reasons: string[] = [];
      if (spawnError !== undefined) reasons.push(`could not start ${argv[0]}: ${spawnError.message}`);
      if (timedOut) reasons.push(`the command ran longer than ${options.timeoutMs} ms and was killed`);
      if (outputLimitHit) reasons.push(`the command's output passed ${options.maxOutputBytes} bytes and it was killed`);
      if (cancelled) reasons.push('the command was cancelled');
      if (reasons.length > 0) {
        exitCode = -1;
        stderr += `${stderr === '' || stderr.endsWith('\n') ? '' : '\n'}${reasons.join('; ')}`;
      }
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr,
        exitCode,
        metrics: { wallMs: performance.now() - started, timedOut, outputLimitHit, cancelled },
      });
    };
    child.on('error', (e) => finish(null, null, e));
    child.on('close', (code, sig) => finish(code, sig));
    const stdin = child.stdin;
    stdin?.on('error', () => {});
    stdin?.end(options.stdin ?? '');
    extra.forEach((data, i) => {
      const pipe = child.stdio[3 + i] as (Writable & Readable) | null | undefined;
      if (pipe === null || pipe === undefined) return;
      pipe.on('error', () => {});
      pipe.end(data);
    });
  });
}

function fail(reason: string, started: number): SandboxResult {
  return {
    stdout: '',
    stderr: reason,
    exitCode: -1,
    metrics: { wallMs: performance.now() - started, timedOut: false, outputLimitHit: false, cancelled: false },
  };
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGXCPU: 24,
  SIGXFSZ: 25,
};

function signalNumber(sig: NodeJS.Signals): number {
  return SIGNALS[sig] ?? 0;
}
