/**
 * Test helpers (`@cookbook/local-tinker/testing`): a service root on disk as cache tests need it, finished runs with
 * known sizes and last-use times. Not part of the service; for this package's tests and its dependents' (the CLI).
 */
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DAY = 86_400_000;

/**
 * A new folder (named `<prefix>…` in the temp dir) holding runs `s1:train:0`, `s1:train:1` and `s2:train:0` of 3000,
 * 2000 and 1000 bytes, last used 30, 10 and 2 days before `now` (in `run.json` and in every file's mtime).
 */
export function serviceRootWithRuns(prefix: string, now = Date.now()): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [id, bytes, daysAgo] of [
    ['s1:train:0', 3000, 30],
    ['s1:train:1', 2000, 10],
    ['s2:train:0', 1000, 2],
  ] as const) {
    const used = new Date(now - daysAgo * DAY);
    const run = join(dir, 'runs', encodeURIComponent(id));
    mkdirSync(join(run, 'weights', 'final'), { recursive: true });
    writeFileSync(join(run, 'weights', 'final', 'state.bin'), Buffer.alloc(bytes));
    writeFileSync(
      join(run, 'run.json'),
      JSON.stringify({ training_run_id: id, base_model: 'local/qwen3-tiny', last_request_time: used.toISOString() }),
    );
    for (const p of [
      join(run, 'weights', 'final', 'state.bin'),
      join(run, 'weights', 'final'),
      join(run, 'weights'),
      join(run, 'run.json'),
      run,
    ]) {
      utimesSync(p, used, used);
    }
  }
  return dir;
}

/** One hostile request of a given size: a path under the service, its body and headers. */
export interface CostlyRequest {
  /** What it is, with its size. */
  name: string;
  path: string;
  body: Uint8Array;
  headers: Record<string, string>;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const list = (n: number, item: string) => `[${Array.from({ length: n }, () => item).join(',')}]`;

/**
 * Requests whose size is far below the body limit but whose shape once cost the service far more (a million
 * elements, each refused on its own): `n` numbers as datums, `n` empty objects as datums, `n` strings as tokens, `n`
 * empty protobuf datums, `n` string tokens in a sample prompt and `n` stop strings. Each must get a 4xx at bounded
 * cost (the fuzz test and the request-cost bench send them).
 */
export function costlyRequests(n: number): CostlyRequest[] {
  const json = { 'Content-Type': 'application/json' };
  const fb = (data: string) =>
    utf8(`{"model_id":"m","seq_id":1,"forward_backward_input":{"loss_fn":"cross_entropy","data":${data}}}`);
  const head = [0x0a, 1, 0x6d, 0x22, 13, ...utf8('cross_entropy')];
  const proto = new Uint8Array(head.length + 2 * n);
  proto.set(head);
  for (let i = 0; i < n; i++) proto[head.length + 2 * i] = 0x1a;
  const sample = (prompt: string, params: string) =>
    utf8(`{"base_model":"local/qwen3-tiny","prompt":{"chunks":[{"tokens":${prompt}}]},"sampling_params":${params}}`);
  return [
    { name: `forward_backward data = ${n} numbers`, path: 'forward_backward', body: fb(list(n, '1')), headers: json },
    { name: `forward_backward data = ${n} {}`, path: 'forward_backward', body: fb(list(n, '{}')), headers: json },
    {
      name: `forward_backward tokens = ${n} strings`,
      path: 'forward_backward',
      body: fb(`[{"model_input":{"chunks":[{"tokens":${list(n, '"a"')}}]}}]`),
      headers: json,
    },
    {
      name: `protobuf forward_backward of ${n} empty datums`,
      path: 'forward_backward',
      body: proto,
      headers: { 'Content-Type': 'application/x-protobuf' },
    },
    { name: `asample prompt = ${n} strings`, path: 'asample', body: sample(list(n, '"a"'), '{}'), headers: json },
    {
      name: `asample stop = ${n} strings`,
      path: 'asample',
      body: sample('[1,2]', `{"stop":${list(n, '"a"')}}`),
      headers: json,
    },
  ];
}
