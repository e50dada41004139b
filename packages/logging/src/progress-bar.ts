/**
 * A progress bar for long work (the role `tqdm` plays upstream). On a TTY it redraws one line in place; elsewhere
 * (CI logs, files) it prints a plain line at each 10% milestone and at the end, so logs stay short.
 */
import type { TextSink } from './console-logger.js';

/** Options of {@link progressBar}. */
export interface ProgressBarOptions {
  /** Label printed before the bar. Default: none. */
  label?: string;
  /** Where the bar goes. Default: `process.stderr`. */
  stream?: TextSink;
  /** Minimum milliseconds between two TTY redraws. Default: 100. */
  minIntervalMs?: number;
  /** Clock in milliseconds (tests pass a fake). Default: `performance.now`. */
  now?: () => number;
  /** Items already done when the bar starts (a resumed run); the rate and ETA count only what this bar sees. */
  initial?: number;
  /** What an item is called, e.g. `step` (shows `step 3/40` and `s/step`). Default: none (`3/40`, `s/it`). */
  unit?: string;
}

/** A running progress bar. */
export interface ProgressBar {
  /** Advances by `n` items (default 1). */
  tick(n?: number): void;
  /** Sets the number of finished items. */
  update(done: number): void;
  /** Sets text shown after the counts (e.g. the headline metric); redrawn with the next update on a TTY. */
  setDetail(text: string): void;
  /** Draws the final state and ends the line. Further calls do nothing. */
  finish(): void;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (x: number) => String(x).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

function formatRate(perSecond: number, unit: string): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return `? ${unit}/s`;
  return perSecond >= 1
    ? `${perSecond.toFixed(perSecond >= 100 ? 0 : 2)} ${unit}/s`
    : `${(1 / perSecond).toFixed(2)} s/${unit}`;
}

/** Starts a progress bar over `total` items (`total` ≥ 0). */
export function progressBar(total: number, options: ProgressBarOptions = {}): ProgressBar {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  const minInterval = options.minIntervalMs ?? 100;
  const prefix = options.label ? `${options.label} ` : '';
  const unit = options.unit ?? 'it';
  const counter = options.unit ? `${options.unit} ` : '';
  const tty = stream.isTTY === true;
  const start = now();
  const initial = options.initial ?? 0;
  let done = initial;
  let detail = '';
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastMilestone = 0;
  let finished = false;

  const status = (): string => {
    const elapsed = (now() - start) / 1000;
    const rate = elapsed > 0 ? (done - initial) / elapsed : Number.NaN;
    const pct = total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 100;
    const eta = done >= total ? 0 : rate > 0 ? (total - done) / rate : Number.NaN;
    return `${counter}${done}/${total} ${String(pct).padStart(3)}% [${formatDuration(elapsed)}<${formatDuration(eta)}, ${formatRate(rate, unit)}]${detail === '' ? '' : ` ${detail}`}`;
  };

  const drawTty = (force: boolean): void => {
    const t = now();
    if (!force && t - lastDraw < minInterval) return;
    lastDraw = t;
    const tail = ` ${status()}`;
    const columns = stream.columns ?? 80;
    const barWidth = Math.max(10, Math.min(30, columns - prefix.length - tail.length - 3));
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(frac * barWidth);
    const line = `${prefix}|${'█'.repeat(filled)}${' '.repeat(barWidth - filled)}|${tail}`;
    // One terminal line at most: a wrapped line could not be redrawn in place.
    stream.write(`\r${line.slice(0, Math.max(1, columns - 1))}\x1b[K`);
  };

  const drawPlain = (): void => {
    const milestone = total > 0 ? Math.floor((10 * (done - initial)) / Math.max(1, total - initial)) : 10;
    if (milestone <= lastMilestone || milestone >= 10) return;
    lastMilestone = milestone;
    stream.write(`${prefix}${status()}\n`);
  };

  const bar: ProgressBar = {
    tick(n = 1) {
      bar.update(done + n);
    },
    setDetail(text) {
      detail = text;
    },
    update(value) {
      if (finished) return;
      done = Math.max(0, value);
      if (tty) drawTty(false);
      else drawPlain();
    },
    finish() {
      if (finished) return;
      finished = true;
      if (tty) {
        drawTty(true);
        stream.write('\n');
      } else {
        stream.write(`${prefix}${status()}\n`);
      }
    },
  };
  if (tty) drawTty(true);
  return bar;
}
