import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startLocalTinker } from '@cookbook/local-tinker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempRoot } from './helpers.js';

const run = promisify(execFile);
let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempRoot());
});
afterEach(async () => {
  await cleanup();
});

describe("training's serviceClientFor with no TINKER_BASE_URL / TINKER_API_KEY", () => {
  it('starts one embedded service on loopback, says so once, and trains through it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, COOKBOOK_LOCAL_TINKER_ROOT: root };
    delete env.TINKER_BASE_URL;
    delete env.TINKER_API_KEY;
    const script = fileURLToPath(new URL('./__fixtures__/embedded-client.ts', import.meta.url));
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=@cookbook/source', '--import', 'tsx', script],
      {
        env,
        timeout: 90_000,
      },
    );
    const exitedAt = Date.now();
    const lines = stdout.trim().split('\n');
    const result = JSON.parse(lines.at(-2)!) as {
      sameServer: boolean;
      url: string;
      loss: number;
      models: string[];
    };
    expect(result.sameServer).toBe(true);
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(result.loss).toBeGreaterThan(0);
    expect(result.models).toContain('local/qwen3-tiny');
    const notices = stderr.split('\n').filter((l) => l.includes('embedded local Tinker service'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(result.url);
    // No forced exit: a library script ends within 1 s of its last close() (it took ~28 s before the embedded
    // service stopped with its last client).
    const { closedAt } = JSON.parse(lines.at(-1)!) as { closedAt: number };
    expect(exitedAt - closedAt).toBeLessThan(1_000);
  });
});

describe('a ServiceClient talking to a service started elsewhere', () => {
  it('ends within 1 s of close(), though the server keeps its keep-alive connections open', async () => {
    const service = await startLocalTinker({ port: 0, root, longPollMs: 2000 });
    try {
      const script = fileURLToPath(new URL('./__fixtures__/remote-client.ts', import.meta.url));
      const { stdout } = await run(
        process.execPath,
        ['--conditions=@cookbook/source', '--import', 'tsx', script, service.baseURL],
        { env: { ...process.env, COOKBOOK_LOCAL_TINKER_ROOT: root }, timeout: 90_000 },
      );
      const exitedAt = Date.now();
      const lines = stdout.trim().split('\n');
      expect(JSON.parse(lines.at(-2)!)).toMatchObject({ tokens: 2 });
      const { closedAt } = JSON.parse(lines.at(-1)!) as { closedAt: number };
      // The server keeps idle keep-alive connections open for 30 s and the client has a session heartbeat: neither
      // may hold the script up.
      expect(exitedAt - closedAt).toBeLessThan(1_000);
    } finally {
      await service.close();
    }
  });
});
