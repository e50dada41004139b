/**
 * Which signal interrupted a run in this process, for the program's exit status: a run stopped by Ctrl-C or SIGTERM
 * saves, reports and returns normally, yet the process must not exit 0 (a script's `train && eval` would go on with
 * a half-trained model). The run lifecycle records the signal; the CLI exits 130 (SIGINT) or 143 (SIGTERM).
 */

/** The signals a run stops on. */
export type InterruptSignal = 'SIGINT' | 'SIGTERM';

let received: InterruptSignal | undefined;

/** Records that `signal` interrupted a run (the first one is kept). */
export function noteInterruption(signal: InterruptSignal): void {
  received ??= signal;
}

/** The signal that interrupted a run since the last {@link clearInterruption}, if any. */
export function interruptionSignal(): InterruptSignal | undefined {
  return received;
}

/** Forgets the recorded interruption (before the next command runs in the same process). */
export function clearInterruption(): void {
  received = undefined;
}

/** The conventional exit status of a process ended by `signal`: 128 + its number (SIGINT 130, SIGTERM 143). */
export function signalExitCode(signal: InterruptSignal): number {
  return signal === 'SIGINT' ? 130 : 143;
}
