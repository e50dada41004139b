import { createServer, type Server } from 'node:net';
import { BubblewrapSandbox, isolatedPythonAvailable, SandboxPool } from '@cookbook/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeToolCall, toolMap } from './execute.js';
import { pythonTool } from './python-tool.js';

const run = isolatedPythonAvailable() || process.env.CI === 'true';

describe.runIf(run)('python tool: calls run in the sandbox [bubblewrap]', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  const pool = new SandboxPool({ create: () => new BubblewrapSandbox(), size: 2 });
  beforeAll(async () => {
    server = createServer((s) => {
      connections++;
      s.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const call = (code: string, timeoutSeconds = 5) =>
    executeToolCall(toolMap([pythonTool({ pool, timeoutSeconds })]), {
      type: 'function',
      id: 'c1',
      function: { name: 'python', arguments: JSON.stringify({ code }) },
    });

  it('returns what the program prints, and its error and exit status', async () => {
    const ok = await call('print(6 * 7)');
    expect(ok.message.content).toBe('42');
    expect(ok.error).toBeUndefined();
    const bad = await call('print("a")\n1/0');
    expect(bad.message.content).toMatch(/^a\n\nTraceback[\s\S]*ZeroDivisionError[\s\S]*\(exit status 1\)$/);
    expect(bad.metrics).toEqual({ python_tool_failed: 1 });
  });

  it('a subprocess cannot reach a listener on 127.0.0.1; a program past its time is killed', async () => {
    const net = await call(
      `import subprocess, sys\nr = subprocess.run([sys.executable, "-c", "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=2)"])\nprint("status", r.returncode)`,
    );
    expect(net.message.content).toMatch(/status 1/);
    expect(connections).toBe(0);
    const slow = await call('while True: pass', 1);
    expect(slow.message.content).toMatch(/ran longer than 1000 ms[\s\S]*\(exit status -1\)/);
  });
});
