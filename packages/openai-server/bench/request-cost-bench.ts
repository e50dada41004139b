/**
 * What the shapes of the request-cost issue cost a served service (`cookbook serve`'s set-up: the Tinker routes and
 * the OpenAI routes on one port), sent at once:
 *   1. JSON bodies of a million elements: `/v1/chat/completions` `messages` = 10^6 numbers, `forward_backward`
 *      `data` = 10^6 numbers and 10^6 `{}`, tokens = 10^6 strings (`costlyRequests`);
 *   2. a protobuf `forward_backward` of 10^6 empty datums (2 MB; sent uncompressed: the count is read after zstd);
 *   3. three streamed completions (n = 32, max_tokens = 4000, a prompt the stand-in continues without an EOS, so
 *      uncancelled each decodes 4000 steps) whose client disconnects after 1 s, then a 4-token chat completion.
 * Prints the peak RSS over the start, healthz latency (p50 / p99 / max, polled every 20 ms), each answer, how long the
 * 4-token request took, how long the service still had work once every client was gone (abandoned work) and the
 * engine's decode steps (one per token position of a batch).
 *
 *   node --conditions=@cookbook/source --import tsx bench/request-cost-bench.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startLocalTinker } from '@cookbook/local-tinker';
import { costlyRequests } from '@cookbook/local-tinker/testing';
import { ServiceClient } from '@cookbook/tinker-client';
import { createOpenAIRoutes } from '../src/routes.js';

const MB = 1024 * 1024;
const root = mkdtempSync(join(tmpdir(), 'request-cost-bench-'));
let baseURL = '';
const routes = createOpenAIRoutes({
  backend: async () => new ServiceClient({ baseURL, warn: () => {} }),
  log: () => {},
});
const service = await startLocalTinker({ root, mounts: [routes], log: () => {} });
baseURL = service.baseURL;
const MODEL = 'local/qwen3-tiny';
const chat = (body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${baseURL}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Count to ten.' }], ...body }),
    ...(signal ? { signal } : {}),
  });
// Warm up: the model and the routes' sampler are loaded before anything is measured, and two large bodies start
// both workers of the body-decoder pool (from source a worker takes seconds to start: tsx compiles its modules).
await (await chat({ max_tokens: 1 })).text();
const warm = costlyRequests(200_000)[0]!;
await Promise.all(
  [0, 1].map(async () => {
    const init = { method: 'POST', headers: warm.headers, body: warm.body };
    await (await fetch(new URL(warm.path, `${baseURL}/api/v1/`), init)).text();
  }),
);

// The bodies are built before anything is measured (building them blocks this process's event loop too).
const costly = [
  ...costlyRequests(1_000_000).filter((c) => !c.name.startsWith('asample')),
  {
    name: '/v1/chat/completions messages = 1000000 numbers',
    path: '../../v1/chat/completions',
    body: new TextEncoder().encode(`{"model":"${MODEL}","messages":[${Array(1_000_000).fill('1').join(',')}]}`),
    headers: { 'Content-Type': 'application/json' },
  },
];
const rss0 = process.memoryUsage().rss;
// How long the event loop (the service's HTTP thread, shared with this bench's client) was held at a time.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
let peak = rss0;
const healthz: number[] = [];
let polling = true;
const poller = (async () => {
  while (polling) {
    const t = performance.now();
    await (await fetch(`${baseURL}/api/v1/healthz`)).text();
    healthz.push(performance.now() - t);
    peak = Math.max(peak, process.memoryUsage().rss);
    await new Promise((r) => setTimeout(r, 20));
  }
})();

const t0 = performance.now();
const steps0 = service.service.decodeSteps;
const answers: string[] = [];
const sendCostly = costly.map(async (c) => {
  const t = performance.now();
  const r = await fetch(new URL(c.path, `${baseURL}/api/v1/`), { method: 'POST', headers: c.headers, body: c.body });
  const text = await r.text();
  answers.push(
    `${c.name} (${(c.body.length / MB).toFixed(1)} MB): ${r.status} in ${(performance.now() - t).toFixed(0)} ms — ${text.slice(0, 90)}`,
  );
});
const abandoned = [0, 1, 2].map(async (i) => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 1000);
  try {
    const r = await fetch(`${baseURL}/v1/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        prompt: 'one two three four five',
        n: 32,
        max_tokens: 4000,
        stream: true,
        seed: i,
      }),
      signal: ac.signal,
    });
    await r.text();
    answers.push(`streamed completion n=32 max_tokens=4000 #${i}: finished before the disconnect`);
  } catch {
    answers.push(`streamed completion n=32 max_tokens=4000 #${i}: client disconnected after 1 s`);
  }
});
await new Promise((r) => setTimeout(r, 1500));
const tSmall = performance.now();
const small = await chat({ max_tokens: 4, seed: 9 });
await small.text();
const smallMs = performance.now() - tSmall;
await Promise.all([...sendCostly, ...abandoned]);
const stepsGone = service.service.decodeSteps - steps0;
const tIdle = performance.now();
// How long the engine stays busy after the disconnect: a 1-token request answered means the queue is clear.
await (await chat({ max_tokens: 1, seed: 10 })).text();
const busyMs = performance.now() - tIdle;
polling = false;
await poller;
loopDelay.disable();
const sorted = [...healthz].sort((a, b) => a - b);
const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(0);
for (const a of answers) console.log(a);
console.log(`peak RSS over the start: ${((peak - rss0) / MB).toFixed(0)} MB`);
console.log(`healthz over ${healthz.length} polls: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`);
console.log(
  `event-loop delay: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms`,
);
console.log(`4-token chat completion sent 1.5 s in: answered in ${smallMs.toFixed(0)} ms (status ${small.status})`);
console.log(
  `a 1-token request after everything returned: ${busyMs.toFixed(0)} ms (it joins the running batch); total ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
// Abandoned work: how long the service still has work once every client is gone (a graceful close waits for it).
const tClose = performance.now();
const CAP_MS = 60_000;
const closed = await Promise.race([
  service.close().then(() => true),
  new Promise<false>((r) => setTimeout(() => r(false), CAP_MS)),
]);
console.log(
  `work left once every client was gone: ${closed ? `${((performance.now() - tClose) / 1000).toFixed(1)} s` : `more than ${CAP_MS / 1000} s (stopped)`}`,
);
console.log(
  `decode steps: ${stepsGone} by the time every client was gone, ${service.service.decodeSteps - steps0} in all (uncancelled, the three streams alone would take 4000 each)`,
);
if (!closed) await service.close({ abort: true });
rmSync(root, { recursive: true, force: true });
process.exit(0);
