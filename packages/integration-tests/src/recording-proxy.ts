/**
 * A recording proxy for protocol tests: sits on 127.0.0.1 between a client and a service, records every request
 * exactly as it travelled (method, path, query, headers, body bytes) and can answer a chosen request itself (a 429)
 * instead of forwarding it. Redirects and protobuf bodies pass through untouched.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedWireRequest } from '@cookbook/tinker-wire';

/** Answer instead of forwarding: return a status and JSON body, or undefined to forward. */
export type Intercept = (r: RecordedWireRequest) => { status: number; json: unknown } | undefined;

export class RecordingProxy {
  readonly requests: RecordedWireRequest[] = [];
  intercept: Intercept = () => undefined;
  private server: Server | undefined;
  url = '';

  constructor(private readonly upstream: string) {}

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const body = new Uint8Array(Buffer.concat(chunks));
        const url = new URL(req.url ?? '/', 'http://x');
        const rec: RecordedWireRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: Object.fromEntries(
            Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
          ),
          body,
        };
        this.requests.push(rec);
        const answer = this.intercept(rec);
        if (answer) {
          res.writeHead(answer.status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(answer.json));
          return;
        }
        const up = new URL(this.upstream);
        const headers = { ...req.headers, host: up.host };
        const fwd = httpRequest(
          { host: up.hostname, port: up.port, method: rec.method, path: req.url, headers },
          (upRes: IncomingMessage) => {
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            upRes.pipe(res);
          },
        );
        fwd.on('error', () => res.destroy());
        fwd.end(Buffer.from(body));
      })();
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
