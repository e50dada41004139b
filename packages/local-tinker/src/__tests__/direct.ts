/** Test helpers: a service on a temp root called directly through `handle` (no HTTP), and its futures. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { ServiceReply, ServiceRequest } from '../http-errors.js';
import { LocalTinkerService, type ProtocolOptions } from '../service.js';
import type { ServiceOptions } from '../service-state.js';

export const MODEL = 'local/qwen3-tiny';

export type Json = Record<string, unknown>;

/** A started service on a fresh temp root; `close()` it when done. */
export async function directService(
  options: Partial<ServiceOptions> & { protocol?: ProtocolOptions } = {},
): Promise<LocalTinkerService> {
  const s = new LocalTinkerService({ root: mkdtempSync(join(tmpdir(), 'lt-test-')), longPollMs: 2_000, ...options });
  await s.init();
  return s;
}

/**
 * {@link directService} for tests that start services: registers an `afterEach` in the calling test file that
 * closes every service the returned function started during the test, in order (`close: { abort: true }` fails
 * their unfinished work instead of waiting for it).
 */
export function servicesClosedAfterEach(close: { abort?: boolean } = {}): typeof directService {
  const started: LocalTinkerService[] = [];
  afterEach(async () => {
    for (const s of started.splice(0)) await s.close(close);
  });
  return async (options) => {
    const s = await directService(options);
    started.push(s);
    return s;
  };
}

export function request(method: string, path: string, body?: unknown, headers: ServiceRequest['headers'] = {}) {
  return { method, path: `/api/v1/${path}`, query: new URLSearchParams(), headers, body } satisfies ServiceRequest;
}

export const json = (r: ServiceReply) => r.json as Json;

/** POST `path` and return the reply. */
export function post(s: LocalTinkerService, path: string, body: unknown): Promise<ServiceReply> {
  return s.handle(request('POST', path, body));
}

/** Poll a future until it is done or failed. */
export async function result(s: LocalTinkerService, requestId: unknown): Promise<Json> {
  for (;;) {
    const r = await post(s, 'retrieve_future', { request_id: requestId });
    if (r.status !== 200) return { status: r.status, ...json(r) };
    if (json(r).type !== 'try_again') return json(r);
  }
}

/** POST a future-returning request and wait for its result (throws on a non-200 submit). */
export async function submitAndWait(s: LocalTinkerService, path: string, body: unknown): Promise<Json> {
  const r = await post(s, path, body);
  if (r.status !== 200) throw new Error(`${path} → ${r.status}: ${JSON.stringify(r.json)}`);
  return result(s, json(r).request_id);
}

/** A session and a trained-nothing-yet LoRA model on `MODEL`. */
export async function sessionAndModel(s: LocalTinkerService, rank = 4): Promise<{ session: string; model: string }> {
  const session = json(await post(s, 'create_session', {})).session_id as string;
  const created = await submitAndWait(s, 'create_model', {
    session_id: session,
    model_seq_id: 0,
    base_model: MODEL,
    lora_config: { rank },
  });
  if (created.model_id === undefined) throw new Error(JSON.stringify(created));
  return { session, model: created.model_id as string };
}

/** A cross-entropy datum over `tokens` (targets shifted by one). */
export function ceDatum(tokens: number[]) {
  return {
    model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] },
    loss_fn_inputs: { target_tokens: { data: tokens.slice(1) }, weights: { data: tokens.slice(1).map(() => 1) } },
  };
}
