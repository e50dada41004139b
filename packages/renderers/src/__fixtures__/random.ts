/** Seeded random conversations for the generated batteries (the same on every run). */
import type { Message } from '@cookbook/core';
import { mulberry32 } from '@cookbook/core';

/** A small seeded PRNG (mulberry32, `@cookbook/core`'s). */
export const rng = mulberry32;

const WORDS = [
  'hello',
  'Grüße',
  '数学',
  'café',
  '🙂',
  'x=1;',
  '  ',
  '\n',
  '\t',
  'naïve',
  'ok.',
  '"quoted"',
  '<b>',
  '42',
];

/** 1–6 words (unicode, whitespace edges), each drawn from `quoted` with probability 0.35 when it is non-empty. */
export function randomText(next: () => number, quoted: readonly string[]): string {
  const n = 1 + Math.floor(next() * 6);
  let out = next() < 0.2 ? ' ' : '';
  for (let i = 0; i < n; i++) {
    const pool = quoted.length > 0 && next() < 0.35 ? quoted : WORDS;
    out += `${pool[Math.floor(next() * pool.length)]}${next() < 0.7 ? ' ' : ''}`;
  }
  return next() < 0.2 ? `${out}\n` : out.trimEnd() || 'x';
}

/** An optional system message (when `system`), then 1–3 user/assistant turns of {@link randomText}. */
export function randomConversation(next: () => number, quoted: readonly string[], system: boolean): Message[] {
  const msgs: Message[] = system && next() < 0.5 ? [{ role: 'system', content: randomText(next, quoted) }] : [];
  const turns = 1 + Math.floor(next() * 3);
  for (let t = 0; t < turns; t++) {
    msgs.push({ role: 'user', content: randomText(next, quoted) });
    msgs.push({ role: 'assistant', content: randomText(next, quoted) });
  }
  return msgs;
}

/**
 * Masks quoted control strings with private-use placeholders, so an official template can be run on a conversation
 * that quotes them and its output compared with a renderer's, accounting for the one deliberate difference (the
 * template + tokenizer would turn the quoted strings into tokens; the renderer keeps them text).
 */
export function quoteMasker(quoted: readonly string[]): {
  mask: (text: string) => string;
  unmask: (text: string) => string;
  maskMessages: (messages: readonly Message[]) => Message[];
} {
  const mask = (t: string) => quoted.reduce((acc, q, k) => acc.split(q).join(`\uE000${k}\uE001`), t);
  const unmask = (t: string) => t.replace(/\uE000(\d+)\uE001/g, (_, k: string) => quoted[Number(k)]!);
  const maskMessages = (messages: readonly Message[]): Message[] =>
    messages.map((m) => ({
      ...m,
      content:
        typeof m.content === 'string'
          ? mask(m.content)
          : m.content.map((p) => {
              if (p.type === 'text') return { ...p, text: mask(p.text) };
              return p.type === 'thinking' ? { ...p, thinking: mask(p.thinking) } : p;
            }),
      ...(m.tool_calls
        ? {
            tool_calls: m.tool_calls.map((c) => ({
              ...c,
              function: { ...c.function, arguments: mask(c.function.arguments) },
            })),
          }
        : {}),
    }));
  return { mask, unmask, maskMessages };
}
