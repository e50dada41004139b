/**
 * Pairwise comparisons (upstream `preference/types.py`: `Comparison`, `LabeledComparison`) and the comparison JSONL
 * format (upstream `ComparisonBuilderFromJsonl`): one `{"comparison": {"prompt_conversation": [...], "completion_A":
 * [...], "completion_B": [...]}, "label": "A" | "B" | "Tie"}` per line. Every row is checked when the file is read,
 * so a bad line fails before training with its file, line and field.
 */
import { existsSync, statSync } from 'node:fs';
import { DataError, type Message, parseJsonLine, readLinesSync } from '@cookbook/core';
import { parseMessages, type RecordLocation } from '@cookbook/supervised';

/** Two completions of one prompt conversation. */
export interface Comparison {
  /** The conversation both completions answer (usually ending with a user message). */
  promptConversation: Message[];
  /** The first completion: one or more messages (usually one assistant message). */
  completionA: Message[];
  /** The second completion. */
  completionB: Message[];
}

/** Which completion is preferred. */
export type PreferenceLabel = 'A' | 'B' | 'Tie';

/** A comparison with its label. */
export interface LabeledComparison {
  comparison: Comparison;
  label: PreferenceLabel;
}

/** The comparison with A and B exchanged. */
export function swapComparison(c: Comparison): Comparison {
  return { promptConversation: c.promptConversation, completionA: c.completionB, completionB: c.completionA };
}

/** The labeled comparison with A and B exchanged and the label following them (a tie stays a tie). */
export function swapLabeled(lc: LabeledComparison): LabeledComparison {
  const label: PreferenceLabel = lc.label === 'A' ? 'B' : lc.label === 'B' ? 'A' : 'Tie';
  return { comparison: swapComparison(lc.comparison), label };
}

/** The preferred and the other completion of a labeled comparison; undefined for a tie. */
export function chosenRejected(lc: LabeledComparison): { chosen: Message[]; rejected: Message[] } | undefined {
  if (lc.label === 'Tie') return undefined;
  const { completionA, completionB } = lc.comparison;
  return lc.label === 'A'
    ? { chosen: completionA, rejected: completionB }
    : { chosen: completionB, rejected: completionA };
}

const LABELS: readonly string[] = ['A', 'B', 'Tie'];

/**
 * A labeled comparison from one parsed record (`{comparison: {...}, label}`).
 * @throws DataError naming the location and the field (`comparison.completion_A[0].role`, `label`, …).
 */
export function labeledComparisonFromRecord(record: unknown, where: RecordLocation = {}): LabeledComparison {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new DataError('expected a JSON object like {"comparison": {...}, "label": "A"}', where);
  }
  const r = record as Record<string, unknown>;
  const c = r.comparison;
  if (typeof c !== 'object' || c === null || Array.isArray(c)) {
    throw new DataError(
      'missing or not an object; expected {"prompt_conversation": [...], "completion_A": [...], "completion_B": [...]}',
      { ...where, field: 'comparison' },
    );
  }
  const cc = c as Record<string, unknown>;
  const promptConversation = parseMessages(cc.prompt_conversation, where, 'comparison.prompt_conversation');
  const completionA = parseMessages(cc.completion_A, where, 'comparison.completion_A');
  const completionB = parseMessages(cc.completion_B, where, 'comparison.completion_B');
  const label = r.label;
  if (typeof label !== 'string' || !LABELS.includes(label)) {
    throw new DataError(`expected "A", "B" or "Tie", got ${JSON.stringify(label) ?? 'nothing'}`, {
      ...where,
      field: 'label',
    });
  }
  return { comparison: { promptConversation, completionA, completionB }, label: label as PreferenceLabel };
}

/** The JSONL record of a labeled comparison (the wire spelling, snake_case keys). */
export function labeledComparisonToRecord(lc: LabeledComparison): Record<string, unknown> {
  return {
    comparison: {
      prompt_conversation: lc.comparison.promptConversation,
      completion_A: lc.comparison.completionA,
      completion_B: lc.comparison.completionB,
    },
    label: lc.label,
  };
}

/**
 * Every labeled comparison of a JSONL file (blank lines skipped), validated.
 * @throws DataError naming the file, the line and the field of the first bad row.
 */
export function readComparisonFile(path: string): LabeledComparison[] {
  if (!existsSync(path)) throw new DataError('no such comparison file', { file: path });
  if (statSync(path).isDirectory()) throw new DataError('is a folder; expected a .jsonl file', { file: path });
  const out: LabeledComparison[] = [];
  for (const { text, line } of readLinesSync(path)) {
    if (text.trim() === '') continue;
    const record = parseJsonLine(
      text,
      { file: path, line },
      'expected one {"comparison": {...}, "label": ...} per line',
    );
    out.push(labeledComparisonFromRecord(record, { file: path, line }));
  }
  if (out.length === 0) throw new DataError('the file holds no comparisons', { file: path });
  return out;
}
