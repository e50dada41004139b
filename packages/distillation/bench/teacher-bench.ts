/**
 * Teacher logprob throughput on the embedded service (local/qwen3-tiny as the teacher): prompt tokens scored per
 * second for off-policy top-K targets (`teacherTargets`, K = 20) and for on-policy per-token logprobs
 * (`computeLogprobs`), at 1, 4 and 16 teacher calls in flight. The sequences are arithmetic conversations of the
 * shape the recipes use (≈ 30 tokens each). Figures depend on the machine and its load: report `uptime` with them.
 * Run: pnpm --filter @cookbook/distillation bench   (env: BENCH_SEQUENCES (default 64), BENCH_K (default 20))
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { getRenderer } from '@cookbook/renderers';
import { conversationToDatum } from '@cookbook/supervised';
import { ServiceClient } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { mapLimit } from '../src/internal/concurrency.js';
import { teacherTargets } from '../src/off-policy.js';
import { fullSequence } from '../src/topk.js';

const n = Number(process.env.BENCH_SEQUENCES ?? 64);
const K = Number(process.env.BENCH_K ?? 20);
const model = 'local/qwen3-tiny';
const renderer = getRenderer('qwen3_disable_thinking', getTokenizer(model));
const data = Array.from({ length: n }, (_, i) =>
  conversationToDatum(
    [
      { role: 'user', content: `What is ${i + 3} + ${2 * i + 5}?` },
      { role: 'assistant', content: `${i + 3} + ${2 * i + 5} = ${3 * i + 8}.` },
    ],
    renderer,
    null,
  ),
);
const tokens = data.reduce((a, d) => a + fullSequence(d).length, 0);

const root = mkdtempSync(join(tmpdir(), 'distillation-bench-'));
const server = await startLocalTinker({ port: 0, root: join(root, 'service') });
const service = new ServiceClient({ baseURL: server.baseURL });
try {
  const teacher = await service.createSamplingClient({ baseModel: model });
  await teacher.computeLogprobs(fullSequence(data[0]!)); // load the model before timing
  console.log(`teacher logprobs: ${n} sequences, ${tokens} tokens, teacher ${model}, embedded service`);
  console.log('mode                 in flight   seconds   tokens/s');
  for (const concurrency of [1, 4, 16]) {
    let start = performance.now();
    await teacherTargets(teacher, data, K, concurrency);
    let s = (performance.now() - start) / 1000;
    console.log(
      `top-${K} targets`.padEnd(21) +
        `${concurrency}`.padStart(9) +
        s.toFixed(2).padStart(10) +
        (tokens / s).toFixed(0).padStart(11),
    );
    start = performance.now();
    await mapLimit(data, concurrency, (d) => teacher.computeLogprobs(fullSequence(d)));
    s = (performance.now() - start) / 1000;
    console.log(
      'per-token logprobs'.padEnd(21) +
        `${concurrency}`.padStart(9) +
        s.toFixed(2).padStart(10) +
        (tokens / s).toFixed(0).padStart(11),
    );
  }
} finally {
  await service.close();
  await server.close();
}
