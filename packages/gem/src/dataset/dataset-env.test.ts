import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { TERMINAL_STATE } from '../core/env.js';
import { make } from '../core/registry.js';
import { MathEnv, normalizeQaAnswer, QaEnv, readJsonlDataset } from './dataset-env.js';

function file(text: string): string {
  const p = join(mkdtempSync(join(tmpdir(), 'gem-ds-')), 'data.jsonl');
  writeFileSync(p, text);
  return p;
}

describe('MathEnv', () => {
  it('grades the last boxed answer with the shared grader and ends the episode', async () => {
    const env = new MathEnv({ dataset: [{ question: 'Half of 1?', answers: ['\\frac{1}{2}'] }] });
    expect((await env.reset()).observation).toBe('Half of 1?');
    const right = await env.step('It is \\boxed{0.5}');
    expect(right).toEqual({
      observation: TERMINAL_STATE,
      reward: 1,
      terminated: true,
      truncated: true,
      info: { correct: true },
    });
    await env.reset();
    expect((await env.step('\\boxed{1/3}')).reward).toBe(0);
    await env.reset();
    expect((await env.step('no box')).reward).toBe(0);
    const strict = new MathEnv({ dataset: [{ question: 'q', answers: ['1'] }], useFormatErrorReward: true });
    await strict.reset();
    expect((await strict.step('1')).reward).toBe(-0.1);
  });

  it('walks a seeded order, reshuffles each epoch, and reset(seed) is reproducible', async () => {
    const dataset = Array.from({ length: 5 }, (_, i) => ({ question: `q${i}`, answers: [String(i)] }));
    const a = new MathEnv({ dataset, seed: 1 });
    const epoch1 = [];
    for (let i = 0; i < 5; i++) epoch1.push((await a.reset()).observation);
    expect([...epoch1].sort()).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
    const b = new MathEnv({ dataset, seed: 1 });
    for (let i = 0; i < 5; i++) expect((await b.reset()).observation).toBe(epoch1[i]);
    const epoch2 = [];
    for (let i = 0; i < 5; i++) epoch2.push((await a.reset()).observation);
    expect([...epoch2].sort()).toEqual([...epoch1].sort());
    expect((await a.reset(42)).observation).toBe((await b.reset(42)).observation);
  });
});

describe('QaEnv', () => {
  it('normalises like SQuAD and matches any gold answer in <answer> tags', async () => {
    expect(normalizeQaAnswer('  The  Eiffel-Tower! ')).toBe('eiffeltower');
    expect(normalizeQaAnswer('an apple, a pear')).toBe('apple pear');
    const env = new QaEnv({ dataset: [{ question: 'Capital of France?', answers: ['Paris', 'City of Paris'] }] });
    expect((await env.reset()).observation).toContain('Question: Capital of France?');
    expect((await env.step('<think>hm</think><answer>x</answer> <answer>the city of paris.</answer>')).reward).toBe(1);
    await env.reset();
    expect((await env.step('Paris')).reward).toBe(0);
    const boxed = new QaEnv({ dataset: [{ question: 'q', answers: ['True'] }], extractor: 'boxed' });
    await boxed.reset();
    expect((await boxed.step('\\boxed{true}')).reward).toBe(1);
  });
});

describe('readJsonlDataset and the jsonl ids', () => {
  it('reads problem/question keys and list answers; math:jsonl makes an env from a path', async () => {
    const p = file('{"problem": "1+1?", "answer": 2}\n\n{"question": "2+2?", "answer": ["4", "four"]}\n');
    expect(readJsonlDataset(p)).toEqual([
      { question: '1+1?', answers: ['2'] },
      { question: '2+2?', answers: ['4', 'four'] },
    ]);
    const env = make('math:jsonl', { path: p, seed: 0 });
    await env.reset(0);
    expect(['1+1?', '2+2?']).toContain((await env.reset()).observation);
  });

  it('names the file, line and field of bad records', () => {
    const p = file('{"problem": "ok", "answer": "1"}\n{"problem": "x"}\n');
    expect(() => readJsonlDataset(p)).toThrow(DataError);
    expect(() => readJsonlDataset(p)).toThrow(`${p}:2, field "answer"`);
    expect(() => readJsonlDataset(file('{"problem": 3, "answer": "1"}'))).toThrow(
      /:1, field "problem": expected a non-empty string/,
    );
    expect(() => readJsonlDataset(file('{oops'))).toThrow(/:1: invalid JSON/);
    expect(() => readJsonlDataset(file('\n'))).toThrow(/no records/);
    expect(() => readJsonlDataset('/nonexistent/gem.jsonl')).toThrow(/cannot read/);
    expect(() => make('math:jsonl')).toThrow(/needs a path option/);
  });
});
