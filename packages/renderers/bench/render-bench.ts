/**
 * Render + tokenize throughput on a generated conversation corpus, against plain encoding of the same text.
 * Prints one line per figure. Run: pnpm --filter @cookbook/renderers bench
 */
import type { Message } from '@cookbook/core';
import { getTokenizer } from '@cookbook/tokenizers';
import { getRenderer } from '../src/index.js';

const WORDS =
  'the model learns to answer questions about weather, code, maths and history in short clear sentences; émigré naïve 東京 😀'.split(
    ' ',
  );

function corpus(n: number, seed = 1): Message[][] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const sentence = (len: number) =>
    Array.from({ length: len }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  return Array.from({ length: n }, () => {
    const msgs: Message[] = [{ role: 'system', content: sentence(12) }];
    const turns = 1 + Math.floor(rand() * 4);
    for (let t = 0; t < turns; t++) {
      msgs.push({ role: 'user', content: sentence(10 + Math.floor(rand() * 40)) });
      msgs.push({ role: 'assistant', content: sentence(20 + Math.floor(rand() * 80)) });
    }
    return msgs;
  });
}

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, (performance.now() - t0) / 1000];
}

const N = Number(process.env.BENCH_CONVERSATIONS ?? 1000);
const convs = corpus(N);
const [tok, loadS] = time(() => getTokenizer('Qwen/Qwen3-8B'));
console.log(`tokenizer load (Qwen3): ${(loadS * 1000).toFixed(0)} ms`);

for (const name of ['qwen3', 'llama3', 'role_colon']) {
  const t = name === 'llama3' || name === 'role_colon' ? getTokenizer('meta-llama/Llama-3.1-8B-Instruct') : tok;
  const r = getRenderer(name, t);
  for (const c of convs.slice(0, 20)) r.buildSupervisedExample(c); // warm-up
  const texts = convs.map((c) => t.decode(r.buildSupervisedExample(c).modelInput.toInts()));
  const [plainTokens, plainS] = time(() => texts.reduce((n, s) => n + t.encode(s).length, 0));
  const [sftTokens, sftS] = time(() => convs.reduce((n, c) => n + r.buildSupervisedExample(c).modelInput.length, 0));
  const [genTokens, genS] = time(() => convs.reduce((n, c) => n + r.buildGenerationPrompt(c.slice(0, -1)).length, 0));
  console.log(`${name}: plain encode of the rendered text: ${(plainTokens / plainS / 1000).toFixed(1)}k tokens/s`);
  console.log(
    `${name}: buildSupervisedExample: ${(sftTokens / sftS / 1000).toFixed(1)}k tokens/s, ${(N / sftS).toFixed(0)} conversations/s (${((sftTokens / sftS / (plainTokens / plainS)) * 100).toFixed(0)}% of plain)`,
  );
  console.log(
    `${name}: buildGenerationPrompt: ${(genTokens / genS / 1000).toFixed(1)}k tokens/s, ${(N / genS).toFixed(0)} conversations/s`,
  );
}
