/**
 * IFBench (`allenai/IFBench_test`, train split, 300 prompts): instruction following with 58 checker types beyond
 * IFEval's, graded as upstream's benchmark grades it — each instruction's checker built from its kwargs (nulls
 * dropped) and run on the reply; an instruction id IFBench does not know fails; a checker that raises while checking
 * fails; `correct` = every instruction followed (upstream's reward and strict accuracy), `score` = the fraction
 * followed (upstream's loose accuracy). The prompt is the user turn alone (upstream sends no system prompt).
 *
 * The checkers are `ifbench-checkers.ts`. An example with an instruction whose checker is not ported
 * (`words:start_verb`, which needs NLTK's tagger model) is graded as an error naming it: counted in `num_errors`, and
 * `ifbench/unported_examples` counts such examples; its score is never guessed.
 */
import { DataError } from '@cookbook/core';
import type { BenchmarkExample } from '../benchmark.js';
import { IFBENCH_CHECKERS, type IfbenchKwargs, UNPORTED_CHECKERS } from './ifbench-checkers.js';
import {
  buildMessages,
  makeExampleId,
  type NativeBenchmarkSpec,
  RowError,
  requiredString,
  stringListField,
  UPSTREAM_DEFAULTS,
} from './native-benchmark.js';

/** An example uses a checker this package has not ported: the sample is an error, not a verdict. */
export class UnportedCheckerError extends DataError {
  override name = 'UnportedCheckerError';
}

/** Upstream's `parse_kwargs`: each entry a dict, a JSON string of one (else {}), or null ({}); padded to the ids. */
export function parseIfbenchKwargs(raw: unknown, count: number): Record<string, unknown>[] {
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) {
    throw new RowError('kwargs', `a list of kwargs, got ${JSON.stringify(raw).slice(0, 60)}`);
  }
  const out: Record<string, unknown>[] = [];
  for (const kw of raw ?? []) {
    let value: unknown = kw;
    if (typeof kw === 'string') {
      try {
        value = JSON.parse(kw);
      } catch {
        value = {};
      }
    }
    out.push(
      typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {},
    );
  }
  while (out.length < count) out.push({});
  return out;
}

/** Upstream's verdicts on one reply: per instruction, followed or not; throws for an unported checker. */
export function checkIfbench(
  response: string,
  instructionIds: readonly string[],
  kwargsList: readonly Record<string, unknown>[],
): boolean[] {
  const unported = instructionIds.filter((id) => UNPORTED_CHECKERS.includes(id));
  if (unported.length > 0) {
    throw new UnportedCheckerError(
      `IFBench checker ${[...new Set(unported)].join(', ')} is not ported (it needs NLTK's tagger model); ` +
        'this example is counted as an error',
    );
  }
  return instructionIds.map((id, i) => {
    const make = Object.hasOwn(IFBENCH_CHECKERS, id) ? IFBENCH_CHECKERS[id] : undefined;
    if (make === undefined) return false;
    const kwargs: IfbenchKwargs = Object.fromEntries(
      Object.entries(kwargsList[i] ?? {}).filter(([, v]) => v !== null && v !== undefined),
    );
    const check = make(kwargs); // a kwarg error is the example's error, as upstream's build_description raising is
    try {
      return check(response);
    } catch {
      return false;
    }
  });
}

function idsOf(example: BenchmarkExample): string[] {
  const v = example.metadata?.instruction_ids;
  return Array.isArray(v) ? v.map(String) : [];
}

/** IFBench (`allenai/IFBench_test`, train). */
export const ifbench: NativeBenchmarkSpec = {
  name: 'ifbench',
  description: 'IFBench instruction following (58 checker types); strict = all instructions followed',
  dataset: 'allenai/IFBench_test',
  split: 'train',
  metric: 'strict accuracy (all instructions followed), plus ifbench/loose_accuracy',
  defaults: UPSTREAM_DEFAULTS,
  toExample(row) {
    const prompt = requiredString(row, 'prompt');
    const ids = stringListField(row, 'instruction_id_list');
    const kwargs = parseIfbenchKwargs(row.kwargs, ids.length);
    return {
      id: makeExampleId('ifbench', prompt),
      // Upstream's IFBench env sends the prompt alone, whatever system prompt the config names.
      messages: buildMessages(prompt, null),
      answer: ids,
      metadata: { instruction_ids: ids, kwargs },
    };
  },
  grade(response, example) {
    const ids = idsOf(example);
    const raw = example.metadata?.kwargs;
    const kwargs = Array.isArray(raw) ? (raw as Record<string, unknown>[]) : [];
    const followed = checkIfbench(response, ids, kwargs);
    const n = followed.filter(Boolean).length;
    const all = followed.length > 0 && n === followed.length;
    const failed = ids.filter((_, i) => !followed[i]);
    return {
      correct: all,
      score: followed.length > 0 ? n / followed.length : 0,
      extracted: failed.length === 0 ? `all ${ids.length} followed` : `not followed: ${failed.join(', ')}`,
    };
  },
  aggregate(samples) {
    const n = samples.length;
    return {
      'ifbench/strict_accuracy': n > 0 ? samples.filter((s) => s.correct).length / n : 0,
      'ifbench/loose_accuracy': n > 0 ? samples.reduce((a, s) => a + s.score, 0) / n : 0,
      'ifbench/unported_examples': new Set(
        samples.filter((s) => idsOf(s.example).some((id) => UNPORTED_CHECKERS.includes(id))).map((s) => s.example.id),
      ).size,
    };
  },
};
