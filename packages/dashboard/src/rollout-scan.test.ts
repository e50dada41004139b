/**
 * The rollout line scanner against `JSON.parse`: on upstream's fixture lines, on lines as this project's writers
 * write them (token texts, logprobs, escapes, non-ASCII), on hand-made edge cases, and on thousands of seeded
 * mutations of those lines (a byte deleted, inserted, replaced or the line cut) — the scanner must refuse exactly the
 * lines `JSON.parse` refuses and read the same fields from the others.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { type RolloutFields, scanRolloutLine } from './rollout-scan.js';

/** The fields as the index read them before the scanner: `JSON.parse`, then plain property reads. */
function reference(text: string): RolloutFields | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  const steps = Array.isArray(r.steps) ? (r.steps as unknown[]) : [];
  const cut = (s: unknown) => {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return false;
    const logs = (s as Record<string, unknown>).logs;
    if (typeof logs !== 'object' || logs === null || Array.isArray(logs)) return false;
    const l = logs as Record<string, unknown>;
    return l.stop_reason === 'length' || l.truncated === 1 || l.truncated === true;
  };
  return {
    iteration: num(r.iteration),
    group: num(r.group_idx),
    traj: num(r.traj_idx),
    reward: num(r.total_reward),
    rolloutsTotal: num(r.rollouts_total),
    tags: Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === 'string') : [],
    truncation: typeof r.truncation === 'string' ? r.truncation : undefined,
    steps: steps.length,
    stepTruncated: steps.some(cut),
  };
}

const fixtureLines = (() => {
  const run = join(import.meta.dirname, '__fixtures__', 'upstream-run');
  const out: string[] = [];
  for (const d of readdirSync(run)
    .filter((x) => x.startsWith('iteration_'))
    .slice(0, 3)) {
    const text = readFileSync(join(run, d, 'train_rollout_summaries.jsonl'), 'utf8');
    out.push(...text.split('\n').filter((l) => l !== ''));
  }
  return out;
})();

/** Lines as this project's RL loop writes them (text fields, token texts, logprobs, advantage, sampled count). */
const ourLines = [
  JSON.stringify({
    schema_version: 1,
    split: 'train',
    iteration: 7,
    group_idx: 2,
    traj_idx: 1,
    tags: ['arithmetic', 'tool "use"'],
    sampling_client_step: 6,
    total_reward: -0.375,
    final_reward: 0,
    trajectory_metrics: { correct: 0, 'format\\ok': 1 },
    final_ob_len: 12,
    steps: [
      {
        step_idx: 0,
        ob_len: 40,
        ac_len: 3,
        reward: 0.25,
        episode_done: false,
        metrics: {},
        logs: { stop_reason: 'stop' },
        ob_text: '<|im_start|>user\nWhat is 2+2? "quoted" \\ back\tslash é 日本 🙂<|im_end|>',
        ac_text: 'Four. <script>alert(1)</script>',
        ac_token_texts: ['Four', '.', ' <', 'script', '>', '\u0000', '\u001b[31m', ''],
        ac_logprobs: [-0.1, -1.5e-7, -12.25, 0, -3e2, -1, -2, -0.5],
      },
      {
        step_idx: 1,
        ob_len: 5,
        ac_len: 64,
        reward: 1e-3,
        episode_done: true,
        metrics: { x: 1 },
        logs: { truncated: 1 },
      },
    ],
    advantage: 0.625,
    rollouts_total: 512,
  }),
  JSON.stringify({ iteration: 3, truncation: 'max_turns', steps: [{ logs: { truncated: true } }], tags: [] }),
];

const cases: [string, string][] = [
  ['empty object', '{}'],
  ['whitespace around', ' \t{ "iteration" : 4 , "steps" : [ ] }\r '],
  ['escaped key', '{"iter\\u0061tion": 5, "total_\\u0072eward": 0.5}'],
  ['duplicate keys: the last wins', '{"iteration": 1, "iteration": 2, "tags": ["a"], "tags": ["b", 3, "c"]}'],
  [
    'wrong types count as absent',
    '{"iteration": "3", "group_idx": null, "total_reward": [1], "tags": "x", "steps": {}}',
  ],
  ['a later wrong type clears a field', '{"truncation": "length", "truncation": 7}'],
  ['the last logs of a step counts', '{"steps": [{"logs": {"stop_reason": "length"}, "logs": {}}]}'],
  ['a step that is not an object', '{"steps": [1, "x", [], null, {"logs": []}, {"logs": {"truncated": 2}}]}'],
  ['an escaped stop reason', '{"steps": [{"logs": {"stop_reason": "len\\u0067th"}}]}'],
  [
    'numbers of every shape',
    '{"iteration": -0, "group_idx": 12e2, "traj_idx": 1.5E-3, "total_reward": 123456789012345678}',
  ],
  ['a number too large to be finite', '{"total_reward": 1e400}'],
  ['deep nesting', `{"x": ${'['.repeat(5000)}${']'.repeat(5000)}, "iteration": 9}`],
  ['not an object', '[1, 2]'],
  ['a scalar', '42'],
  ['garbage', 'garbage line'],
  ['cut off', '{"iteration": 1, "steps": [{"ob_len": 3'],
  ['trailing text', '{"iteration": 1} x'],
  ['two objects', '{"iteration": 1}{"iteration": 2}'],
  ['a trailing comma', '{"iteration": 1,}'],
  ['a leading zero', '{"iteration": 01}'],
  ['a bare dot', '{"iteration": 1.}'],
  ['a plus sign', '{"iteration": +1}'],
  ['a bad literal', '{"ok": tru}'],
  ['a bad escape', '{"text": "a\\x41"}'],
  ['a short unicode escape', '{"text": "\\u12"}'],
  ['a raw control character', '{"text": "a\tb"}'],
  ['a raw control character in a long string', `{"text": "${'x'.repeat(100)}\u0001${'y'.repeat(100)}"}`],
  ['an escaped quote in a long string', `{"text": "${'x'.repeat(100)}\\"${'y'.repeat(100)}", "iteration": 2}`],
  ['an unterminated string', '{"text": "abc'],
  ['a missing colon', '{"iteration" 1}'],
  ['a key that is not a string', '{iteration: 1}'],
];

const check = (text: string) => {
  expect(scanRolloutLine(Buffer.from(text, 'utf8')), text.slice(0, 200)).toEqual(reference(text));
};

describe('scanRolloutLine', () => {
  it("reads upstream's fixture lines as JSON.parse does", () => {
    expect(fixtureLines.length).toBeGreaterThan(10);
    for (const line of fixtureLines) check(line);
    expect(scanRolloutLine(Buffer.from(fixtureLines[0]!))?.steps).toBe(1);
  });

  it("reads this project's lines as JSON.parse does", () => {
    for (const line of ourLines) check(line);
    expect(scanRolloutLine(Buffer.from(ourLines[0]!))).toEqual({
      iteration: 7,
      group: 2,
      traj: 1,
      reward: -0.375,
      rolloutsTotal: 512,
      tags: ['arithmetic', 'tool "use"'],
      truncation: undefined,
      steps: 2,
      stepTruncated: true,
    });
  });

  it.each(cases)('%s', (_name, text) => check(text));

  it('refuses exactly the mutated lines JSON.parse refuses, and reads the same fields from the rest', () => {
    const next = mulberry32(44);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const inserts = [...'{}[]":,\\ 0-.eE+tfnu1aé\t'].map((c) => Buffer.from(c, 'utf8'));
    const bases = [...fixtureLines.slice(0, 4), ...ourLines, ...cases.map((c) => c[1]).slice(0, 12)].map((l) =>
      Buffer.from(l, 'utf8'),
    );
    let refused = 0;
    for (let n = 0; n < 3000; n++) {
      let b = pick(bases);
      for (let m = 1 + Math.floor(next() * 2); m > 0; m--) {
        const at = Math.floor(next() * (b.length + 1));
        const op = Math.floor(next() * 4);
        if (op === 0) b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
        else if (op === 1) b = Buffer.concat([b.subarray(0, at), pick(inserts), b.subarray(at)]);
        else if (op === 2) b = Buffer.concat([b.subarray(0, at), pick(inserts), b.subarray(at + 1)]);
        else b = b.subarray(0, at);
      }
      const want = reference(b.toString('utf8'));
      if (want === undefined) refused++;
      const got = scanRolloutLine(b);
      if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, b.toString('utf8').slice(0, 300)).toEqual(want);
    }
    // The mutations reach both outcomes often.
    expect(refused).toBeGreaterThan(500);
    expect(refused).toBeLessThan(2750);
  });
});
