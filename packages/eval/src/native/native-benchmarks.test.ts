/**
 * The native benchmarks build upstream's examples: for every row of every shipped sample, the example id, the
 * messages and the expected answer equal what upstream's own benchmark builder makes of the same row
 * (`__fixtures__/upstream-prompts.json`, from `scripts/upstream-verdicts.py`), except GPQA's choice order (shuffled
 * here on purpose, see `choice-benchmarks.ts`). Also: bad rows, unknown names and the offline error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { gpqa, keyedPermutation } from './choice-benchmarks.js';
import { BOXED_SYSTEM_PROMPT } from './native-benchmark.js';
import { loadNativeBenchmark, NATIVE_BENCHMARKS, readNativeSample } from './registry.js';

interface UpstreamExample {
  id: string;
  messages: Message[];
  expected: string;
}
const upstream = (
  (await import('./__fixtures__/upstream-prompts.json', { with: { type: 'json' } })) as {
    default: { benchmarks: Record<string, UpstreamExample[]> };
  }
).default.benchmarks;

const text = (m: Message) => (typeof m.content === 'string' ? m.content : '');

describe('native benchmarks build upstream examples', () => {
  // The code benchmarks (graded in a sandbox) and IFBench have their own upstream fixtures: code-benchmarks.test.ts,
  // ifbench.test.ts.
  const answerBenchmarks = Object.keys(NATIVE_BENCHMARKS).filter(
    (n) => !NATIVE_BENCHMARKS[n]!.requiresSandbox && n !== 'ifbench',
  );

  it('every registered benchmark has a sample and upstream prompts', () => {
    expect(Object.keys(upstream).sort()).toEqual(answerBenchmarks.sort());
  });

  for (const name of answerBenchmarks) {
    it(`${name}: ids, prompts and answers match upstream`, async () => {
      const b = await loadNativeBenchmark(`${name}:sample`, { systemPrompt: '' });
      const want = new Map(upstream[name]!.map((e) => [e.id, e]));
      expect(b.examples.map((e) => e.id).sort()).toEqual([...want.keys()].sort());
      for (const ex of b.examples) {
        const u = want.get(ex.id)!;
        if (name === 'gpqa') {
          // Same question, instruction and choices; the order is the seeded shuffle, the answer follows its choice.
          const [uq, uChoices, uInstr] = text(u.messages[0]!).split('\n\n');
          const [q, choices, instr] = text(ex.messages[0]!).split('\n\n');
          expect([q, instr]).toEqual([uq, uInstr]);
          const strip = (s: string) => s.split('\n').map((l) => l.slice(4));
          expect(strip(choices!).sort()).toEqual(strip(uChoices!).sort());
          const correctText = strip(uChoices!)[u.expected.charCodeAt(0) - 65];
          expect(strip(choices!)[String(ex.answer).charCodeAt(0) - 65]).toBe(correctText);
          continue;
        }
        expect(ex.messages).toEqual(u.messages);
        expect(ex.answer).toBe(u.expected);
      }
    });
  }

  it('math benchmarks get upstream recommended boxed system prompt unless one is given', async () => {
    const b = await loadNativeBenchmark('aime_2025:sample');
    expect(b.examples[0]!.messages[0]).toEqual({ role: 'system', content: BOXED_SYSTEM_PROMPT });
    const mine = await loadNativeBenchmark('aime:sample', { systemPrompt: 'Be brief.' });
    expect(mine.name).toBe('aime_2025');
    expect(mine.examples[0]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    const mc = await loadNativeBenchmark('mmlu_pro:sample');
    expect(mc.examples[0]!.messages.map((m) => m.role)).toEqual(['user']);
  });

  it('mmlu_redux leaves out rows flagged as erroneous and reports per-subject accuracy', async () => {
    const b = await loadNativeBenchmark('mmlu_redux:sample');
    expect(b.examples).toHaveLength(3);
    const metrics = b.aggregate!(
      b.examples.map((example, i) => ({ example, correct: i !== 1, score: i !== 1 ? 1 : 0 })),
    );
    expect(metrics).toEqual({
      'mmlu_redux/accuracy': 2 / 3,
      'mmlu_redux/astronomy/accuracy': 0.5,
      'mmlu_redux/virology/accuracy': 1,
    });
  });

  it('gpqa shuffles choices by a seed: the same order every run, the correct one not always first', () => {
    expect(keyedPermutation(4, 'k')).toEqual(keyedPermutation(4, 'k'));
    const firsts = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const ex = gpqa.toExample(
        {
          Question: `q${i}`,
          'Correct Answer': 'right',
          'Incorrect Answer 1': 'w1',
          'Incorrect Answer 2': 'w2',
          'Incorrect Answer 3': 'w3',
        },
        { config: undefined, systemPrompt: null },
      )!;
      firsts.add(String(ex.answer));
      expect(ex.choices![String(ex.answer).charCodeAt(0) - 65]).toBe('right');
    }
    expect([...firsts].sort()).toEqual(['A', 'B', 'C', 'D']);
  });

  it('a sample row missing a field is an error naming file, line and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'native-'));
    const path = join(dir, 'gsm8k.jsonl');
    writeFileSync(path, '{"question": "q?", "answer": "#### 1"}\n{"answer": "#### 2"}\n');
    expect(() => readNativeSample(NATIVE_BENCHMARKS.gsm8k!, path, null)).toThrow(
      `${path}:2, field "question": expected a non-empty string`,
    );
    writeFileSync(path, '{"question": ["not", "text"], "answer": "#### 2"}\n');
    expect(() => readNativeSample(NATIVE_BENCHMARKS.gsm8k!, path, null)).toThrow(
      /gsm8k\.jsonl:1, field "question": expected a string, got \["not","text"\]/,
    );
    writeFileSync(path, 'not json\n');
    expect(() => readNativeSample(NATIVE_BENCHMARKS.gsm8k!, path, null)).toThrow(/gsm8k\.jsonl:1: not JSON/);
  });

  it('an unknown name lists the known ones; offline Hub loading says how to run the sample', async () => {
    await expect(loadNativeBenchmark('aime_2099')).rejects.toThrow(
      /unknown native benchmark "aime_2099"; choose one of gsm8k, math500, aime_2025, .*supergpqa, ifbench, mbpp, livecodebench \(append :sample/,
    );
    const offline = (() => Promise.reject(new TypeError('fetch failed'))) as typeof fetch;
    await expect(loadNativeBenchmark('gpqa', { fetch: offline })).rejects.toThrow(
      'cannot load benchmark gpqa from the Hugging Face Hub (Idavidrein/gpqa): gpqa_diamond: the Hub is not reachable (no network?). Offline, run its shipped sample instead: benchmarks=gpqa:sample',
    );
  });

  it('Hub rows upstream would skip are skipped and counted; the rest load per subject config', async () => {
    const lines: string[] = [];
    const rowsFetch = (async (url: URL) => {
      const config = url.searchParams.get('config');
      const rows =
        config === 'anatomy'
          ? [
              { row: { question: 'Q1', choices: ['a', 'b', 'c', 'd'], answer: 1, error_type: 'ok' } },
              { row: { question: '', choices: ['a'], answer: 0, error_type: 'ok' } },
            ]
          : [];
      return new Response(JSON.stringify({ rows, features: [] }));
    }) as unknown as typeof fetch;
    const b = await loadNativeBenchmark('mmlu_redux', { fetch: rowsFetch, log: (l) => lines.push(l) });
    expect(b.examples.map((e) => [e.answer, e.metadata?.subject])).toEqual([['B', 'anatomy']]);
    expect(lines).toEqual([
      'mmlu_redux: 1 rows skipped (first: row 1 of anatomy: field "question": expected a non-empty string)',
    ]);
  });
});
