/**
 * node:http front of the service: body limits, JSON and protobuf bodies, auth, and graceful shutdown.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError, type ServiceReply, type ServiceRequest } from './http-errors.js';
import { DEFAULT_LIMITS, scanJson } from './limits.js';
import { decodeForwardBackwardRequest, encodeResult, wantsProto } from './proto.js';
import { scanForwardBackwardProto } from './proto-scan.js';
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
 * Put `service` on an HTTP server; returns the server, not yet listening. Bodies are bounded by the service's
 * `maxBodyBytes` (before and after zstd decompression) and JSON nesting by `maxJsonDepth`, both before parsing.
 */
export function createHttpServer(
  service: LocalTinkerService,
  options: { maxBodyBytes?: number; mounts?: readonly MountedRoutes[] } = {},
): Server {
  const limit = options.maxBodyBytes ?? service.limits.maxBodyBytes;
  const mounts = options.mounts ?? [];
  const server = createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    let mount: MountedRoutes | undefined;
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://local');
        mount = mounts.find((m) => url.pathname === m.prefix || url.pathname.startsWith(`${m.prefix}/`));
        let raw = await readBody(req, limit);
        const ctype = String(req.headers['content-type'] ?? '');
        const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
        if (encoding.includes('zstd') && raw.length > 0) raw = Buffer.from(decompressZstd(raw, limit));
        else if (encoding !== '' && encoding !== 'identity') {
          throw new HttpError(415, `Content-Encoding "${encoding.slice(0, 40)}" is not supported (use zstd or none)`);
        }
        const request: ServiceRequest = {
          method: req.method ?? 'GET',
          path: url.pathname.replace(/\/+$/, '') || '/',
          query: url.searchParams,
          headers: req.headers,
          body: undefined,
          signal: abort.signal,
        };
        if (raw.length > 0) {
          if (ctype.includes('application/x-protobuf')) {
            request.rawBody = raw;
          } else {
            scanJson(raw, service.limits);
            try {
              request.body = JSON.parse(raw.toString('utf8'));
            } catch (err) {
              throw new HttpError(
                400,
                `request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
              );
            }
          }
        }
        if (mount !== undefined) {
          if (request.rawBody !== undefined) throw new HttpError(415, `${request.path} accepts JSON only`);
          await mount.handle(request, res);
          return;
        }
        let reply: ServiceReply;
        if (request.rawBody !== undefined && request.path === '/api/v1/forward_backward') {
          scanForwardBackwardProto(request.rawBody, service.limits);
          const decoded = decodeForwardBackwardRequest(request.rawBody);
          reply = await service.handle({
            ...request,
            body: decoded.body,
            path: decoded.forwardOnly ? '/api/v1/forward' : request.path,
          });
        } else if (request.rawBody !== undefined) {
          throw new HttpError(415, `${request.path} accepts JSON only`);
        } else {
          reply = await service.handle(request);
        }
        if (request.path === '/api/v1/retrieve_future' && reply.status === 200 && wantsProto(req.headers.accept)) {
          const type = String(req.headers['x-tinker-request-type'] ?? '');
          const encoded = encodeResult(type, reply.json);
          if (encoded) reply = { status: 200, bytes: encoded, contentType: 'application/x-protobuf' };
        }
        send(res, reply);
      } catch (err) {
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
