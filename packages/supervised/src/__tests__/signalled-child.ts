/**
 * Test helper: an SFT run in a child process (a script in this folder, given its log path, service root and data),
 * sent a signal once its `metrics.jsonl` holds a given number of rows.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkgRoot = join(here, '..', '..');

/** Rows logged in `logPath/metrics.jsonl` so far (0 before it exists). */
export function metricLines(logPath: string): number {
  const p = join(logPath, 'metrics.jsonl');
  return existsSync(p)
    ? readFileSync(p, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length
    : 0;
}

/** How the child ended, and what it wrote to stderr. */
export interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Runs `script` (a file of this folder) with `logPath`, `root` and `data` until `logPath/metrics.jsonl` has `rows`
 * lines, calling `poll` between looks (every 2 ms), then sends `signal` and waits for the child to end. Throws when
 * the child ends before the signal.
 */
export async function signalAtRows(
  script: string,
  run: { logPath: string; root: string; data: string },
  rows: number,
  signal: NodeJS.Signals,
  poll: () => void = () => {},
): Promise<ChildEnd> {
  const child = spawn(
    process.execPath,
    ['--conditions=@cookbook/source', '--import', 'tsx', join(here, script), run.logPath, run.root, run.data],
    { cwd: pkgRoot, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  while (!done && metricLines(run.logPath) < rows) {
    poll();
    await new Promise((r) => setTimeout(r, 2));
  }
  if (done) throw new Error(`child exited before ${signal}: ${stderr}`);
  child.kill(signal);
  return { ...(await exited), stderr };
}
