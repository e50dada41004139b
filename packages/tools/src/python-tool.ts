/**
 * A code-interpreter tool (upstream's sandboxed tools): the model calls `python` with a program; it runs in a fresh
 * `@cookbook/sandbox` sandbox from the caller's pool (by default the local bubblewrap one: no network, only its own
 * folder, CPU/memory/process/file/output limits, nothing left running) and the model reads its stdout, its stderr and
 * its exit status. The executor's timeout aborts the run (the sandbox kills every process of it).
 */
import type { SandboxPool } from '@cookbook/sandbox';
import { z } from 'zod';
import { defineTool, type Tool } from './define-tool.js';

/** Options of {@link pythonTool}. */
export interface PythonToolOptions {
  /** The sandboxes the calls run in (`createSandboxPool('bubblewrap', n)`). */
  pool: SandboxPool;
  /** Seconds a program may run. Default 10. */
  timeoutSeconds?: number;
  /** Characters of output the model sees. Default 4000. */
  maxOutputChars?: number;
  /** The interpreter inside the sandbox. Default `python3`. */
  python?: string;
}

/** The largest program accepted, characters. */
export const MAX_PYTHON_TOOL_CODE_CHARS = 100_000;

const parameters = z.object({
  code: z.string().max(MAX_PYTHON_TOOL_CODE_CHARS).describe('A Python 3 program; what it prints is returned'),
});

/** A `python` tool whose calls run in the pool's sandboxes. */
export function pythonTool(options: PythonToolOptions): Tool<typeof parameters> {
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  const maxOutputChars = options.maxOutputChars ?? 4000;
  const python = options.python ?? 'python3';
  return defineTool({
    name: 'python',
    description: 'Run a Python 3 program in a sandbox (no network, no files but its own) and return its output',
    parameters,
    // The executor's deadline sits a little past the sandbox's, so the sandbox's own timeout message is what shows.
    timeoutSeconds: timeoutSeconds + 5,
    maxOutputChars,
    run: async ({ code }, { signal }) => {
      const r = await options.pool.run(
        async (sandbox, poolSignal) => {
          await sandbox.writeFile('main.py', code);
          return sandbox.runCommand(`${python} main.py`, {
            timeoutMs: timeoutSeconds * 1000,
            maxOutputBytes: maxOutputChars * 4,
            signal: poolSignal,
          });
        },
        { signal },
      );
      const parts = [r.stdout];
      if (r.stderr !== '') parts.push(r.stderr);
      if (r.exitCode !== 0) parts.push(`(exit status ${r.exitCode})`);
      return { content: parts.join('\n').trim(), metrics: { python_tool_failed: r.exitCode === 0 ? 0 : 1 } };
    },
  });
}
