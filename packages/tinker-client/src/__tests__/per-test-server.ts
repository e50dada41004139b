/**
 * Test helper: a fresh {@link FakeTinker} for each test of the calling file (started in `beforeEach`; closed in
 * `afterEach`, after every client the test made or handed to `track`), and clients of it with the tests' settings:
 * an API key, near-zero backoff, a heartbeat too slow to fire.
 */
import { afterEach, beforeEach } from 'vitest';
import { ServiceClient, type ServiceClientOptions } from '../service-client.js';
import { FakeTinker } from './fake-server.js';

/** The current test's server and its clients. */
export interface PerTestServer {
  /** This test's server (read inside a test or a hook). */
  readonly server: FakeTinker;
  /** A client of this test's server; `options` override the tests' settings. */
  client(options?: ServiceClientOptions): ServiceClient;
  /** Closes `c` after the test, with the clients `client` made. */
  track(c: ServiceClient): ServiceClient;
}

/** Registers the hooks; `warn` receives the clients' warnings (default: dropped). */
export function fakeTinkerPerTest(warn: (message: string) => void = () => undefined): PerTestServer {
  let server: FakeTinker | undefined;
  let clients: ServiceClient[] = [];
  beforeEach(async () => {
    server = new FakeTinker();
    await server.start();
  });
  afterEach(async () => {
    for (const c of clients) await c.close();
    clients = [];
    await server?.close();
  });
  const current = (): FakeTinker => {
    if (server === undefined) throw new Error('the fake server is started by beforeEach: use it inside a test');
    return server;
  };
  const track = (c: ServiceClient): ServiceClient => {
    clients.push(c);
    return c;
  };
  return {
    get server() {
      return current();
    },
    client: (options = {}) =>
      track(
        new ServiceClient({
          baseURL: current().url,
          apiKey: 'tml-test-secret-key',
          backoffScale: 0.001,
          heartbeatIntervalMs: 60_000,
          warn,
          ...options,
        }),
      ),
    track,
  };
}
