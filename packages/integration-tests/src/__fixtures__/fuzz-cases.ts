/**
 * A seeded generator of malformed (and sometimes valid) requests over every route of the Tinker protocol: a valid
 * request per route, then mutations — fields dropped, nulled, retyped, made huge, negative or path-like; bodies
 * replaced by other JSON, deep nesting, invalid JSON, random or bomb-shaped zstd and protobuf bytes; path ids
 * replaced by `..`, malformed percent-escapes and long strings; wrong methods and content types; signed archive
 * downloads with tampered signatures and expiries, traversal segments, and deleted checkpoints.
 */

import { ForwardBackwardRequestProto } from '@cookbook/tinker-wire';
import { mulberry32 } from '@cookbook/core';

/** One request to send. */
export interface FuzzCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  /** What the case is, for failure messages. */
  label: string;
  /** A request that must be refused (a tampered or unsigned download): any 2xx answer is a failure. */
  mustFail?: boolean;
}

/** Ids that exist on the service under test (so mutations also reach deep code paths). */
export interface FuzzIds {
  session: string;
  model: string;
  runId: string;
  sampler: string;
  statePath: string;
  samplerPath: string;
  requestId: string;
  /** A signed archive URL of a saved checkpoint, relative to `/api/v1/` (`_download/<run>/<kind>/<name>?…`). */
  download: string;
  /** A signed archive URL whose checkpoint was deleted since. */
  downloadDeleted: string;
}

/** mulberry32 (`@cookbook/core`'s): the same cases on every run. */
export const rng = mulberry32;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const datum = (n: number): Json => ({
  model_input: { chunks: [{ type: 'encoded_text', tokens: Array.from({ length: n }, (_, i) => 10 + i) }] },
  loss_fn_inputs: {
    target_tokens: { data: Array.from({ length: n }, (_, i) => 11 + i), dtype: 'int64' },
    weights: { data: Array.from({ length: n }, () => 1), dtype: 'float32' },
  },
});

/** A valid request body per route (templates; ids filled in from `ids`). */
function templates(ids: FuzzIds, next: () => number): [string, string, Json | undefined][] {
  const seq = 1000 + Math.floor(next() * 1e6);
  const enc = encodeURIComponent;
  const run = enc(ids.runId);
  return [
    ['POST', 'client/config', { sdk_version: '0.25.0' }],
    ['POST', 'client/dynamic_config', { sdk_version: '0.25.0' }],
    ['POST', 'telemetry', { events: [], platform: 'linux', sdk_version: '0.25.0', session_id: ids.session }],
    ['GET', 'healthz', undefined],
    ['GET', 'get_server_capabilities', undefined],
    ['POST', 'create_session', { tags: ['fuzz'], sdk_version: '0.25.0', user_metadata: { a: 1 } }],
    ['POST', 'session_heartbeat', { session_id: ids.session }],
    [
      'POST',
      'create_model',
      { session_id: ids.session, model_seq_id: seq, base_model: 'local/qwen3-tiny', lora_config: { rank: 2 } },
    ],
    ['POST', 'get_info', { model_id: ids.model }],
    ['POST', 'unload_model', { model_id: `${ids.session}:train:${seq}` }],
    [
      'POST',
      'forward_backward',
      { forward_backward_input: { data: [datum(3)], loss_fn: 'cross_entropy' }, model_id: ids.model },
    ],
    ['POST', 'forward', { forward_input: { data: [datum(2)], loss_fn: 'cross_entropy' }, model_id: ids.model }],
    ['POST', 'optim_step', { adam_params: { learning_rate: 1e-4 }, model_id: ids.model }],
    ['POST', 'save_weights', { model_id: ids.model, path: `f${seq}`, ttl_seconds: 600 }],
    ['POST', 'save_weights_for_sampler', { model_id: ids.model, path: `g${seq}` }],
    ['POST', 'save_weights_for_sampler', { model_id: ids.model, sampling_session_seq_id: seq }],
    ['POST', 'load_weights', { model_id: ids.model, path: ids.statePath, seq_id: 1 }],
    ['POST', 'weights_info', { tinker_path: ids.statePath }],
    [
      'POST',
      'create_sampling_session',
      { session_id: ids.session, sampling_session_seq_id: seq, model_path: ids.samplerPath },
    ],
    [
      'POST',
      'asample',
      {
        num_samples: 2,
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        sampling_params: { max_tokens: 3, temperature: 0.7, top_k: 5, top_p: 0.9, stop: ['x'] },
        sampling_session_id: ids.sampler,
        seq_id: seq,
        prompt_logprobs: true,
        topk_prompt_logprobs: 2,
      },
    ],
    ['POST', 'retrieve_future', { request_id: ids.requestId, allow_metadata_only: false }],
    ['GET', 'training_runs?limit=5&offset=0', undefined],
    ['GET', `training_runs/${run}`, undefined],
    ['GET', `training_runs/${run}/checkpoints`, undefined],
    ['GET', `models/${run}/checkpoints`, undefined],
    ['GET', 'checkpoints?limit=3', undefined],
    ['GET', 'sessions', undefined],
    ['GET', `sessions/${enc(ids.session)}`, undefined],
    ['GET', `samplers/${enc(ids.sampler)}`, undefined],
    ['GET', `training_runs/${run}/checkpoints/weights/s0/archive`, undefined],
    ['POST', `training_runs/${run}/checkpoints/weights/s0/publish`, undefined],
    ['DELETE', `training_runs/${run}/checkpoints/weights/s0/publish`, undefined],
    ['PUT', `training_runs/${run}/checkpoints/weights/s0/ttl`, { ttl_seconds: null }],
    ['DELETE', `training_runs/${run}/checkpoints/sampler_weights/g${seq}`, undefined],
    ['GET', ids.download, undefined],
  ];
}

/**
 * A mutation of a signed archive URL: signature flipped, cut, dropped, doubled or garbage; `expires` moved (the
 * signature covers it), non-numeric or missing; path segments replaced by traversal and malformed escapes, or extra
 * segments; the URL of a deleted checkpoint. Only the untouched URLs may succeed.
 */
function downloadCase(ids: FuzzIds, next: () => number): { path: string; label: string; mustFail: boolean } {
  const [pathPart, query = ''] = ids.download.split('?');
  const params = new URLSearchParams(query);
  const sig = params.get('sig') ?? '';
  const expires = params.get('expires') ?? '';
  const segs = pathPart!.split('/'); // ['_download', run, kind, name]
  const withQuery = (p: string, q: Record<string, string | undefined>) => {
    const qs = Object.entries(q)
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    return qs === '' ? p : `${p}?${qs}`;
  };
  const flip = (s: string, at: number) => `${s.slice(0, at)}${s[at] === '0' ? '1' : '0'}${s.slice(at + 1)}`;
  const mutations: (() => [string, string, boolean])[] = [
    () => [ids.download, 'valid', false],
    () => [ids.downloadDeleted, 'deleted checkpoint', true],
    () => [withQuery(pathPart!, { expires, sig: flip(sig, Math.floor(next() * sig.length)) }), 'flipped sig', true],
    () => [withQuery(pathPart!, { expires, sig: sig.slice(0, Math.floor(next() * sig.length)) }), 'cut sig', true],
    () => [withQuery(pathPart!, { expires }), 'no sig', true],
    () => [withQuery(pathPart!, { expires, sig: '' }), 'empty sig', true],
    () => [withQuery(pathPart!, { expires, sig: sig.toUpperCase() }), 'upper-case sig', sig !== sig.toUpperCase()],
    () => {
      const garbage = pick(next, ['%zz', '%00', 'x'.repeat(5000), '💥', sig + sig]);
      return [withQuery(pathPart!, { expires, sig: garbage }), 'garbage sig', true];
    },
    () => [`${ids.download}&sig=${flip(sig, 0)}`, 'second sig', false],
    () => {
      const moved = pick(next, [
        String(Number(expires) + 1),
        String(Number(expires) + 86_400_000),
        '0',
        '-1',
        'NaN',
        '1e999',
        'Infinity',
        '',
        `${expires}.0`,
        '99999999999999999999999',
      ]);
      return [withQuery(pathPart!, { expires: moved, sig }), `expires=${moved}`, true];
    },
    () => [withQuery(pathPart!, { sig }), 'no expires', true],
    () => {
      const copy = [...segs];
      copy[1 + Math.floor(next() * 3)] = pick(next, [
        '..',
        '.',
        '%2E%2E',
        '..%2F..',
        '%2F',
        '%zz',
        '%E0%A4%A',
        '%00',
        '',
        'x'.repeat(3000),
        'weights',
        'sampler_weights',
        'adapter',
      ]);
      return [withQuery(copy.join('/'), { expires, sig }), `segment ${copy.join('/').slice(0, 60)}`, true];
    },
    () => [
      withQuery(`${pathPart}${pick(next, ['/..', '/../../..', '/adapter', '/', '/%2E%2E%2Fcheckpoint.json'])}`, {
        expires,
        sig,
      }),
      'extra segments',
      true,
    ],
    () => {
      const short = pick(next, ['', '..', '../../etc/passwd', 'a/b', 'a/weights/b/c']);
      return [withQuery(`_download/${short}`, { expires, sig }), 'short path', true];
    },
  ];
  const [path, what, mustFail] = pick(next, mutations)();
  return { path, label: `GET _download (${what})`, mustFail };
}

const pick = <T>(next: () => number, xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;

/** A value of a random kind, often hostile. */
function hostile(next: () => number): Json {
  const makers: (() => Json)[] = [
    () => null,
    () => true,
    () => -1,
    () => 0,
    () => 1e308,
    () => -1e308,
    () => 2 ** 53 + 1,
    () => 2 ** 31,
    () => 0.5,
    () => '',
    () => '..',
    () => '.',
    () => '../../etc',
    () => '%zz',
    () => 'x'.repeat(5000),
    () => '\u0000\uffff💥',
    () => 'tinker://../weights/..',
    () => [],
    () => [1, 2, 3],
    () => ({}),
    () => ({ type: 'image', data: 'AAAA', format: 'png' }),
    () => Array.from({ length: 300 }, () => 2 ** 30),
    () => [1, 2 ** 31],
  ];
  return pick(next, makers)();
}

/** Every [object, key] / [array, index] slot inside `v`. */
function slots(v: Json, out: [Record<string, Json> | Json[], string | number][] = []) {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      out.push([v, i]);
      slots(x, out);
    });
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push([v, k]);
      slots(x, out);
    }
  }
  return out;
}

function mutateJson(body: Json, next: () => number): Json {
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  const all = slots(copy);
  if (all.length === 0) return hostile(next);
  const [holder, key] = pick(next, all);
  const r = next();
  if (r < 0.3 && !Array.isArray(holder)) delete holder[key as string];
  else (holder as Record<string | number, Json>)[key] = hostile(next);
  return copy;
}

function deep(depth: number, open: string, close: string): string {
  return `${open.repeat(depth)}${close.repeat(depth)}`;
}

/** A zstd frame that declares (or RLE-expands to) far more than any body limit. */
function zstdBomb(next: () => number): Uint8Array {
  if (next() < 0.5) return new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 0x40, 0x09, 0x00, 0x08, 0]);
  const out = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58];
  for (let i = 0; i < 200; i++) {
    const h = ((128 * 1024) << 3) | (1 << 1) | (i === 199 ? 1 : 0);
    out.push(h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 0);
  }
  return new Uint8Array(out);
}

function protoBody(ids: FuzzIds, next: () => number): Uint8Array {
  // [1, 2^31] once killed the process: the dense array was allocated before the shape was checked.
  const [rows, cols] = pick(next, [
    [1, 2],
    [1, 2 ** 31],
    [2 ** 16, 2 ** 15],
    [2 ** 31, 2 ** 31],
  ] as const);
  const msg = ForwardBackwardRequestProto.fromObject({
    model_id: next() < 0.8 ? ids.model : 'nope',
    seq_id: Math.floor(next() * 3),
    loss_fn: pick(next, ['cross_entropy', 'ppo', 'nope']),
    data: [
      {
        model_input: [{ encoded_text: { tokens: new Uint8Array(new Int32Array([1, 2]).buffer) } }],
        loss_fn_inputs: {
          target_tokens:
            next() < 0.5
              ? { dense: new Uint8Array(new BigInt64Array([2n, 3n]).buffer), dtype: 2, shape: [2] }
              : {
                  sparse_csr: {
                    values: new Uint8Array(new BigInt64Array([2n]).buffer),
                    crow_indices: new Uint8Array(new BigInt64Array([0n, 1n]).buffer),
                    col_indices: new Uint8Array(new BigInt64Array([0n]).buffer),
                  },
                  dtype: 2,
                  shape: [rows, cols],
                },
          weights: { dense: new Uint8Array(new Float32Array([1, Number.NaN]).buffer), dtype: next() < 0.5 ? 1 : 0 },
        },
      },
    ],
  });
  const bytes = ForwardBackwardRequestProto.encode(msg).finish();
  if (next() < 0.4) {
    const copy = Uint8Array.from(bytes);
    for (let i = 0; i < 4; i++) copy[Math.floor(next() * copy.length)] = Math.floor(next() * 256);
    return next() < 0.5 ? copy : copy.subarray(0, Math.floor(next() * copy.length));
  }
  return bytes;
}

/** `n` cases from `seed`, covering every route of `templates`. */
export function fuzzCases(ids: FuzzIds, seed: number, n: number): FuzzCase[] {
  const next = rng(seed);
  const out: FuzzCase[] = [];
  for (let i = 0; i < n; i++) {
    const all = templates(ids, next);
    // Round-robin over the routes first, so each is covered, then random picks.
    let [method, path, body] = i < all.length * 10 ? all[i % all.length]! : pick(next, all);
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    let raw: string | Uint8Array | undefined = body === undefined ? undefined : JSON.stringify(body);
    let label = `${method} ${path}`;
    const r = next();
    if (path === ids.download) {
      // The signed download has its own mutations (signature, expiry, traversal, deleted checkpoint) and methods.
      const d = downloadCase(ids, next);
      method = next() < 0.9 ? 'GET' : pick(next, ['POST', 'PUT', 'DELETE', 'HEAD']);
      const label = `${method}${d.label.slice(3)}`;
      out.push({ method, path: d.path, headers, body: undefined, label, mustFail: d.mustFail });
      continue;
    }
    if (r < 0.08) {
      label += ' (valid)';
    } else if (r < 0.5 && body !== undefined) {
      raw = JSON.stringify(mutateJson(mutateJson(body, next), next));
      label += ' (mutated fields)';
    } else if (r < 0.6) {
      const bodies: (() => string)[] = [
        () => JSON.stringify(hostile(next)),
        () => deep(Math.floor(next() * 8000), '[', ']'),
        () => `{"tags":${deep(Math.floor(next() * 8000), '{"a":', '}')}}`.replace(/\{"a":\}/g, '{"a":1}'),
        () => '{"unterminated": ',
        () => '\u0000\u0001garbage',
        () => '',
      ];
      raw = pick(next, bodies)();
      label += ' (hostile body)';
    } else if (r < 0.68) {
      headers['Content-Type'] = 'application/x-protobuf';
      raw = protoBody(ids, next);
      path = 'forward_backward';
      method = 'POST';
      label = 'POST forward_backward (protobuf)';
    } else if (r < 0.74) {
      headers['Content-Encoding'] = pick(next, ['zstd', 'gzip', 'br']);
      headers['Content-Type'] = pick(next, ['application/x-protobuf', 'application/json']);
      raw = next() < 0.7 ? zstdBomb(next) : Uint8Array.from({ length: 64 }, () => Math.floor(next() * 256));
      label = `POST ${path} (compressed ${headers['Content-Encoding']})`;
      method = 'POST';
    } else if (r < 0.86) {
      const segs = path.split('/');
      const at = Math.floor(next() * segs.length);
      segs[at] = pick(next, ['..', '.', '%zz', '%E0%A4%A', '%2E%2E', 'x'.repeat(3000), '%00', '..%2F..', '']);
      path = segs.join('/');
      label = `${method} ${path.slice(0, 80)} (mutated path)`;
    } else if (r < 0.92) {
      method = pick(next, ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
      label = `${method} ${path} (method)`;
    } else {
      headers['Content-Type'] = pick(next, ['text/plain', 'application/x-protobuf', 'multipart/form-data']);
      headers['X-Idempotency-Key'] = `fuzz-${Math.floor(next() * 5)}`;
      label += ' (headers)';
    }
    if (method === 'GET' || method === 'HEAD') raw = undefined;
    out.push({ method, path, headers, body: raw, label });
  }
  return out;
}
