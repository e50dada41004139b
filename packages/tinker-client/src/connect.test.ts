import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { APIConnectionError } from './errors.js';
import { ServiceClient } from './service-client.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
const httpServers: HttpServer[] = [];
afterEach(async () => {
  for (const s of httpServers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A loopback port with nothing listening. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('first contact with a server', () => {
  it('says where it connects at each retry, gives up after a bounded number of attempts, and says what to check', async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const client = new ServiceClient({
      baseURL: `http://127.0.0.1:${port}`,
      backoffScale: 0.01,
      warn: (m) => warnings.push(m),
    });
    const err = await client.sessionId().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(String((err as Error).message)).toMatch(
      new RegExp(
        `^could not reach the Tinker service at http://127\\.0\\.0\\.1:${port} after 5 attempts over \\d+ s \\(.*\\); check the URL \\(TINKER_BASE_URL or base_url\\) and that the server is running`,
      ),
    );
    const retries = warnings.filter((w) => w.startsWith(`cookbook: connecting to http://127.0.0.1:${port} (attempt`));
    expect(retries.map((w) => w.match(/attempt (\d)\/5/)?.[1])).toEqual(['2', '3', '4', '5']);
    await client.close();
  });

  it('does not wait on a server that accepts the connection and never answers longer than its attempts allow', async () => {
    const server = createServer((socket) => sockets.push(socket));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const warnings: string[] = [];
    const client = new ServiceClient({
      baseURL: `http://127.0.0.1:${port}`,
      backoffScale: 0.01,
      connectTimeoutMs: 100,
      connectRetries: 2,
      warn: (m) => warnings.push(m),
    });
    await expect(client.sessionId()).rejects.toThrow(/after 3 attempts over \d+ s \(.*timed out after 100 ms\)/);
    expect(warnings.filter((w) => w.includes('(attempt'))).toHaveLength(2);
    await client.close();
  });
});

describe('a retry burst after the first contact', () => {
  it('prints exactly one line per burst, however many attempts it takes', async () => {
    let failuresLeft = 0;
    const server = createHttpServer((req, res) => {
      const capabilities = req.url?.includes('get_server_capabilities') === true;
      if (capabilities && failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"overloaded"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      // The handshake comes first (client/config, create_session), then the capabilities.
      res.end(
        capabilities
          ? '{"supported_models":[{"model_name":"m"}]}'
          : req.url?.includes('create_session')
            ? '{"session_id":"s"}'
            : '{}',
      );
    });
    httpServers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const warnings: string[] = [];
    const client = new ServiceClient({
      baseURL: `http://127.0.0.1:${port}`,
      backoffScale: 0.001,
      maxRetries: 5,
      warn: (m) => warnings.push(m),
    });
    failuresLeft = 4;
    expect((await client.getServerCapabilities()).supportedModels).toEqual([{ modelName: 'm' }]);
    failuresLeft = 3;
    await client.getServerCapabilities();
    const bursts = warnings.filter((w) => w.includes('get_server_capabilities'));
    expect(bursts).toHaveLength(2);
    expect(bursts[0]).toMatch(
      /^cookbook: GET \/api\/v1\/get_server_capabilities failed \(.*503.*\); retrying up to 5 times$/,
    );
    await client.close();
  });
});
