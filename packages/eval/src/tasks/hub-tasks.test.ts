import { DataError } from '@cookbook/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HUB_BENCHMARKS, loadHubBenchmark, MATH_PROMPT_SUFFIX } from './hub-tasks.js';

const offline = (async () => {
  throw new TypeError('fetch failed', {
    cause: Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }),
  });
}) as typeof fetch;

function rowsFetch(rows: Record<string, unknown>[]): typeof fetch {
  return (async (url: URL) => {
    const offset = Number(url.searchParams.get('offset'));
    const length = Number(url.searchParams.get('length'));
    return new Response(JSON.stringify({ rows: rows.slice(offset, offset + length).map((row) => ({ row })) }));
  }) as typeof fetch;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('Hub benchmarks', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it.each(Object.entries(HUB_BENCHMARKS))(
    '%s fails offline, naming its dataset and the JSONL way out',
    async (name, spec) => {
      const expected = new RegExp(
        `cannot load benchmark ${name} from the Hugging Face Hub \\(${escapeRe(spec.dataset)}\\): the Hub is not reachable ` +
          `\\(no network\\?\\)\\. Offline, give a JSONL task file instead: benchmarks=path/to/${name}\\.jsonl`,
      );
      const run = loadHubBenchmark(name, { fetch: offline });
      await expect(run).rejects.toThrow(DataError);
      await expect(run).rejects.toThrow(expected);
      // HF_HUB_OFFLINE=1: refused before any request.
      vi.stubEnv('HF_HUB_OFFLINE', '1');
      let calls = 0;
      const counting = (async () => {
        calls++;
        throw new Error('unreachable');
      }) as typeof fetch;
      await expect(loadHubBenchmark(name, { fetch: counting })).rejects.toThrow(
        new RegExp(`cannot load benchmark ${name} .*HF_HUB_OFFLINE=1 is set\\. Offline, give a JSONL task file`),
      );
      expect(calls).toBe(0);
    },
  );

  it('fail offline with a message that says how to run from a file', async () => {
    await expect(loadHubBenchmark('gsm8k', { fetch: offline })).rejects.toThrow(
      /cannot load benchmark gsm8k from the Hugging Face Hub \(openai\/gsm8k\): the Hub is not reachable \(no network\?\)\. Offline, give a JSONL task file instead: benchmarks=path\/to\/gsm8k\.jsonl/,
    );
    await expect(loadHubBenchmark('nope')).rejects.toThrow(/unknown Hub benchmark "nope"/);
  });

  it('map rows to examples (gsm8k, mmlu, ifeval) and honour max rows', async () => {
    const gsm = await loadHubBenchmark('gsm8k', {
      fetch: rowsFetch([
        { question: 'Q?', answer: 'steps\n#### 1,234' },
        { question: 'R?', answer: 'no marker' },
      ]),
    });
    expect(gsm).toHaveLength(1);
    expect(gsm[0]).toMatchObject({ id: '0', answer: '1234' });
    const mmlu = await loadHubBenchmark('mmlu', {
      fetch: rowsFetch(
        Array.from({ length: 250 }, (_, i) => ({
          question: `q${i}`,
          choices: ['a', 'b', 'c', 'd'],
          answer: i % 4,
          subject: 's',
        })),
      ),
      maxRows: 120,
    });
    expect(mmlu).toHaveLength(120);
    expect(mmlu[3]).toMatchObject({ answer: 'D', choices: ['a', 'b', 'c', 'd'] });
    const notes: string[] = [];
    const ifeval = await loadHubBenchmark('ifeval', {
      fetch: rowsFetch([
        {
          key: 7,
          prompt: 'p',
          instruction_id_list: ['punctuation:no_comma', 'language:response_language'],
          kwargs: [{}, { language: 'fr' }],
        },
        { key: 8, prompt: 'p', instruction_id_list: ['language:response_language'], kwargs: [{ language: 'de' }] },
      ]),
      log: (l) => notes.push(l),
    });
    expect(ifeval).toEqual([
      {
        id: '7',
        messages: [{ role: 'user', content: 'p' }],
        instructions: [{ id: 'punctuation:no_comma', kwargs: {} }],
        metadata: { instructions_left_out: 1 },
      },
    ]);
    expect(notes).toEqual(['ifeval: 1 rows skipped (no gradable answer or instruction)']);
    // Upstream's IFEval metrics in result.json: strict = all followed, loose = mean fraction followed.
    const samples = [
      { example: ifeval[0]!, correct: true, score: 1 },
      { example: ifeval[0]!, correct: false, score: 0.5 },
    ];
    expect(HUB_BENCHMARKS.ifeval!.aggregate!(samples)).toEqual({
      'ifeval/strict_accuracy': 0.5,
      'ifeval/loose_accuracy': 0.75,
    });
  });

  it('map MATH-500 rows to boxed-math examples (id from unique_id, subject and level kept)', async () => {
    const math = await loadHubBenchmark('math500', {
      fetch: rowsFetch([
        {
          problem: 'Simplify $\\sqrt{50}$.',
          answer: '5\\sqrt{2}',
          subject: 'Algebra',
          level: 2,
          unique_id: 'test/algebra/1.json',
        },
        { problem: 'What is $1+1$?', answer: '2', subject: 'Prealgebra', level: 1 },
      ]),
    });
    expect(math).toEqual([
      {
        id: 'test/algebra/1.json',
        messages: [{ role: 'user', content: `Simplify $\\sqrt{50}$.${MATH_PROMPT_SUFFIX}` }],
        answer: '5\\sqrt{2}',
        metadata: { subject: 'Algebra', level: 2 },
      },
      {
        id: '1',
        messages: [{ role: 'user', content: `What is $1+1$?${MATH_PROMPT_SUFFIX}` }],
        answer: '2',
        metadata: { subject: 'Prealgebra', level: 1 },
      },
    ]);
    expect(HUB_BENCHMARKS.math500?.grader).toBe('math');
    // A row without its problem text is a data error naming the field.
    await expect(loadHubBenchmark('math500', { fetch: rowsFetch([{ answer: '2' }]) })).rejects.toThrow(
      /row 0 has no string field "problem"/,
    );
  });
});
