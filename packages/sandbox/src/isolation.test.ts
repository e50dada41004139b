/**
 * Hostile programs against the local sandbox: each attempt fails, the command ends, and no process of it is left
 * (each program carries a unique token in its argv; afterwards no process on the host has it).
 *
 * These are the isolation's tests: run them against the unconfined backend
 * (`COOKBOOK_SANDBOX_TEST_BACKEND=unsafe_local`) and the isolation tests fail — the connect, lookup, reads, writes,
 * forks, allocation and the escaped background child all succeed there.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BubblewrapSandbox, isolatedPythonAvailable } from './bubblewrap.js';
import type { Sandbox } from './sandbox.js';
import { UnsafeLocalSandbox } from './unsafe-local.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BACKEND = process.env.COOKBOOK_SANDBOX_TEST_BACKEND ?? 'bubblewrap';

// Without bubblewrap (or user namespaces) these skip locally (their names say "[bubblewrap]"); under CI=true they
// run, and fail: CI installs bubblewrap.
const run = isolatedPythonAvailable() || process.env.CI === 'true';

function makeSandbox(): Sandbox {
  return BACKEND === 'unsafe_local' ? new UnsafeLocalSandbox({ log: () => {} }) : new BubblewrapSandbox();
}

let counter = 0;
/** A token unique to one program run, passed in its argv. */
function token(): string {
  return `cookbook-sbx-test-${process.pid}-${Date.now()}-${counter++}`;
}

/** Host processes whose command line holds `tok`. */
function processesWith(tok: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(tok)) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** Waits (up to 3 s) for the processes carrying `tok` to be gone; returns those left. */
async function leftovers(tok: string): Promise<number[]> {
  for (let i = 0; i < 30; i++) {
    const left = processesWith(tok);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
  return processesWith(tok);
}

/** Runs a Python program in a fresh sandbox; returns the result and the token its processes carry. */
async function runProgram(code: string, timeoutMs = 5000, maxOutputBytes?: number) {
  const sb = makeSandbox();
  const tok = token();
  try {
    await sb.writeFile('prog.py', code);
    const r = await sb.runCommand(`python3 prog.py ${tok}`, {
      timeoutMs,
      ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
    });
    return { r, tok };
  } finally {
    await sb.cleanup();
  }
}

describe.runIf(run)(`local sandbox isolation [bubblewrap] (backend: ${BACKEND})`, () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      connections++;
      s.end('hello\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('cannot connect to a TCP port on the host 127.0.0.1', async () => {
    const before = connections;
    const { r, tok } = await runProgram(
      `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=2)\nprint("connected", s.recv(10))`,
    );
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).not.toMatch(/connected/);
    expect(r.stderr).toMatch(/ConnectionRefusedError|Network is unreachable|OSError/);
    expect(connections).toBe(before);
    expect(await leftovers(tok)).toEqual([]);
  });

  it('cannot resolve a host name (not even localhost)', async () => {
    const { r } = await runProgram('import socket\nprint(socket.getaddrinfo("localhost", 80))');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/gaierror/);
  });

  it("cannot read the user's home or the repository", async () => {
    const repoFile = join(REPO, 'package.json');
    expect(existsSync(repoFile)).toBe(true);
    const { r } = await runProgram(
      [
        'import os',
        'seen = []',
        `for p in [${JSON.stringify(repoFile)}, ${JSON.stringify(join(REPO, 'AGENTS.md'))}]:`,
        '    try:',
        '        open(p).read(10); seen.append(p)',
        '    except OSError: pass',
        `for d in [${JSON.stringify(homedir())}, ${JSON.stringify(REPO)}]:`,
        '    try:',
        '        os.listdir(d); seen.append(d)',
        '    except OSError: pass',
        'print("SEEN", seen)',
      ].join('\n'),
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('SEEN []\n');
  });

  it('cannot write outside its folder, and nothing it writes carries to the next command', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'sbx-outside-'));
    try {
      const sb = makeSandbox();
      const target = join(outside, 'pwned.txt');
      await sb.writeFile('prog.py', `import sys\nopen(sys.argv[1], "w").write("x")\nprint("wrote")`);
      const r = await sb.runCommand(`python3 prog.py ${target}`, { timeoutMs: 5000 });
      expect(r.exitCode).not.toBe(0);
      expect(existsSync(target)).toBe(false);
      const usr = await sb.runCommand('touch /usr/pwned 2>&1; echo > /work/state; echo > /tmp/state; echo done');
      expect(usr.stdout).toMatch(/Read-only file system|Permission denied/);
      const next = await sb.runCommand('ls /work /tmp');
      expect(next.stdout).not.toMatch(/state/);
      await sb.cleanup();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a fork bomb hits the process limit and leaves nothing behind', async () => {
    // Bounded at 200 forks so that the unconfined control run cannot take the machine down.
    const { r, tok } = await runProgram(
      [
        'import os, time',
        'n = 0',
        'for _ in range(200):',
        '    try:',
        '        if os.fork() == 0:',
        '            time.sleep(30); os._exit(0)',
        '        n += 1',
        '    except OSError:',
        '        break',
        'print("forked", n, flush=True)',
      ].join('\n'),
      3000,
    );
    const forked = Number(/forked (\d+)/.exec(r.stdout)?.[1] ?? 'NaN');
    expect(forked).toBeLessThan(100);
    expect(await leftovers(tok)).toEqual([]);
  });

  it('an unbounded fork bomb is stopped by the deadline with nothing left', async () => {
    if (BACKEND === 'unsafe_local') return; // never unleashed unconfined
    const { r, tok } = await runProgram(
      'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass',
      1500,
    );
    expect(r.exitCode).toBe(-1);
    expect(r.metrics.timedOut).toBe(true);
    expect(await leftovers(tok)).toEqual([]);
  });

  it('cannot allocate 10 GB', async () => {
    const { r } = await runProgram('b = bytearray(10 * 1024**3)\nprint("allocated", len(b))');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/MemoryError/);
  });

  it('printing 1 GB is cut at the output cap and stopped', async () => {
    const { r, tok } = await runProgram(
      'import sys\nchunk = "x" * 2**20\nfor _ in range(1024):\n    sys.stdout.write(chunk)',
      20_000,
      64 * 1024,
    );
    expect(r.exitCode).toBe(-1);
    expect(r.metrics.outputLimitHit).toBe(true);
    expect(r.stdout.length).toBeLessThanOrEqual(64 * 1024);
    expect(await leftovers(tok)).toEqual([]);
  });

  it('sleeping for ever, or ignoring SIGTERM, is ended by the deadline', async () => {
    for (const code of [
      'import time\ntime.sleep(10**6)',
      'import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True: time.sleep(1)',
    ]) {
      const { r, tok } = await runProgram(code, 800);
      expect(r.exitCode).toBe(-1);
      expect(r.metrics.timedOut).toBe(true);
      expect(r.stderr).toMatch(/ran longer than 800 ms/);
      expect(await leftovers(tok)).toEqual([]);
    }
  });

  it('killing its parent leaves nothing behind', async () => {
    const { tok } = await runProgram(
      'import os, sys, time, subprocess\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", sys.argv[1]])\nos.kill(os.getppid(), 9)\ntime.sleep(30)',
      2000,
    );
    expect(await leftovers(tok)).toEqual([]);
  });

  it('a background child (even in a new session) does not outlive the command', async () => {
    const { r, tok } = await runProgram(
      'import sys, subprocess\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", sys.argv[1]], start_new_session=True)\nprint("parent done")',
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('parent done\n');
    expect(await leftovers(tok)).toEqual([]);
  });

  it('cleanup stops a running command', async () => {
    const sb = makeSandbox();
    const tok = token();
    await sb.writeFile('prog.py', 'import time\ntime.sleep(30)');
    const pending = sb.runCommand(`python3 prog.py ${tok}`, { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    await sb.cleanup();
    const r = await pending;
    expect(r.exitCode).toBe(-1);
    expect(r.metrics.cancelled).toBe(true);
    expect(await leftovers(tok)).toEqual([]);
  });
});
