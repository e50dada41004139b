/**
 * The attacks the python tool and the code env let through before they ran in the sandbox: a subprocess (a second
 * interpreter, which the in-process socket guard does not patch) reaching a listener on 127.0.0.1, and a forked child
 * that outlived its program.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { isolatedPythonAvailable } from '@cookbook/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPythonProgram } from '../dataset/code-env.js';
import { PythonCodeTool } from '../wrappers/python-tool.js';

const run = isolatedPythonAvailable() || process.env.CI === 'true';

describe.runIf(run)('GEM code execution runs in the sandbox [bubblewrap] [python3]', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      connections++;
      s.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("the python tool's subprocesses cannot reach 127.0.0.1 either", async () => {
    const tool = new PythonCodeTool({ timeoutSeconds: 5 });
    const r = await tool.run(
      `import subprocess, sys\nr = subprocess.run([sys.executable, "-c", "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=2); print('reached')"], capture_output=True, text=True)\nprint(r.stdout, r.returncode)`,
    );
    expect(r.stdout).not.toMatch(/reached/);
    expect(connections).toBe(0);
  });

  it("a code:jsonl program's forked child does not outlive it", async () => {
    const tag = `gem-sandbox-fork-${process.pid}-${Date.now()}`;
    const r = await runPythonProgram(
      `import os, time\nif os.fork() == 0:\n    os.execv("/usr/bin/python3", ["python3", "-c", "import time; time.sleep(30)", "${tag}"])\nprint("parent")`,
      '',
      { timeoutMs: 5000, memoryBytes: 256 * 1024 * 1024, maxOutputChars: 10_000, python: 'python3' },
    );
    expect(r.stdout).toBe('parent\n');
    await new Promise((res) => setTimeout(res, 300));
    const alive = readdirSync('/proc').filter((p) => {
      try {
        return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(tag);
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });
});
