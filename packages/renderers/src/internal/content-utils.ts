/** Helpers shared by renderers: content splitting and Python-compatible JSON serialisation. */
import { type ContentPart, type Message, RendererError } from '@cookbook/core';
import { VISION_RENDERER_NAMES } from '../vision.js';

/** The thinking and the text of a message (parts joined in order; string content is all text). */
export function splitThinkingAndText(message: Message): { thinking: string; text: string; hasThinking: boolean } {
  if (typeof message.content === 'string') return { thinking: '', text: message.content, hasThinking: false };
  let thinking = '';
  let text = '';
  let hasThinking = false;
  for (const p of message.content) {
    if (p.type === 'thinking') {
      thinking += p.thinking;
      hasThinking = true;
    } else if (p.type === 'text') text += p.text;
  }
  return { thinking, text, hasThinking };
}

/** The text of a message that must be text only (no images); thinking parts are rejected too. */
export function ensureText(message: Message, rendererName: string): string {
  if (typeof message.content === 'string') return message.content;
  let out = '';
  for (const p of message.content as ContentPart[]) {
    if (p.type === 'text') out += p.text;
    else {
      throw new RendererError(
        `${rendererName} renders text only, but a ${message.role} message has a ${p.type} part` +
          (p.type === 'image'
            ? `. Images need a vision model (Qwen3-VL, Qwen3.5 / 3.6 / 3.8, Kimi K2.5 / K2.6) and one of its renderers: ${VISION_RENDERER_NAMES.join(', ')}`
            : ''),
      );
    }
  }
  return out;
}

/** Strip `chars` from both ends of `s` (Python's `str.strip(chars)`). */
export function stripChars(s: string, chars: string): string {
  return rstripChars(lstripChars(s, chars), chars);
}

/** Python's `str.lstrip(chars)`. */
export function lstripChars(s: string, chars: string): string {
  let i = 0;
  while (i < s.length && chars.includes(s[i]!)) i++;
  return s.slice(i);
}

/** Python's `str.rstrip(chars)`. */
export function rstripChars(s: string, chars: string): string {
  let j = s.length;
  while (j > 0 && chars.includes(s[j - 1]!)) j--;
  return s.slice(0, j);
}

/**
 * JSON with Python's `json.dumps` separators (`", "` and `": "`) and non-ASCII kept as is — the spacing of the
 * `tojson` filter in Hugging Face chat templates. Key order is insertion order.
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((v) => pythonJsonDumps(v)).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** Count non-overlapping occurrences of `needle` in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  let i = haystack.indexOf(needle);
  while (i >= 0) {
    n++;
    i = haystack.indexOf(needle, i + needle.length);
  }
  return n;
}
