import { ConfigError, getTextContent, type Message } from '@cookbook/core';
import { getRenderer, getTokenizer } from '@cookbook/renderers';
import { describe, expect, it } from 'vitest';
import type { AgentToolGroupBuilder } from './agent-tool-env.js';
import { type LookupProblem, LookupToolDataset, lookupEnv, lookupProblem } from './lookup-tool-env.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));

/** The key each demonstration looks up, the asked key, and whether the answer is the looked-up value. */
async function demos(rate: number | undefined, groups = 400) {
  const ds = new LookupToolDataset(renderer, groups, 1, 1, 5, {
    declareTools: false,
    ...(rate === undefined ? {} : { demoAskedKeyRate: rate }),
  });
  const out: { asked: string; called: string; answerIsCalledValue: boolean }[] = [];
  for (const b of ds.getBatch(0) as AgentToolGroupBuilder[]) {
    const [conv] = (await b.demonstrations!()) as Message[][];
    const asked = /value of (\w+)\?/.exec(getTextContent(conv!.find((m) => m.role === 'user')!))![1]!;
    const call = conv!.find((m) => m.tool_calls !== undefined)!.tool_calls![0]!;
    const called = (JSON.parse(call.function.arguments) as { key: string }).key;
    const result = conv!.find((m) => m.role === 'tool')!;
    out.push({ asked, called, answerIsCalledValue: getTextContent(conv!.at(-1)!) === getTextContent(result) });
  }
  return out;
}

const share = (xs: { asked: string; called: string }[]) => xs.filter((x) => x.asked === x.called).length / xs.length;

describe('lookup tool task', () => {
  it('demonstrations look up the asked key by default and answer with the value the tool returned', async () => {
    const d = await demos(undefined, 40);
    expect(share(d)).toBe(1);
    expect(d.every((x) => x.answerIsCalledValue)).toBe(true);
  });

  it('demo_asked_key_rate 0: the expert picks keys regardless of the question (about 1 in 4 of 4 keys)', async () => {
    const d = await demos(0);
    expect(share(d)).toBeGreaterThan(0.17);
    expect(share(d)).toBeLessThan(0.33);
    expect(new Set(d.map((x) => x.called)).size).toBe(4);
    expect(d.every((x) => x.answerIsCalledValue)).toBe(true);
  });

  it('demo_asked_key_rate 0.5 looks up the asked key in about 0.5 + 0.5/4 of them; the rate is bounded', async () => {
    const s = share(await demos(0.5));
    expect(s).toBeGreaterThan(0.55);
    expect(s).toBeLessThan(0.7);
    expect(() => new LookupToolDataset(renderer, 1, 1, 1, 0, { demoAskedKeyRate: 1.5 })).toThrow(ConfigError);
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
