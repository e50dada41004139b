import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import {
  chosenRejected,
  type LabeledComparison,
  labeledComparisonToRecord,
  readComparisonFile,
  swapLabeled,
} from './comparison.js';
import { FORMAT_COMPARISONS_TEST, FORMAT_COMPARISONS_TRAIN } from './shipped-data.js';

const lc: LabeledComparison = {
  comparison: {
    promptConversation: [{ role: 'user', content: 'Hi?' }],
    completionA: [{ role: 'assistant', content: 'Hello.' }],
    completionB: [{ role: 'assistant', content: 'go away' }],
  },
  label: 'A',
};

function file(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pref-'));
  const path = join(dir, 'c.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('comparisons', () => {
  it('swap exchanges the completions and the label; a tie stays a tie', () => {
    const s = swapLabeled(lc);
    expect(s.comparison.completionA).toEqual(lc.comparison.completionB);
    expect(s.label).toBe('B');
    expect(chosenRejected(s)).toEqual(chosenRejected(lc));
    expect(swapLabeled({ ...lc, label: 'Tie' }).label).toBe('Tie');
    expect(chosenRejected({ ...lc, label: 'Tie' })).toBeUndefined();
  });

  it('reads what it writes', () => {
    const path = file([
      JSON.stringify(labeledComparisonToRecord(lc)),
      '',
      JSON.stringify(labeledComparisonToRecord(swapLabeled(lc))),
    ]);
    expect(readComparisonFile(path)).toEqual([lc, swapLabeled(lc)]);
  });

  it.each([
    ['not json', /:1: invalid JSON/],
    ['{"label": "A"}', /:1, field "comparison": missing or not an object/],
    [
      '{"comparison": {"prompt_conversation": [{"role": "user", "content": "q"}], "completion_A": [{"role": "bot", "content": "a"}], "completion_B": [{"role": "assistant", "content": "b"}]}, "label": "A"}',
      /:1, field "comparison.completion_A\[0\].role": unknown role/,
    ],
    [
      '{"comparison": {"prompt_conversation": [{"role": "user", "content": "q"}], "completion_A": [{"role": "assistant", "content": "a"}]}, "label": "A"}',
      /:1, field "comparison.completion_B": expected a list of messages/,
    ],
    [
      '{"comparison": {"prompt_conversation": [{"role": "user", "content": "q"}], "completion_A": [{"role": "assistant", "content": "a"}], "completion_B": [{"role": "assistant", "content": "b"}]}, "label": "C"}',
      /:1, field "label": expected "A", "B" or "Tie", got "C"/,
    ],
  ])('names the file, line and field of a bad row: %s', (line, message) => {
    const path = file([line]);
    expect(() => readComparisonFile(path)).toThrow(DataError);
    expect(() => readComparisonFile(path)).toThrow(message);
  });

  it('names the line of a bad row after good ones', () => {
    const path = file([JSON.stringify(labeledComparisonToRecord(lc)), '{"comparison": 3, "label": "A"}']);
    expect(() => readComparisonFile(path)).toThrow(/c\.jsonl:2, field "comparison"/);
  });

  it('ships a balanced format data set whose held-out questions are unseen in training', () => {
    const train = readComparisonFile(FORMAT_COMPARISONS_TRAIN);
    const test = readComparisonFile(FORMAT_COMPARISONS_TEST);
    expect(train).toHaveLength(400);
    expect(test).toHaveLength(100);
    const q = (c: LabeledComparison) => JSON.stringify(c.comparison.promptConversation);
    const seen = new Set(train.map(q));
    expect(test.filter((c) => seen.has(q(c)))).toEqual([]);
    for (const c of [...train, ...test]) {
      const pair = chosenRejected(c)!;
      expect(pair.chosen[0]!.content).toMatch(/^Answer: \S.*\. Done\.$/);
      expect(pair.rejected[0]!.content).not.toMatch(/^Answer:|Done\.$/);
    }
    const a = train.filter((c) => c.label === 'A').length;
    expect(a).toBeGreaterThan(150);
    expect(a).toBeLessThan(250);
  });
});
