/**
 * The search_tool recipe's shipped data: a generated multi-hop world (`@cookbook/rl`'s `generateMultiHopWorld`) as a
 * JSONL document collection and a JSONL question file under `data/search-tool/` (written by
 * `scripts/make-search-tool-data.ts`).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DataError } from '@cookbook/core';
import { generateMultiHopWorld, type MultiHopQuestion } from '@cookbook/rl';
import { z } from 'zod';

/** The seed of the shipped world. */
export const SEARCH_TOOL_WORLD_SEED = 2024;

/** Paths of the shipped files. */
export function searchToolDataFiles(): { documents: string; questions: string } {
  return {
    documents: fileURLToPath(new URL('../../data/search-tool/documents.jsonl', import.meta.url)),
    questions: fileURLToPath(new URL('../../data/search-tool/questions.jsonl', import.meta.url)),
  };
}

/** The shipped files' text, as the generator makes it. */
export function searchToolDataText(): { documents: string; questions: string } {
  const world = generateMultiHopWorld(SEARCH_TOOL_WORLD_SEED);
  const lines = (rows: readonly object[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');
  return { documents: lines(world.documents), questions: lines(world.questions) };
}

const QuestionRow = z.object({
  id: z.string(),
  question: z.string().min(1),
  answer: z.string().min(1),
  queries: z.array(z.string()).default([]),
  supportingDocs: z.array(z.string()).default([]),
});

/** Read a questions JSONL file (`{id, question, answer, queries?, supportingDocs?}` per line). */
export function loadQuestions(path: string): MultiHopQuestion[] {
  const out: MultiHopQuestion[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (e) {
        throw new DataError(`not JSON (${(e as Error).message})`, { file: path, line: i + 1 });
      }
      const row = QuestionRow.safeParse(raw);
      if (!row.success) {
        const issue = row.error.issues[0]!;
        throw new DataError(`${issue.message}; expected {"id", "question", "answer", "queries"?}`, {
          file: path,
          line: i + 1,
          field: issue.path.map(String).join('.') || 'question',
        });
      }
      out.push(row.data);
    });
  if (out.length === 0) throw new DataError('no questions', { file: path });
  return out;
}
