import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import {
  clipText,
  conversationRecord,
  messageToJsonable,
  ROLLOUT_LOG_LIMITS,
  sampleIndices,
  tokenTexts,
  writeRolloutLog,
} from './rollout-log.js';

describe('rollout log', () => {
  it('keeps every index up to the bound, a seeded sorted sample of distinct indices past it', () => {
    expect(sampleIndices(5, 8, 1)).toEqual([0, 1, 2, 3, 4]);
    const a = sampleIndices(1000, 50, 7);
    expect(a).toHaveLength(50);
    expect(new Set(a).size).toBe(50);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(a.every((i) => i >= 0 && i < 1000)).toBe(true);
    expect(sampleIndices(1000, 50, 7)).toEqual(a);
    expect(sampleIndices(1000, 50, 8)).not.toEqual(a);
    // Not just the first 50: the sample spreads over the whole step.
    expect(Math.max(...a)).toBeGreaterThan(500);
  });

  it('writes at most maxPerStep lines, each with the count before sampling, replacing the file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'rollout-log-')), 'iteration_000003', 'train_rollout_summaries.jsonl');
    const records = Array.from({ length: 40 }, (_, i) => ({ traj_idx: i }));
    expect(writeRolloutLog(path, records, { maxPerStep: 10, seed: 3 })).toBe(10);
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(10);
    expect(lines.every((l) => l.rollouts_total === 40)).toBe(true);
    expect(writeRolloutLog(path, records.slice(0, 3), { maxPerStep: 10 })).toBe(3);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('cuts long text and says how much', () => {
    expect(clipText('abc', 5)).toBe('abc');
    expect(clipText('abcdefgh', 5)).toBe('abcde… [3 more characters not logged]');
  });

  it('shows a character split across byte-level tokens at the token that completes it, never as U+FFFD', () => {
    // A byte-level vocabulary: each token is a run of UTF-8 bytes, decoded as byte-level BPE decoders do (lossy UTF-8).
    const enc = (s: string) => [...new TextEncoder().encode(s)];
    const vocab: number[][] = [
      enc('h'),
      enc('é').slice(0, 1),
      enc('é').slice(1),
      enc('llo '),
      enc('🎉').slice(0, 2),
      enc('🎉').slice(2),
      enc(' '),
      ...enc('世').map((b) => [b]),
      enc('界'),
    ];
    const decode = (tokens: number[]) =>
      new TextDecoder('utf-8').decode(new Uint8Array(tokens.flatMap((t) => vocab[t]!)));
    const tokens = vocab.map((_, i) => i);
    // Each token alone: the split characters come out as replacement characters.
    expect(tokens.map((t) => decode([t])).join('')).toContain('\uFFFD');
    const pieces = tokenTexts(tokens, decode);
    expect(pieces).toEqual(['h', '', 'é', 'llo ', '', '🎉', ' ', '', '', '世', '界']);
    expect(pieces.join('')).toBe(decode(tokens));
    // Bounded: only the first `max` tokens, and a character cut by the bound is shown as it decodes.
    expect(tokenTexts(tokens, decode, 2)).toEqual(['h', '\uFFFD']);
    // Bytes that never form a character (a lone 0xff) are shown once the next token decodes, not held forever.
    vocab.push([0xff], enc('a'));
    expect(tokenTexts([11, 12, 0], decode)).toEqual(['', '\uFFFDa', 'h']);
  });

  it("writes a message in upstream's message_to_jsonable shape: tool calls, results, parts; no image bytes", () => {
    // Messages whose logged form is the message itself: each is built afresh for the input and for the expectation.
    const call = (): Message => ({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'look it up' },
        { type: 'text', text: 'Calling.' },
      ],
      tool_calls: [{ type: 'function', id: 'call_0', function: { name: 'lookup', arguments: '{"key": "fig"}' } }],
      unparsed_tool_calls: [{ raw_text: '<tool_call>{', error: 'bad JSON' }],
    });
    const result = (): Message => ({ role: 'tool', content: '7', tool_call_id: 'call_0', name: 'lookup' });
    expect(messageToJsonable(call())).toEqual(call());
    expect(messageToJsonable(result())).toEqual(result());
    const image: Message = {
      role: 'user',
      content: [
        { type: 'image', image: new Uint8Array([1, 2, 3]) },
        { type: 'image', image: 'https://example.org/a.png' },
        { type: 'image', image: `data:image/png;base64,${'A'.repeat(ROLLOUT_LOG_LIMITS.maxImageUrlChars)}` },
      ],
    };
    expect(messageToJsonable(image).content).toEqual([
      { type: 'image' },
      { type: 'image', image: 'https://example.org/a.png' },
      { type: 'image' },
    ]);
    const long = messageToJsonable(
      {
        role: 'assistant',
        content: 'x',
        tool_calls: [{ type: 'function', function: { name: 'f', arguments: 'y'.repeat(50) } }],
      },
      10,
    );
    expect(long.tool_calls![0]!.function.arguments).toBe(`${'y'.repeat(10)}… [40 more characters not logged]`);
  });

  it('keeps a long conversation bounded: its first quarter and last three quarters, with the count', () => {
    const messages: Message[] = Array.from({ length: 50 }, (_, i) => ({
      role: i % 2 ? 'tool' : 'assistant',
      content: String(i),
    }));
    expect(conversationRecord(messages.slice(0, 8), 8)).toEqual({ messages: messages.slice(0, 8) });
    const cut = conversationRecord(messages, 8);
    expect(cut.messages_total).toBe(50);
    expect(cut.messages.map((m) => m.content)).toEqual(['0', '1', '44', '45', '46', '47', '48', '49']);
  });
});
