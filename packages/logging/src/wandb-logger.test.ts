import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collector, useTempDir } from './__fixtures__/test-utils.js';
import { setupLogging } from './metrics-logger.js';

interface Received {
  url: string;
  auth: string | undefined;
  body: Record<string, unknown>;
}

const tmp = useTempDir();
let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))),
  );
  servers = [];
});

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => handler(req, body, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function train(logDir: string, baseUrl: string, warn = collector()) {
  const logger = setupLogging({
    logDir,
    console: false,
    wandbProject: 'proj',
    wandbName: 'my-run',
    config: { lr: 0.001 },
    env: { WANDB_API_KEY: 'secret-key', WANDB_BASE_URL: baseUrl },
    warn,
  });
  return { logger, warn };
}

describe('W&B sink', () => {
  it('sends the run config and history rows to an accepting server', async () => {
    const received: Received[] = [];
    const url = await serve((req, body, res) => {
      received.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(body) });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/graphql') {
        res.end(
          JSON.stringify({
            data: {
              upsertBucket: {
                bucket: { id: 'UnVuOjE=', name: 'abc', project: { name: 'proj', entity: { name: 'me' } } },
              },
            },
          }),
        );
      } else {
        res.end('{}');
      }
    });
    const { logger, warn } = train(tmp(), url);
    for (let step = 0; step < 5; step++) logger.logMetrics({ 'train/loss': 1 / (step + 1), tag: 'x' }, step);
    await logger.close();
    expect(warn.text()).toBe('');
    expect(received.every((r) => r.auth === `Basic ${Buffer.from('api:secret-key').toString('base64')}`)).toBe(true);
    const gql = received.filter((r) => r.url === '/graphql');
    expect(gql[0]?.body.variables).toMatchObject({
      project: 'proj',
      displayName: 'my-run',
      config: '{"lr":{"desc":null,"value":0.001}}',
    });
    const stream = received.filter((r) => r.url === '/files/me/proj/abc/file_stream');
    const history = stream.flatMap((r) => {
      const files = r.body.files as Record<string, { content: string[] }> | undefined;
      return (files?.['wandb-history.jsonl']?.content ?? []).map((line) => JSON.parse(line) as Record<string, unknown>);
    });
    expect(history.map((h) => h._step)).toEqual([0, 1, 2, 3, 4]);
    expect(history[1]).toMatchObject({ 'train/loss': 0.5, tag: 'x' });
    expect(stream.at(-1)?.body).toEqual({ complete: true, exitcode: 0 });
    expect(readFileSync(join(tmp(), 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);
  });

  it('keeps training when the server answers 500, warning exactly once', async () => {
    let calls = 0;
    const url = await serve((_req, _body, res) => {
      calls++;
      res.statusCode = 500;
      res.end('boom');
    });
    const { logger, warn } = train(tmp(), url);
    for (let step = 0; step < 20; step++) {
      logger.logMetrics({ loss: step }, step);
      await new Promise((r) => setTimeout(r, 1));
    }
    await logger.close();
    expect(warn.text().trim().split('\n')).toHaveLength(1);
    expect(warn.text()).toMatch(/^warning: Weights & Biases logging failed \(HTTP 500/);
    expect(warn.text()).not.toContain('secret-key');
    expect(calls).toBe(1);
    expect(readFileSync(join(tmp(), 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(20);
  });

  it('keeps training when the connection is refused, warning exactly once', async () => {
    const url = await serve((_req, _body, res) => res.end());
    const server = servers[0];
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const { logger, warn } = train(tmp(), url);
    for (let step = 0; step < 10; step++) logger.logMetrics({ loss: step }, step);
    await new Promise((r) => setTimeout(r, 50));
    for (let step = 10; step < 20; step++) logger.logMetrics({ loss: step }, step);
    await logger.close();
    expect(warn.text().trim().split('\n')).toHaveLength(1);
    expect(warn.text()).toMatch(/Weights & Biases logging failed/);
    expect(readFileSync(join(tmp(), 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(20);
  });
});
