/**
 * Writes the upstream-parity conversations for `upstream-renderer-parity.py`:
 *
 *   node --conditions=@cookbook/source --import tsx scripts/upstream-parity-cases.ts CASES.json
 *
 * One entry per row of `src/__fixtures__/upstream-parity.ts`: the renderer name, the folder of its tokenizer's files
 * (and the added tokens it renames),
 * and the conversations in order (messages, tool declarations, system prompt; images as base64 PNG).
 */
import { writeFileSync } from 'node:fs';
import type { ContentPart, Message } from '@cookbook/core';
import {
  PARITY_ROWS,
  parityConversations,
  parityTokenizerDir,
  parityTokenRenames,
  parityTrainOnWhat,
} from '../src/__fixtures__/upstream-parity.js';

const out = process.argv[2];
if (out === undefined) {
  process.stderr.write('usage: upstream-parity-cases.ts CASES.json\n');
  process.exit(2);
}

const part = (p: ContentPart): unknown =>
  p.type === 'image' && p.image instanceof Uint8Array
    ? { type: 'image', png_base64: Buffer.from(p.image).toString('base64') }
    : p;
const message = (m: Message): unknown => (typeof m.content === 'string' ? m : { ...m, content: m.content.map(part) });

const rows = PARITY_ROWS.map((row) => ({
  name: row.name,
  tokenizer_dir: parityTokenizerDir(row.tokenizer),
  added_token_renames: parityTokenRenames(row.tokenizer),
  current_date: row.currentDate ?? null,
  conversations: parityConversations(row).map((c, i) => ({
    messages: c.messages.map(message),
    tools: c.tools ?? null,
    system_prompt: c.systemPrompt ?? null,
    train_on_what: parityTrainOnWhat(i),
  })),
}));
writeFileSync(out, `${JSON.stringify({ rows }, null, 1)}\n`);
process.stdout.write(`wrote ${rows.length} rows to ${out}\n`);
