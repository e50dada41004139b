/**
 * The SandboxFusion client against a tiny fake server on 127.0.0.1: the request upstream's client sends, its success
 * rule, its failure shapes, and its concurrency limit.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxFusionClient, SandboxFusionSandbox } from './sandbox-fusion.js';

interface Seen {
  body: Record<string, unknown>;
}

describe('SandboxFusionClient (fake server on 127.0.0.1)', () => {
  let server: Server;
  let url = '';
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString('utf8');
      });
      req.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        seen.push({ body });
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const code = String(body.code);
        const reply = (status: number, payload: unknown) => {
          inFlight--;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(payload));
        };
        setTimeout(
          () => {
            if (code === 'http500') return reply(500, { detail: 'boom' });
            if (code === 'sandboxerror') return reply(200, { status: 'SandboxError', message: 'no room' });
            if (code === 'fails') {
              return reply(200, {
                status: 'Failed',
                run_result: { status: 'Finished', return_code: 3, stdout: 'partial', stderr: 'Traceback' },
              });
            }
            reply(200, {
              status: 'Success',
              message: '',
              run_result: { status: 'Finished', return_code: 0, stdout: `ran:${code}`, stderr: '' },
            });
          },
          code.startsWith('slow') ? 60 : 0,
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/run_code`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("sends upstream's request: code, language, whole-second run_timeout, base64 files", async () => {
    const client = new SandboxFusionClient({ url });
    const [ok, data] = await client.run('print(1)', { 'a.txt': 'héllo', 'b/c.py': 'x = 1' }, 7.9);
    expect(ok).toBe(true);
    expect(data.run_result?.stdout).toBe('ran:print(1)');
    expect(seen.at(-1)?.body).toEqual({
      code: 'print(1)',
      language: 'python',
      run_timeout: 7,
      files: { 'a.txt': Buffer.from('héllo').toString('base64'), 'b/c.py': Buffer.from('x = 1').toString('base64') },
    });
  });

  it('succeeds only on status "Success"; HTTP errors, SandboxError and transport errors are failures', async () => {
    const client = new SandboxFusionClient({ url });
    expect(await client.run('fails', {}, 5)).toEqual([false, expect.objectContaining({ status: 'Failed' })]);
    const [ok500, d500] = await client.run('http500', {}, 5);
    expect(ok500).toBe(false);
    expect(d500.error).toMatch(/^HTTP 500: .*boom/);
    const [okSe, dSe] = await client.run('sandboxerror', {}, 5);
    expect(okSe).toBe(false);
    expect(dSe.error).toBe('no room');
    const dead = new SandboxFusionClient({ url: 'http://127.0.0.1:1/run_code' });
    const [okDead, dDead] = await dead.run('x', {}, 5);
    expect(okDead).toBe(false);
    expect(dDead.error).toBeTypeOf('string');
  });

  it('keeps at most 4 requests in flight by default', async () => {
    const client = new SandboxFusionClient({ url });
    expect(client.maxConcurrency).toBe(4);
    maxInFlight = 0;
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => client.run(`slow${i}`, {}, 5)));
    expect(all.every(([ok]) => ok)).toBe(true);
    expect(maxInFlight).toBe(4);
  });

  it('reads SANDBOX_URL and rejects a bad concurrency', () => {
    const old = process.env.SANDBOX_URL;
    process.env.SANDBOX_URL = url;
    try {
      expect(new SandboxFusionClient().url).toBe(url);
    } finally {
      if (old === undefined) delete process.env.SANDBOX_URL;
      else process.env.SANDBOX_URL = old;
    }
    expect(() => new SandboxFusionClient({ url, maxConcurrency: 0 })).toThrow(/concurrency .* 1\.\.1024, got 0/);
  });

  it('runs sandbox commands as bash with the stored files; a failure is its exit code', async () => {
    const sb = new SandboxFusionSandbox(new SandboxFusionClient({ url }));
    await sb.writeFile('code.py', 'print(2)');
    const r = await sb.runCommand('python3 code.py', { timeoutMs: 3000 });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'ran:python3 code.py' });
    expect(seen.at(-1)?.body).toMatchObject({ language: 'bash', run_timeout: 3, files: { 'code.py': 'cHJpbnQoMik=' } });
    expect(await sb.runCommand('fails')).toMatchObject({ exitCode: 3, stderr: 'Traceback' });
    expect((await sb.runCommand('http500')).exitCode).toBe(-1);
  });
});
