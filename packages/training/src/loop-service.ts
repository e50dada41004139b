/**
 * The service client a loop talks to, contacted before its run folder is touched: a wrong URL, a missing key or a
 * server that is down fails the run with nothing created and no old run deleted (pass `connect` to {@link runLoop}).
 */
import { CookbookError } from '@cookbook/core';
import { ServiceClient, type ServiceClientOptions } from '@cookbook/tinker-client';
import { embeddedServer } from './embedded-server.js';
import type { Closeable, RunConfig } from './run.js';

/** What {@link loopService} returns. */
export interface LoopService<S> {
  /**
   * Creates the client if the caller gave none and opens its session (the client's first contact: short timeouts, a
   * line per retry, a bounded wait). Pass as runLoop's `connect`: it runs before the log dir is created or deleted,
   * and the client it created is closed with the run. A client without `sessionId` (a test double) is not contacted.
   */
  connect(): Promise<Closeable | undefined>;
  /** The client (after `connect`). */
  get(): S;
}

/**
 * The loop's service: `given` (the caller's, which the caller closes), else `create()` (closed with the run).
 * Loops use {@link runService}, which builds the client from the run config; this is for a caller with its own.
 */
export function loopService<S extends object>(given: S | undefined, create: () => S & Closeable): LoopService<S> {
  let service: S | undefined = given;
  return {
    async connect() {
      let created: (S & Closeable) | undefined;
      if (service === undefined) {
        created = create();
        service = created;
      }
      try {
        if ('sessionId' in service && typeof service.sessionId === 'function') await service.sessionId();
      } catch (error) {
        await created?.close();
        service = given;
        throw error;
      }
      return created;
    },
    get() {
      if (service === undefined) {
        throw new CookbookError("loopService: get() was called before connect(); pass connect to runLoop's options");
      }
      return service;
    },
  };
}

/**
 * The service resolver: the one place that picks which Tinker service a client talks to, and the one place that may
 * start the embedded service. In order: `config.baseUrl`; else `TINKER_BASE_URL` (with `TINKER_API_KEY` when set);
 * else the hosted service when `TINKER_API_KEY` is set; else the embedded service (`@cookbook/local-tinker`, an
 * optional peer loaded on demand, started in-process on 127.0.0.1 at the client's first contact and stopped when its
 * last client closes). Nothing is contacted or started until the client's first request.
 * @param clientOptions passed to the ServiceClient (timeouts, `warn`, …); `baseURL` and `server` are this
 *   function's to choose.
 * @example
 * // a library user's one line for a client on whatever is configured, offline by default:
 * const service = serviceClientFor();
 */
export function serviceClientFor(
  config: Partial<Pick<RunConfig, 'baseUrl'>> = {},
  clientOptions: Omit<ServiceClientOptions, 'baseURL' | 'server'> = {},
): ServiceClient {
  if (config.baseUrl) return new ServiceClient({ ...clientOptions, baseURL: config.baseUrl });
  const env = process.env;
  if (env.TINKER_BASE_URL || env.TINKER_API_KEY || clientOptions.apiKey !== undefined) {
    return new ServiceClient(clientOptions);
  }
  return new ServiceClient({ ...clientOptions, server: embeddedServer });
}

/**
 * The run's service: `given` (the caller's, which the caller closes), else a ServiceClient built from the run config
 * ({@link serviceClientFor}; closed with the run). Pass `connect` to `runLoop`.
 * @example
 * const service = runService(deps.serviceClient, config);
 * return runLoop({ ...options, connect: service.connect }, async (run) => { const s = service.get(); … });
 */
export function runService<S extends object>(given: S | undefined, config: Pick<RunConfig, 'baseUrl'>): LoopService<S> {
  return loopService<S>(given, () => serviceClientFor(config) as ServiceClient & S);
}
