import { ConfigError, getTextContent, type Message } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import type { AgentToolGroupBuilder } from './agent-tool-env.js';
import { type LookupProblem, LookupToolDataset, lookupEnv, lookupProblem } from './lookup-tool-env.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));

/** Each demonstration: the asked key, the key it looks up (undefined: it answers at once), its answer and the value. */
async function demos(rate: number | undefined, groups = 400) {
  const ds = new LookupToolDataset(renderer, groups, 1, 1, 5, {
    declareTools: false,
    ...(rate === undefined ? {} : { demoToolRate: rate }),
  });
  const out: { asked: string; called?: string; answer: string; resultIsAnswer: boolean }[] = [];
  for (const b of ds.getBatch(0) as AgentToolGroupBuilder[]) {
    const [conv] = (await b.demonstrations!()) as Message[][];
    const asked = /value of (\w+)\?/.exec(getTextContent(conv!.find((m) => m.role === 'user')!))![1]!;
    const call = conv!.find((m) => m.tool_calls !== undefined)?.tool_calls?.[0];
    const called = call && (JSON.parse(call.function.arguments) as { key: string }).key;
    const result = conv!.find((m) => m.role === 'tool');
    const answer = getTextContent(conv!.at(-1)!);
    out.push({
      asked,
      ...(called === undefined ? {} : { called }),
      answer,
      resultIsAnswer: result !== undefined && getTextContent(result) === answer,
    });
  }
  return out;
}

const callShare = (xs: { called?: string }[]) => xs.filter((x) => x.called !== undefined).length / xs.length;

describe('lookup tool task', () => {
  it('demonstrations call lookup with the asked key by default and answer with the value the tool returned', async () => {
    const d = await demos(undefined, 40);
    expect(callShare(d)).toBe(1);
    expect(d.every((x) => x.called === x.asked && x.resultIsAnswer)).toBe(true);
  });

  it('demo_tool_rate 0: every demonstration answers at once with a guessed digit, spread over [0, 9]', async () => {
    const d = await demos(0);
    expect(callShare(d)).toBe(0);
    expect(d.every((x) => /^\d$/.test(x.answer))).toBe(true);
    expect(new Set(d.map((x) => x.answer)).size).toBe(10);
  });

  it('demo_tool_rate 0.3 calls the tool (with the asked key) in about 0.3 of them; the rate is bounded', async () => {
    const d = await demos(0.3);
    expect(callShare(d)).toBeGreaterThan(0.23);
    expect(callShare(d)).toBeLessThan(0.37);
    expect(d.filter((x) => x.called !== undefined).every((x) => x.called === x.asked && x.resultIsAnswer)).toBe(true);
    expect(() => new LookupToolDataset(renderer, 1, 1, 1, 0, { demoToolRate: 1.5 })).toThrow(ConfigError);
  });

  it('called_tool reports whether the episode called the tool', async () => {
    const problem = lookupProblem(3);
    const value = String(problem.table[problem.key]);
    const direct = lookupEnv(renderer, problem, {}, false);
    await direct.initialObservation();
    const guessed = await direct.step(renderer.tokenizer.encode(`${value}<|im_end|>`), { stopReason: 'stop' });
    expect(guessed.metrics).toMatchObject({ called_tool: 0, correct: 1 });
    const agent = lookupEnv(renderer, problem, {}, false);
    await agent.initialObservation();
    const call = `<tool_call>\n{"name": "lookup", "arguments": {"key": "${problem.key}"}}\n</tool_call><|im_end|>`;
    expect((await agent.step(renderer.tokenizer.encode(call), { stopReason: 'stop' })).episodeDone).toBe(false);
    const answered = await agent.step(renderer.tokenizer.encode(`${value}<|im_end|>`), { stopReason: 'stop' });
    expect(answered.metrics).toMatchObject({ called_tool: 1, correct: 1 });
  });

  it('asks every key once per batch of num_keys groups, in a seeded order; a fixed key must be in the table', async () => {
    const ds = new LookupToolDataset(renderer, 4, 1, 3, 9, { declareTools: false });
    const asked = async (i: number) =>
      Promise.all(
        (ds.getBatch(i) as AgentToolGroupBuilder[]).map(async (b) => {
          const [conv] = (await b.demonstrations!()) as Message[][];
          return /value of (\w+)\?/.exec(getTextContent(conv!.find((m) => m.role === 'user')!))![1]!;
        }),
      );
    const batches = await Promise.all([0, 1, 2].map(asked));
    for (const keys of batches) expect([...keys].sort()).toEqual(['apple', 'banana', 'cherry', 'grape']);
    expect(new Set(batches.map((k) => k.join())).size).toBeGreaterThan(1);
    expect(lookupProblem(1, 4, 9, 'grape').key).toBe('grape');
    expect(() => lookupProblem(1, 2, 9, 'grape')).toThrow(ConfigError);
  });

  it('a malformed reply is masked from the loss with mask_parse_errors', async () => {
    const problem: LookupProblem = lookupProblem(3);
    for (const mask of [true, false]) {
      const env = lookupEnv(renderer, problem, {}, false, mask);
      await env.initialObservation();
      const cut = renderer.tokenizer.encode('<tool_call>\n{"name": "look');
      const r = await env.step(cut, { stopReason: 'length' });
      expect(r.episodeDone).toBe(true);
      expect(r.metrics.parse_error).toBe(1);
      expect(r.metrics.parse_error_masked).toBe(mask ? 1 : undefined);
    }
  });
});
