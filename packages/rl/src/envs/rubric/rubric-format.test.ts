/**
 * The rubric formats against upstream's own code: the judge prompt, the score extraction, the Prometheus mapping
 * and the seeded data generator, recorded by `scripts/rubric-fixture.py` from upstream's `recipes/rubric/`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Message } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import {
  extractRubricScore,
  makeRubric,
  prometheusDatapoint,
  rubricDatapointToJson,
  rubricGraderPrompt,
} from './rubric-data.js';
import { generateRubricDataset } from './rubric-generate.js';

interface PyRubric {
  rubric_str: string;
  extraction_regex: string;
  grader_output_format_instruction: string;
}
const fixture = JSON.parse(
  readFileSync(new URL('../../__fixtures__/rubric-upstream.json', import.meta.url), 'utf8'),
) as {
  prompts: { rubric: PyRubric; convo: Message[]; prompt: Message[] }[];
  scores: { regex: string; response: string; score: number | string | null }[];
  prometheus: { row: Record<string, string>; datapoint: { convo: Message[]; rubric_items: PyRubric[] } };
  generated: { num_train: number; num_test: number; seed: number; train: string; test: string }[];
  generated_digest: { num_train: number; num_test: number; seed: number; train: string; test: string };
};

const fromPy = (r: PyRubric) =>
  makeRubric(r.rubric_str, {
    extractionRegex: r.extraction_regex,
    graderOutputFormatInstruction: r.grader_output_format_instruction,
  });

describe('rubric formats match upstream', () => {
  it('builds the judge prompt upstream builds (context turns, completion, rubric, instructions)', () => {
    expect(fixture.prompts.length).toBe(6);
    for (const c of fixture.prompts) expect(rubricGraderPrompt(fromPy(c.rubric), c.convo)).toEqual(c.prompt);
  });

  it('reads the score upstream reads: float of the first match, none when no match or no number', () => {
    expect(fixture.scores.length).toBeGreaterThan(60);
    for (const s of fixture.scores) {
      const want =
        s.score === 'inf' ? Number.POSITIVE_INFINITY : s.score === '-inf' ? Number.NEGATIVE_INFINITY : s.score;
      const got = extractRubricScore(makeRubric('x', { extractionRegex: s.regex }), s.response);
      expect({ regex: s.regex, response: s.response, score: got }).toEqual({ ...s, score: want });
    }
  });

  it('maps a Prometheus Feedback-Collection row as upstream does', () => {
    const d = prometheusDatapoint(fixture.prometheus.row);
    expect(d.convo).toEqual(fixture.prometheus.datapoint.convo);
    expect(d.rubricItems).toEqual(fixture.prometheus.datapoint.rubric_items.map(fromPy));
  });

  it('generates upstream’s data files line for line from the same seed', () => {
    for (const g of fixture.generated) {
      const { train, test } = generateRubricDataset({ numTrain: g.num_train, numTest: g.num_test, seed: g.seed });
      const lines = (ds: typeof train) => ds.map((d) => `${rubricDatapointToJson(d)}\n`).join('');
      expect(lines(train)).toBe(g.train);
      expect(lines(test)).toBe(g.test);
    }
    const g = fixture.generated_digest;
    const { train, test } = generateRubricDataset({ numTrain: g.num_train, numTest: g.num_test, seed: g.seed });
    const digest = (ds: typeof train) =>
      createHash('sha256')
        .update(ds.map((d) => `${rubricDatapointToJson(d)}\n`).join(''))
        .digest('hex');
    expect({ train: digest(train), test: digest(test) }).toEqual({ train: g.train, test: g.test });
  });
});
