/**
 * A small synthetic tiktoken vocabulary for tests: the 256 bytes, then `merges` byte-pair merges learned (most frequent
 * pair first, ties broken by the pair's bytes) from a fixed corpus split by Kimi's pattern. Deterministic.
 */
import { KIMI_PATTERN } from '../kimi-tokenizer.js';

const CORPUS = [
  'The quick brown fox jumps over the lazy dog. It\'s the weather in Paris, and it\'s sunny today!',
  'You are Kimi, an AI assistant created by Moonshot AI. What is the capital of France? The answer is Paris.',
  '我们今天学习数学和中文。你好，世界！ 天气很好。',
  'function get_weather(city: string) { return "sunny"; }\n\n## Return of functions.get_weather:0\n',
  '{"city": "Paris", "unit": "celsius", "temp": 21, "sky": "clear"}',
  'Grüße aus München — naïve café façade, ÜBER alles; Ωμέγα ✓ 12345 67890',
  '   indented\n\tcode\n\n\nthe end. HELLO WORLD Don\'t WON\'T we\'ll they\'re I\'m you\'ve he\'d',
];

function pairKey(a: string, b: string): string {
  return `${a}\u0000${b}`;
}

/** The text of a tiktoken.model with the 256 bytes and `merges` learned merges. */
export function syntheticTiktokenModel(merges = 300): string {
  const lines: string[] = [];
  for (let b = 0; b < 256; b++) lines.push(`${Buffer.from([b]).toString('base64')} ${b}`);
  // Each pre-tokenized piece as a list of byte strings (latin1), with its frequency.
  const words = new Map<string, number>();
  for (const text of CORPUS) {
    for (const m of text.matchAll(new RegExp(KIMI_PATTERN.source, 'gu'))) {
      const key = Buffer.from(m[0], 'utf8').toString('latin1');
      words.set(key, (words.get(key) ?? 0) + 1);
    }
  }
  let split = [...words].map(([w, n]) => ({ parts: [...w], n }));
  for (let r = 0; r < merges; r++) {
    const counts = new Map<string, number>();
    for (const { parts, n } of split) {
      for (let i = 0; i + 1 < parts.length; i++) {
        const k = pairKey(parts[i]!, parts[i + 1]!);
        counts.set(k, (counts.get(k) ?? 0) + n);
      }
    }
    let best: string | undefined;
    let bestN = 0;
    for (const [k, n] of counts) if (n > bestN || (n === bestN && best !== undefined && k < best)) [best, bestN] = [k, n];
    if (best === undefined) break;
    const [a, b] = best.split('\u0000') as [string, string];
    const joined = a + b;
    lines.push(`${Buffer.from(joined, 'latin1').toString('base64')} ${256 + r}`);
    split = split.map(({ parts, n }) => {
      const out: string[] = [];
      for (let i = 0; i < parts.length; i++) {
        if (i + 1 < parts.length && parts[i] === a && parts[i + 1] === b) {
          out.push(joined);
          i++;
        } else out.push(parts[i]!);
      }
      return { parts: out, n };
    });
  }
  return `${lines.join('\n')}\n`;
}

/** Kimi's named special tokens placed after `base` ranks, in tokenizer_config.json's `added_tokens_decoder` form. */
export function syntheticAddedTokens(base: number): Record<string, { content: string; special: true }> {
  const names = ['[BOS]', '[EOS]', '<|im_end|>', '<|im_user|>', '<|im_assistant|>', null, '<|im_system|>', '<|im_middle|>'];
  const out: Record<string, { content: string; special: true }> = {};
  names.forEach((n, i) => {
    if (n !== null) out[String(base + i)] = { content: n, special: true };
  });
  out[String(base + 8)] = { content: '<think>', special: true };
  out[String(base + 9)] = { content: '</think>', special: true };
  return out;
}
