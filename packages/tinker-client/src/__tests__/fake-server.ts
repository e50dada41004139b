/**
 * A scriptable Tinker-protocol server for client tests: binds 127.0.0.1 on a free port, records every request,
 * and lets a test decide each reply (status, body, headers, or a dropped connection).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  decodeForwardBackwardRequest,
  encodeForwardBackwardOutput,
  encodeSampleResponse,
  PROTO_CONTENT_TYPE,
} from '@cookbook/tinker-wire';
import { decompress } from 'fzstd';

const fail = (m: string): never => {
  throw new SyntaxError(m);
};

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** JSON bodies parsed; a protobuf forward_backward decoded to `{forward_backward_input, model_id, seq_id, forward_only}`. */
  body: unknown;
  /** The body as it travelled (compressed when `Content-Encoding: zstd`). */
  raw: Buffer;
  at: number;
}

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  /** A protobuf body. */
  bytes?: Uint8Array;
  headers?: Record<string, string>;
  /** Close the socket without answering (a dropped connection). */
  destroy?: boolean;
  /** Wait this long before answering. */
  delayMs?: number;
}

export type Handler = (req: RecordedRequest) => Reply | Promise<Reply>;

export class FakeTinker {
  readonly requests: RecordedRequest[] = [];
  readonly routes = new Map<string, Handler>();
  /** Scripted retrieve_future replies per request id, consumed in order; then the stored result. */
  readonly futureScripts = new Map<string, Reply[]>();
  readonly results = new Map<string, unknown>();
  private server: Server | undefined;
  private nextRequest = 0;
  url = '';

  constructor() {
    this.routes.set('POST /api/v1/client/config', () => ({ json: {} }));
    this.routes.set('POST /api/v1/create_session', () => ({ json: { type: 'create_session', session_id: 'sess' } }));
    this.routes.set('POST /api/v1/session_heartbeat', () => ({ json: { type: 'session_heartbeat' } }));
    this.routes.set('POST /api/v1/create_model', (r) =>
      this.future({
        model_id: `sess:train:${(r.body as { model_seq_id: number }).model_seq_id}`,
        type: 'create_model',
      }),
    );
    this.routes.set('POST /api/v1/create_sampling_session', (r) => ({
      json: {
        sampling_session_id: `sess:sample:${(r.body as { sampling_session_seq_id: number }).sampling_session_seq_id}`,
      },
    }));
    this.routes.set('POST /api/v1/optim_step', () => this.future({ metrics: { 'grad_norm:mean': 1 } }));
    this.routes.set('POST /api/v1/save_weights', (r) =>
      this.future({ path: `tinker://sess:train:0/weights/${(r.body as { path: string }).path}` }),
    );
    this.routes.set('POST /api/v1/forward_backward', (r) =>
      this.future(this.fwdResult(r.body, 'forward_backward_input'), undefined, 'ForwardBackward'),
    );
    this.routes.set('POST /api/v1/forward', (r) =>
      this.future(this.fwdResult(r.body, 'forward_input'), undefined, 'ForwardBackward'),
    );
    this.routes.set('POST /api/v1/asample', () =>
      this.future(
        { type: 'sample', sequences: [{ stop_reason: 'stop', tokens: [1, 2], logprobs: [-0.5, -0.25] }] },
        undefined,
        'Sample',
      ),
    );
    this.routes.set('POST /api/v1/retrieve_future', (r) => {
      const id = (r.body as { request_id: string }).request_id;
      const script = this.futureScripts.get(id);
      if (script && script.length > 0) return script.shift()!;
      if (!this.results.has(id)) return { status: 404, json: { detail: `unknown request ${id}` } };
      const result = this.results.get(id);
      const kind = this.kinds.get(id);
      if (kind !== undefined && String(r.headers.accept ?? '').includes(PROTO_CONTENT_TYPE)) {
        const bytes =
          kind === 'Sample'
            ? encodeSampleResponse(result as Parameters<typeof encodeSampleResponse>[0])
            : encodeForwardBackwardOutput(result as Parameters<typeof encodeForwardBackwardOutput>[0]);
        return { bytes };
      }
      return { json: result };
    });
  }

  private readonly kinds = new Map<string, 'Sample' | 'ForwardBackward'>();

  /** Register a result and answer with its future; `kind` results go out as protobuf when the poll asks. */
  future(result: unknown, script?: Reply[], kind?: 'Sample' | 'ForwardBackward'): Reply {
    const id = `req-${this.nextRequest++}`;
    this.results.set(id, result);
    if (kind) this.kinds.set(id, kind);
    if (script) this.futureScripts.set(id, [...script]);
    return { json: { request_id: id } };
  }

  /** Default forward(_backward) result: logprobs of −1 per target and a loss:sum metric. */
  fwdResult(body: unknown, key: string): unknown {
    const input = (body as Record<string, { data: { loss_fn_inputs: Record<string, { data: number[] }> }[] }>)[key]!;
    return {
      loss_fn_output_type: 'ArrayRecord',
      loss_fn_outputs: input.data.map((d) => ({
        logprobs: { data: d.loss_fn_inputs.target_tokens!.data.map(() => -1), dtype: 'float32' },
      })),
      metrics: { 'loss:sum': input.data.length, 'tokens:mean': 2 },
    };
  }

  /** Requests to one route, in arrival order. */
  calls(route: string): RecordedRequest[] {
    return this.requests.filter((r) => `${r.method} ${r.path}` === route);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown;
    if (String(req.headers['content-type'] ?? '').includes(PROTO_CONTENT_TYPE)) {
      let bytes: Uint8Array = raw;
      if (req.headers['content-encoding'] === 'zstd') bytes = decompress(raw);
      const decoded = decodeForwardBackwardRequest(bytes, fail);
      body = { ...decoded.body, forward_only: decoded.forwardOnly };
    } else {
      const text = raw.toString('utf8');
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      headers: req.headers,
      body,
      raw,
      at: Date.now(),
    };
    this.requests.push(rec);
    const handler = this.routes.get(`${rec.method} ${rec.path}`);
    const reply: Reply = handler
      ? await handler(rec)
      : { status: 404, json: { detail: `no route ${rec.method} ${rec.path}` } };
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const payload = reply.bytes ?? reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
    res.writeHead(reply.status ?? 200, {
      ...(reply.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(reply.bytes !== undefined ? { 'Content-Type': PROTO_CONTENT_TYPE } : {}),
      ...reply.headers,
    });
    res.end(payload);
  }
}
