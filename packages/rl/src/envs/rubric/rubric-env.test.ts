/**
 * The rubric env's reward follows its judge: a scripted sampling client plays the judge (behind the same message
 * completer the recipe uses), and the rollouts' rewards equal the scores it returns plus the format term. Also the
 * data file's bad inputs.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError, type ModelInput } from '@cookbook/core';
import { getRenderer, type Renderer, TinkerMessageCompleter } from '@cookbook/renderers';
import type { SampleArgs, SampleResponse } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPolicy } from '../../__fixtures__/fakes.js';
import { doGroupRollout } from '../../rollouts.js';
import {
  makeRubric,
  parseRubricJsonl,
  type RubricDatapoint,
  readRubricJsonl,
  rubricGraderPrompt,
} from './rubric-data.js';
import { RubricDataset, RubricGroupBuilder, type RubricNoScore } from './rubric-env.js';

let renderer: Renderer;
let imEnd: number;
let reply: (text: string) => number[];

beforeAll(() => {
  const tok = getTokenizer('local/qwen3-tiny');
  renderer = getRenderer('qwen3_disable_thinking', tok);
  imEnd = tok.convertTokenToId('<|im_end|>')!;
  reply = (text) => [...tok.encode(text), imEnd];
});

/** A judge: answers each prompt with the scripted text for the rubric it names; records the prompts it saw. */
class ScriptedJudge {
  prompts: string[] = [];
  constructor(readonly answer: (prompt: string) => string) {}
  async sample(args: SampleArgs): Promise<SampleResponse> {
    const text = renderer.tokenizer.decode((args.prompt as ModelInput).toInts());
    this.prompts.push(text);
    return { sequences: [{ tokens: reply(this.answer(text)), stopReason: 'stop' }] } as unknown as SampleResponse;
  }
}

const datapoint = (items: string[]): RubricDatapoint => ({
  convo: [{ role: 'user', content: 'What is 2 + 3?' }],
  rubricItems: items.map((s) => makeRubric(s)),
  source: { file: 'data.jsonl', line: 7 },
});

describe('rubric env', () => {
  it('rewards equal the judge’s scores (mean over items) plus 0.1 · (stop sequence − 1)', async () => {
    // Score per (rubric, policy answer): the judge's answer depends on what it is shown.
    const table: Record<string, Record<string, string>> = {
      A: { '5': '<score>0.9</score>', '6': '<score>0.2</score>', '7': 'I cannot tell.' },
      B: { '5': 'ok <score>0.5</score>', '6': '<score>1</score>', '7': '<score>0.25</score>' },
    };
    const judge = new ScriptedJudge((p) => {
      const rubric = /<rubric>\nItem (\w)\n<\/rubric>/.exec(p)?.[1] ?? '';
      const answer = /Chatbot: (\d+)\n<\/completion_to_grade>/.exec(p)?.[1] ?? '';
      return table[rubric]?.[answer] ?? '';
    });
    const missing: RubricNoScore[] = [];
    const builder = new RubricGroupBuilder(datapoint(['Item A', 'Item B']), 4, {
      renderer,
      judge: new TinkerMessageCompleter({ samplingClient: judge, renderer, maxTokens: 16 }),
      onNoScore: (e) => missing.push(e),
    });
    const tok = renderer.tokenizer;
    // The last action is cut before its stop token (truncated): it loses the format term.
    const policy = new ScriptedPolicy([reply('5'), reply('6'), reply('7'), tok.encode('5')]);
    const group = await doGroupRollout(builder, policy);
    const rewards = group.getTotalRewards();
    expect(rewards[0]).toBeCloseTo((0.9 + 0.5) / 2, 12);
    expect(rewards[1]).toBeCloseTo((0.2 + 1) / 2, 12);
    expect(rewards[2]).toBeCloseTo((0 + 0.25) / 2, 12);
    expect(rewards[3]).toBeCloseTo((0.9 + 0.5) / 2 - 0.1, 12);
    const m = group.trajectories_G.map((t) => t.transitions[0]!.metrics);
    expect(m.map((x) => x.format)).toEqual([1, 1, 1, 0]);
    expect(m.map((x) => x.rubric_no_score)).toEqual([0, 0, 0.5, 0]);
    expect(missing.map((e) => [e.itemIndex, e.response])).toEqual([[0, 'I cannot tell.']]);
    // The judge saw upstream's prompt for the conversation plus the policy's reply, rendered as a chat.
    const want = rubricGraderPrompt(makeRubric('Item A'), [
      { role: 'user', content: 'What is 2 + 3?' },
      { role: 'assistant', content: '6' },
    ]);
    expect(judge.prompts).toContain(tok.decode(renderer.buildGenerationPrompt(want).toInts()));
    expect(judge.prompts.length).toBe(8);
  });

  it('the data set serves batches of groups in file order, cycling', () => {
    const ds = new RubricDataset([datapoint(['a']), datapoint(['b']), datapoint(['c'])], 2, 3, 5, {
      renderer,
      judge: { complete: async () => ({ role: 'assistant', content: '' }) },
    });
    expect(ds.length).toBe(5);
    const names = (i: number) =>
      ds.getBatch(i).map((b) => (b as RubricGroupBuilder).datapoint.rubricItems[0]!.rubricStr);
    expect([names(0), names(1)]).toEqual([
      ['a', 'b'],
      ['c', 'a'],
    ]);
  });
});

describe('rubric data: bad input names the file, line and field', () => {
  const good = JSON.stringify({ convo: [{ role: 'user', content: 'hi' }], rubric_items: [{ rubric_str: 'polite?' }] });
  const bad = (line: string) => () => parseRubricJsonl(`${good}\n\n${line}\n`, 'r.jsonl');

  it('fills the defaults of a minimal item', () => {
    const [d] = parseRubricJsonl(good, 'r.jsonl');
    expect(d!.rubricItems[0]).toEqual(makeRubric('polite?'));
    expect(d!.source).toEqual({ file: 'r.jsonl', line: 1 });
  });

  it.each([
    ['missing convo', JSON.stringify({ rubric_items: [{ rubric_str: 'x' }] }), 'r.jsonl:3, field "convo"'],
    [
      'missing rubric_str',
      JSON.stringify({ convo: [{ role: 'user', content: 'q' }], rubric_items: [{ extraction_regex: '(x)' }] }),
      'r.jsonl:3, field "rubric_items[0].rubric_str"',
    ],
    [
      'empty rubric list',
      JSON.stringify({ convo: [{ role: 'user', content: 'q' }], rubric_items: [] }),
      'r.jsonl:3, field "rubric_items": the rubric list is empty',
    ],
    [
      'regex that does not compile',
      JSON.stringify({
        convo: [{ role: 'user', content: 'q' }],
        rubric_items: [{ rubric_str: 'x', extraction_regex: '<score>(.*</score>' }],
      }),
      'r.jsonl:3, field "rubric_items[0].extraction_regex": does not compile',
    ],
    [
      'regex without a capture group',
      JSON.stringify({
        convo: [{ role: 'user', content: 'q' }],
        rubric_items: [{ rubric_str: 'x', extraction_regex: '<score>.*</score>' }],
      }),
      'no capture group',
    ],
    ['invalid JSON', '{"convo": [', 'r.jsonl:3: invalid JSON'],
  ])('%s', (_name, line, message) => {
    expect(bad(line)).toThrow(DataError);
    expect(bad(line)).toThrow(message);
  });

  it('a missing file and an empty file are named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rubric-'));
    expect(() => readRubricJsonl(join(dir, 'none.jsonl'))).toThrow(/none\.jsonl: rubric data file not found/);
    writeFileSync(join(dir, 'empty.jsonl'), '\n');
    expect(() => readRubricJsonl(join(dir, 'empty.jsonl'))).toThrow(/empty\.jsonl: holds no datapoints/);
  });
});
