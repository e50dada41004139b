/**
 * Comparison data sets from the Hugging Face Hub (upstream `recipes/preference/datasets.py`: `HHHComparisonBuilder`,
 * `HelpSteer3ComparisonBuilder`, `UltraFeedbackComparisonBuilder`). Rows are read through the datasets-server rows
 * API (`fetchHubRows` of `@cookbook/eval`, the reader the benchmarks and math recipes use), so a run needs the
 * network; offline, or with `HF_HUB_OFFLINE=1`, the builders fail with a DataError that names the data set and the
 * local-file alternative. Row converters are exported separately so they are testable without the network.
 */
import { DataError, type Message } from '@cookbook/core';
import { fetchHubRows, HubRowsError } from '@cookbook/eval';
import type { LabeledComparison } from './comparison.js';

/** A Hub comparison data set this package knows. */
export interface HubComparisonSpec {
  dataset: string;
  config: string;
  trainSplit: string;
  /** Split used as the test set; undefined = the last `testSize` rows of the train split. */
  testSplit?: string;
  /** One row to a labeled comparison; undefined skips the row (unparsable transcript, missing field). */
  toComparison(row: Record<string, unknown>): LabeledComparison | undefined;
}

/**
 * Splits an HH-RLHF transcript (`\n\nHuman: …\n\nAssistant: …`) into messages. Returns undefined when the text does
 * not start with a Human turn or has an empty turn.
 */
export function parseHhTranscript(text: string): Message[] | undefined {
  const parts = text.split(/\n\n(Human|Assistant): ?/);
  // parts = [before, role, content, role, content, …]
  if ((parts[0] ?? '').trim() !== '' || parts.length < 3) return undefined;
  const messages: Message[] = [];
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const role = parts[i] === 'Human' ? 'user' : 'assistant';
    const content = parts[i + 1]!.trim();
    if (content === '') return undefined;
    const prev = messages.at(-1);
    if (prev?.role === role) return undefined;
    messages.push({ role, content });
  }
  return messages[0]?.role === 'user' ? messages : undefined;
}

/**
 * An HH-RLHF row (`{chosen, rejected}` transcripts sharing every turn but the last assistant reply) as a comparison
 * with the chosen reply as A. Undefined when the transcripts do not share their prompt.
 */
export function hhRowToComparison(row: Record<string, unknown>): LabeledComparison | undefined {
  if (typeof row.chosen !== 'string' || typeof row.rejected !== 'string') return undefined;
  const chosen = parseHhTranscript(row.chosen);
  const rejected = parseHhTranscript(row.rejected);
  if (chosen === undefined || rejected === undefined) return undefined;
  const lastC = chosen.at(-1)!;
  const lastR = rejected.at(-1)!;
  if (lastC.role !== 'assistant' || lastR.role !== 'assistant') return undefined;
  const prompt = chosen.slice(0, -1);
  const promptR = rejected.slice(0, -1);
  if (prompt.length === 0 || JSON.stringify(prompt) !== JSON.stringify(promptR)) return undefined;
  return { comparison: { promptConversation: prompt, completionA: [lastC], completionB: [lastR] }, label: 'A' };
}

function isChat(value: unknown): value is { role: string; content: string }[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (m) =>
        typeof m === 'object' &&
        m !== null &&
        typeof (m as Record<string, unknown>).role === 'string' &&
        typeof (m as Record<string, unknown>).content === 'string',
    )
  );
}

/**
 * A HelpSteer3 "preference" row (`context` messages, `response1`, `response2`, `overall_preference` from −3 to 3,
 * negative = response 1 better) as a comparison; 0 is a tie.
 */
export function helpSteer3RowToComparison(row: Record<string, unknown>): LabeledComparison | undefined {
  const { context, response1, response2, overall_preference: pref } = row;
  if (!isChat(context) || typeof response1 !== 'string' || typeof response2 !== 'string') return undefined;
  if (typeof pref !== 'number' || !Number.isFinite(pref)) return undefined;
  const promptConversation: Message[] = context.map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : m.role === 'system' ? 'system' : 'user',
    content: m.content,
  }));
  return {
    comparison: {
      promptConversation,
      completionA: [{ role: 'assistant', content: response1 }],
      completionB: [{ role: 'assistant', content: response2 }],
    },
    label: pref < 0 ? 'A' : pref > 0 ? 'B' : 'Tie',
  };
}

/** An UltraFeedback binarized row (`instruction`, `chosen_response`, `rejected_response`), chosen as A. */
export function ultraFeedbackRowToComparison(row: Record<string, unknown>): LabeledComparison | undefined {
  const { instruction, chosen_response: chosen, rejected_response: rejected } = row;
  if (typeof instruction !== 'string' || typeof chosen !== 'string' || typeof rejected !== 'string') return undefined;
  return {
    comparison: {
      promptConversation: [{ role: 'user', content: instruction }],
      completionA: [{ role: 'assistant', content: chosen }],
      completionB: [{ role: 'assistant', content: rejected }],
    },
    label: 'A',
  };
}

/** The Hub comparison data sets by the names the recipes use. */
export const HUB_COMPARISONS: Readonly<Record<'hhh' | 'helpsteer3' | 'ultrafeedback', HubComparisonSpec>> = {
  hhh: {
    dataset: 'Anthropic/hh-rlhf',
    config: 'default',
    trainSplit: 'train',
    testSplit: 'test',
    toComparison: hhRowToComparison,
  },
  helpsteer3: {
    dataset: 'nvidia/HelpSteer3',
    config: 'preference',
    trainSplit: 'train',
    testSplit: 'validation',
    toComparison: helpSteer3RowToComparison,
  },
  ultrafeedback: {
    dataset: 'argilla/ultrafeedback-binarized-preferences',
    config: 'default',
    trainSplit: 'train',
    toComparison: ultraFeedbackRowToComparison,
  },
};

/** Names of {@link HUB_COMPARISONS}. */
export type HubComparisonName = keyof typeof HUB_COMPARISONS;

/** Options of {@link loadHubComparisons}. */
export interface LoadHubComparisonsOptions {
  /** Most training rows read. Default 10 000. */
  maxTrainRows?: number;
  /** Test comparisons. Default 1024 (upstream). */
  testSize?: number;
  fetch?: typeof globalThis.fetch;
  /** Notices (rows skipped). */
  log?: (line: string) => void;
}

function hubError(name: string, spec: HubComparisonSpec, why: string, cause?: unknown): DataError {
  return new DataError(
    `cannot load comparison data set ${name} from the Hugging Face Hub (${spec.dataset}): ${why}. Offline, give a ` +
      'comparison JSONL file instead: dataset=path/to/train.jsonl (one {"comparison": {...}, "label": "A"|"B"|"Tie"} per line)',
    { cause },
  );
}

async function rowsOf(
  name: string,
  spec: HubComparisonSpec,
  split: string,
  limit: number,
  fetch: typeof globalThis.fetch | undefined,
): Promise<Record<string, unknown>[]> {
  try {
    return await fetchHubRows({
      dataset: spec.dataset,
      config: spec.config,
      split,
      limit,
      ...(fetch ? { fetch } : {}),
    });
  } catch (error) {
    if (error instanceof HubRowsError) throw hubError(name, spec, error.reason, error);
    throw error;
  }
}

/** Train and test comparisons of a Hub data set (network). Ties are kept; the DPO data drops them. */
export async function loadHubComparisons(
  name: HubComparisonName,
  options: LoadHubComparisonsOptions = {},
): Promise<{ train: LabeledComparison[]; test: LabeledComparison[] }> {
  const spec = HUB_COMPARISONS[name];
  if (process.env.HF_HUB_OFFLINE === '1') throw hubError(name, spec, 'HF_HUB_OFFLINE=1 is set');
  const testSize = options.testSize ?? 1024;
  const maxTrain = options.maxTrainRows ?? 10_000;
  let skipped = 0;
  const convert = (rows: Record<string, unknown>[]) =>
    rows.flatMap((r) => {
      const c = spec.toComparison(r);
      if (c === undefined) skipped++;
      return c === undefined ? [] : [c];
    });
  let train: LabeledComparison[];
  let test: LabeledComparison[];
  if (spec.testSplit !== undefined) {
    train = convert(await rowsOf(name, spec, spec.trainSplit, maxTrain, options.fetch));
    test = testSize > 0 ? convert(await rowsOf(name, spec, spec.testSplit, testSize, options.fetch)) : [];
  } else {
    const all = convert(await rowsOf(name, spec, spec.trainSplit, maxTrain + testSize, options.fetch));
    test = all.slice(Math.max(0, all.length - testSize));
    train = all.slice(0, Math.max(0, all.length - testSize));
  }
  if (skipped > 0) options.log?.(`${name}: ${skipped} rows skipped (unparsable or missing fields)`);
  if (train.length === 0) throw hubError(name, spec, 'no usable rows were returned');
  return { train, test };
}
