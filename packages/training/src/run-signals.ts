/**
 * SIGINT and SIGTERM during a run: the first stops the loop at the next step boundary (its abort signal fires with
 * an `InterruptedError`, and the signal is noted for the exit status: 130 / 143), a second exits at once. SIGTERM (a
 * scheduler, `kill`, a container stop) is handled like Ctrl-C: save, report, exit non-zero.
 */
import { InterruptedError, type InterruptSignal, noteInterruption, signalExitCode } from '@cookbook/core';

/** An abort signal fed by SIGINT/SIGTERM, and how to stop listening. */
export interface RunInterrupts {
  readonly signal: AbortSignal;
  /** Removes the process handlers (a no-op when they were not installed). */
  stop(): void;
}

/** Listens for SIGINT and SIGTERM when `install` is true; `log` prints the first signal's notice. */
export function listenForInterrupts(install: boolean, log: (line: string) => void): RunInterrupts {
  const controller = new AbortController();
  let sigints = 0;
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
  if (install) {
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
  }
  return {
    signal: controller.signal,
    stop() {
      if (!install) return;
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    },
  };
}
