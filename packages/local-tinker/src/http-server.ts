/**
 * node:http front of the service: body limits, JSON and protobuf bodies, auth, and graceful shutdown.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DecodeTask, decodeBody, ROUTE_CHECKS } from './body-decode.js';
import { type BodyDecoderPool, sharedBodyDecoderPool } from './body-decoder-pool.js';
import { HttpError, markChecked, type ServiceReply, type ServiceRequest } from './http-errors.js';
import { DEFAULT_LIMITS } from './limits.js';
import { encodeResult, wantsProto } from './proto.js';
import type { LocalTinkerService } from './service.js';
import { decompressZstd } from './zstd.js';

/**
 * Routes mounted beside the Tinker routes on the same server (how `cookbook serve` adds its OpenAI-compatible API).
 * The HTTP layer reads the body under the service's limits (`maxBodyBytes` before and after decompression,
 * `maxJsonDepth`) and parses it as JSON; the routes do their own auth and write the reply themselves (they may stream).
 */
export interface MountedRoutes {
  /** The path prefix the routes own, e.g. `/v1`: a request whose path is it or starts with it + `/`. */
  prefix: string;
  /** Answer one request (JSON body parsed, or undefined when empty). Writes `res`, streaming or not. */
  handle(request: ServiceRequest, res: ServerResponse): Promise<void>;
  /** The JSON body of an error the HTTP layer raises before `handle` (413 too large, 400 bad JSON, 415, 500). */
  errorBody(status: number, message: string): unknown;
}

/** Default largest accepted request body (`DEFAULT_LIMITS.maxBodyBytes`). */
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_LIMITS.maxBodyBytes;

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit)
    throw new HttpError(
      413,
      `request body of ${declared} bytes exceeds this service's limit of ${limit} bytes (cookbook serve max_body_mb=…)`,
    );
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) {
      throw new HttpError(
        413,
        `request body exceeds this service's limit of ${limit} bytes (cookbook serve max_body_mb=…)`,
      );
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, reply: ServiceReply): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { ...reply.headers };
  let payload: Uint8Array | string = '';
  if (reply.bytes !== undefined) {
    payload = reply.bytes;
    headers['Content-Type'] = reply.contentType ?? 'application/octet-stream';
  } else if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['Content-Type'] = 'application/json';
  }
  headers['Content-Length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/**
 * Bodies of at least this many bytes (after a small zstd frame is opened) are decoded in the decoder pool, off the
 * thread that answers every client. Measured on the body the routes find costliest per byte (a forward_backward
 * whose datums are all refused, so the schema reports each): 64 KiB of them took 230–260 ms, 16 KiB 11–18 ms; a round
 * trip to a worker costs about 0.5 ms. A valid 16 KiB forward_backward decodes in under half a millisecond.
 */
export const DEFAULT_DECODE_THRESHOLD_BYTES = 16 * 1024;

/** zstd bodies shorter than this are decompressed on the HTTP thread (then sent to the pool if large). */
const SMALL_ZSTD_BYTES = 4096;

/** Options of {@link createHttpServer}. */
export interface HttpServerOptions {
  /** Largest request body, bytes. Default the service's `maxBodyBytes`. */
  maxBodyBytes?: number;
  mounts?: readonly MountedRoutes[];
  /** Bodies this large or larger are decoded in `decodePool`. Default {@link DEFAULT_DECODE_THRESHOLD_BYTES}. */
  decodeThresholdBytes?: number;
  /** The pool that decodes large bodies (the caller closes it). Default: the process's shared pool of 2 workers. */
  decodePool?: BodyDecoderPool;
}

/**
 * Put `service` on an HTTP server; returns the server, not yet listening. Bodies are bounded by the service's
 * `maxBodyBytes` (before and after zstd decompression) and JSON nesting by `maxJsonDepth`, both before parsing; large
 * bodies are decoded and validated in worker threads (`BodyDecoderPool`), so the server keeps answering meanwhile.
 */
export function createHttpServer(service: LocalTinkerService, options: HttpServerOptions = {}): Server {
  const limit = options.maxBodyBytes ?? service.limits.maxBodyBytes;
  const mounts = options.mounts ?? [];
  const threshold = options.decodeThresholdBytes ?? DEFAULT_DECODE_THRESHOLD_BYTES;
  const pool = (): BodyDecoderPool => options.decodePool ?? sharedBodyDecoderPool();
  const server = createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    let mount: MountedRoutes | undefined;
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://local');
        mount = mounts.find((m) => url.pathname === m.prefix || url.pathname.startsWith(`${m.prefix}/`));
        let raw: Uint8Array = await readBody(req, limit);
        const ctype = String(req.headers['content-type'] ?? '');
        const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
        let zstd = encoding.includes('zstd') && raw.length > 0;
        if (!zstd && encoding !== '' && encoding !== 'identity') {
          throw new HttpError(415, `Content-Encoding "${encoding.slice(0, 40)}" is not supported (use zstd or none)`);
        }
        // A small zstd frame is opened here; a large body (before or after that) is decoded in the pool.
        if (zstd && raw.length < SMALL_ZSTD_BYTES) {
          raw = decompressZstd(raw, limit);
          zstd = false;
        }
        const task: DecodeTask = {
          bytes: raw,
          zstd,
          proto: ctype.includes('application/x-protobuf'),
          method: req.method ?? 'GET',
          path: url.pathname.replace(/\/+$/, '') || '/',
          mounted: mount !== undefined,
          limits: limit === service.limits.maxBodyBytes ? service.limits : { ...service.limits, maxBodyBytes: limit },
        };
        const outcome = zstd || raw.length >= threshold ? await pool().decode(task, abort.signal) : decodeBody(task);
        if (!outcome.ok) throw new HttpError(outcome.status, outcome.message);
        const { body, checked, refusal } = outcome;
        if (checked !== undefined && typeof body === 'object' && body !== null) {
          const refused = refusal === undefined ? undefined : new HttpError(refusal.status, refusal.message);
          markChecked(body, ROUTE_CHECKS[checked]!.schema, refused);
        }
        const request: ServiceRequest = {
          method: task.method,
          path: task.path,
          query: url.searchParams,
          headers: req.headers,
          body,
          signal: abort.signal,
        };
        if (mount !== undefined) {
          await mount.handle(request, res);
          return;
        }
        // A protobuf forward-only request is routed as forward.
        let reply = await service.handle(outcome.path === request.path ? request : { ...request, path: outcome.path });
        if (request.path === '/api/v1/retrieve_future' && reply.status === 200 && wantsProto(req.headers.accept)) {
          const type = String(req.headers['x-tinker-request-type'] ?? '');
          const encoded = encodeResult(type, reply.json);
          if (encoded) reply = { status: 200, bytes: encoded, contentType: 'application/x-protobuf' };
        }
        send(res, reply);
      } catch (err) {
        // The client went away while its body was decoding: nobody to answer.
        if (abort.signal.aborted && err === abort.signal.reason) return;
        const errorJson = (status: number, message: string) =>
          mount !== undefined ? mount.errorBody(status, message) : { detail: message };
        if (err instanceof HttpError) send(res, { status: err.status, json: errorJson(err.status, err.message) });
        else {
          console.error(`local-tinker: internal error on ${req.method} ${req.url}:`, err);
          if (res.headersSent && !res.writableEnded) res.destroy();
          send(res, { status: 500, json: errorJson(500, 'internal error (logged by the service)') });
        }
      }
    })();
  });
  server.keepAliveTimeout = 30_000;
  return server;
}

/** Listen on host:port and return the bound base URL. */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${h}:${addr.port}`;
}
