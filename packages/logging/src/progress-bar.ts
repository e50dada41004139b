/**
 * A progress bar for long work (the role `tqdm` plays upstream), the one progress display of the cookbook. On a TTY
 * it redraws one line in place — on every update and detail change (throttled) and on a timer, so elapsed and ETA
 * move during a long step — and other output goes above it through {@link ProgressBar.above} or
 * {@link printAboveProgress}; elsewhere (CI logs, files) it prints a plain line at each 10% milestone and at the end,
 * so logs stay short.
 */
import type { TextSink } from './console-logger.js';

/** Options of {@link progressBar}. */
export interface ProgressBarOptions {
  /** Label printed before the bar. Default: none. */
  label?: string;
  /** Where the bar goes. Default: `process.stderr`. */
  stream?: TextSink;
  /** Minimum milliseconds between two TTY redraws caused by updates or detail changes. Default: 100. */
  minIntervalMs?: number;
  /**
   * Milliseconds between timer redraws on a TTY (elapsed and ETA keep moving while nothing is logged); 0 = no timer.
   * The timer never keeps the process alive and stops at `finish`. Default: 1000.
   */
  refreshMs?: number;
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
  /** Sets text shown after the counts (e.g. the headline metric, `rollouts 3/8`); redrawn at once on a TTY. */
  setDetail(text: string): void;
  /**
   * Runs `write`, which prints whole lines (to this bar's stream or another on the same terminal), with the bar's
   * line cleared first and the bar redrawn below them after, so a TTY shows those lines above one updating bar.
   * Elsewhere it only runs `write`.
   */
  above(write: () => void): void;
  /** Draws the final state and ends the line. Further calls do nothing. */
  finish(): void;
}

/**
 * The bars drawing on a terminal now, oldest first, for {@link printAboveProgress}. A bar started while another
 * draws on the same stream (a warm start inside a run) takes the line over until it finishes; the older one then
 * draws again below it.
 */
const liveBars: { bar: ProgressBar; stream: TextSink; redraw: () => void }[] = [];

/** Whether a newer live bar draws on `stream` than `bar`. */
function covered(bar: ProgressBar, stream: TextSink): boolean {
  const i = liveBars.findIndex((b) => b.bar === bar);
  return liveBars.slice(i + 1).some((b) => b.stream === stream);
}

/**
 * Runs `write` (which prints whole lines, e.g. `console.log`) above every progress bar drawing on a terminal in this
 * process: their lines are cleared first and redrawn after. With no bar on a terminal it only runs `write`. Use it
 * for output that does not go through a run (a CLI's own per-step lines).
 */
export function printAboveProgress(write: () => void): void {
  const bars = liveBars.map((b) => b.bar);
  if (bars.length === 0) {
    write();
    return;
  }
  // Nest: each bar clears itself, the innermost runs the write, each redraws on the way out.
  const run = (i: number): void => {
    const bar = bars[i];
    if (bar === undefined) write();
    else bar.above(() => run(i + 1));
  };
  run(0);
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
  const refreshMs = options.refreshMs ?? 1000;
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
  let clearing = false;
  /** A redraw skipped by the throttle, drawn when the interval has passed. */
  let pending: ReturnType<typeof setTimeout> | undefined;
  let refresher: ReturnType<typeof setInterval> | undefined;

  const status = (): string => {
    const elapsed = (now() - start) / 1000;
    const rate = elapsed > 0 ? (done - initial) / elapsed : Number.NaN;
    const pct = total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 100;
    const eta = done >= total ? 0 : rate > 0 ? (total - done) / rate : Number.NaN;
    return `${counter}${done}/${total} ${String(pct).padStart(3)}% [${formatDuration(elapsed)}<${formatDuration(eta)}, ${formatRate(rate, unit)}]${detail === '' ? '' : ` ${detail}`}`;
  };

  const draw = (): void => {
    if (covered(bar, stream)) return;
    lastDraw = now();
    if (pending !== undefined) {
      clearTimeout(pending);
      pending = undefined;
    }
    const tail = ` ${status()}`;
    // A terminal that reports no size (0 columns, e.g. under `script`) gets the usual 80.
    const columns = stream.columns || 80;
    const barWidth = Math.max(10, Math.min(30, columns - prefix.length - tail.length - 3));
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(frac * barWidth);
    const line = `${prefix}|${'█'.repeat(filled)}${' '.repeat(barWidth - filled)}|${tail}`;
    // One terminal line at most: a wrapped line could not be redrawn in place.
    stream.write(`\r${line.slice(0, Math.max(1, columns - 1))}\x1b[K`);
  };

  /** Draws now, or once the throttle interval has passed (at most one pending redraw). */
  const drawThrottled = (): void => {
    const wait = minInterval - (now() - lastDraw);
    if (wait <= 0) {
      draw();
      return;
    }
    if (pending !== undefined) return;
    pending = setTimeout(() => {
      pending = undefined;
      if (!finished) draw();
    }, wait);
    pending.unref?.();
  };

  const drawPlain = (): void => {
    const milestone = total > 0 ? Math.floor((10 * (done - initial)) / Math.max(1, total - initial)) : 10;
    if (milestone <= lastMilestone || milestone >= 10) return;
    lastMilestone = milestone;
    stream.write(`${prefix}${status()}\n`);
  };

  const stopTimers = (): void => {
    if (pending !== undefined) clearTimeout(pending);
    if (refresher !== undefined) clearInterval(refresher);
    pending = undefined;
    refresher = undefined;
  };

  const bar: ProgressBar = {
    tick(n = 1) {
      bar.update(done + n);
    },
    setDetail(text) {
      if (text === detail) return;
      detail = text;
      if (tty && !finished) drawThrottled();
    },
    update(value) {
      if (finished) return;
      done = Math.max(0, value);
      if (tty) drawThrottled();
      else drawPlain();
    },
    above(write) {
      // Nested calls (a notice whose sink is itself wrapped) write into the line already cleared.
      if (!tty || finished || clearing || covered(bar, stream)) {
        write();
        return;
      }
      clearing = true;
      stream.write('\r\x1b[K');
      try {
        write();
      } finally {
        clearing = false;
        draw();
      }
    },
    finish() {
      if (finished) return;
      finished = true;
      stopTimers();
      if (tty) {
        const hidden = covered(bar, stream);
        draw();
        liveBars.splice(
          liveBars.findIndex((b) => b.bar === bar),
          1,
        );
        if (!hidden) {
          stream.write('\n');
          // The bar this one covered draws again, on the next line.
          liveBars.findLast((b) => b.stream === stream)?.redraw();
        }
      } else {
        stream.write(`${prefix}${status()}\n`);
      }
    },
  };
  if (tty) {
    liveBars.push({ bar, stream, redraw: draw });
    draw();
    if (refreshMs > 0) {
      refresher = setInterval(draw, refreshMs);
      refresher.unref?.();
    }
  }
  return bar;
}
