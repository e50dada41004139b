/**
 * A Kimi-format test tokenizer: no package ships Kimi's tiktoken.model, so renderer parity runs at the text level on a
 * synthetic vocabulary (the 256 bytes plus BPE merges learned from a small chat corpus, so merges do cross the places
 * where a renderer might split text) with Kimi's special-token names, loaded by the real Kimi loader.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIMI_PATTERN, kimiTokenizerFromFiles, type Tokenizer } from '@cookbook/tokenizers';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The official templates committed beside this file (see SOURCES.md). */
export function kimiTemplate(name: 'kimi-k2-thinking' | 'kimi-k2.5'): string {
  return readFileSync(join(HERE, `${name}.chat_template.jinja`), 'utf8');
}

const CORPUS = [
  'You are Kimi, an AI assistant created by Moonshot AI. What is the weather in Paris? It is sunny and 21 degrees.',
  '## Return of functions.get_weather:0\n{"temp": 21, "sky": "clear"}\n{"city": "Paris", "unit": "celsius"}',
  '# Tools\n\n## functions\nnamespace functions {\n// Get the current weather in a city.\ntype get_weather = (_: {\n  city: string,\n  unit?: "celsius" | "fahrenheit"\n}) => any;\n}\n',
  'hello Grüße 数学 café naïve "quoted" <b>bold</b> x=1; 42 ok. The answer is 51. Let me think step by step.',
  '[{"function":{"description":"Current time in a time zone.","name":"get_time"},"type":"function"}]',
  'system user assistant tool tool_declare think answer final question again result',
];

/** Kimi's named special tokens, by offset from the end of the ranks (the rest are `<|reserved_token_N|>`). */
const SPECIALS: [number, string][] = [
  [0, '[BOS]'],
  [1, '[EOS]'],
  [2, '<|im_end|>'],
  [3, '<|im_user|>'],
  [4, '<|im_assistant|>'],
  [6, '<|start_header_id|>'],
  [7, '<|end_header_id|>'],
  [9, '[EOT]'],
  [10, '<|im_system|>'],
  [11, '<|tool_calls_section_begin|>'],
  [12, '<|tool_calls_section_end|>'],
  [13, '<|tool_call_begin|>'],
  [14, '<|tool_call_argument_begin|>'],
  [15, '<|tool_call_end|>'],
  [17, '<|im_middle|>'],
  [18, '<|media_begin|>'],
  [19, '<|media_content|>'],
  [20, '<|media_end|>'],
  [21, '<|media_pad|>'],
  [22, '<think>'],
  [23, '</think>'],
  [254, '[UNK]'],
  [255, '[PAD]'],
];

function tiktokenModel(merges: number): { text: string; size: number } {
  const ranks: string[] = [];
  for (let b = 0; b < 256; b++) ranks.push(String.fromCharCode(b));
  const counts = new Map<string, number>();
  for (const t of CORPUS) {
    for (const m of t.matchAll(new RegExp(KIMI_PATTERN.source, 'gu'))) {
      const w = Buffer.from(m[0], 'utf8').toString('latin1');
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  let words = [...counts].map(([w, n]) => ({ parts: [...w], n }));
  for (let r = 0; r < merges; r++) {
    const pairs = new Map<string, number>();
    for (const { parts, n } of words) {
      for (let i = 0; i + 1 < parts.length; i++) {
        const k = `${parts[i]}\u0000${parts[i + 1]}`;
        pairs.set(k, (pairs.get(k) ?? 0) + n);
      }
    }
    let best = '';
    let bestN = 0;
    for (const [k, n] of pairs) if (n > bestN || (n === bestN && k < best)) [best, bestN] = [k, n];
    if (bestN === 0) break;
    const [a, b] = best.split('\u0000') as [string, string];
    ranks.push(a + b);
    words = words.map(({ parts, n }) => {
      const out: string[] = [];
      for (let i = 0; i < parts.length; i++) {
        if (parts[i] === a && parts[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(parts[i]!);
      }
      return { parts: out, n };
    });
  }
  const text = ranks.map((t, i) => `${Buffer.from(t, 'latin1').toString('base64')} ${i}`).join('\n');
  return { text, size: ranks.length };
}

const cache = new Map<string, Tokenizer>();

/** The Kimi test tokenizer, with `template`'s text as its chat template (none by default). */
export function kimiTestTokenizer(template?: 'kimi-k2-thinking' | 'kimi-k2.5'): Tokenizer {
  const key = template ?? '';
  let tok = cache.get(key);
  if (tok === undefined) {
    const { text, size } = tiktokenModel(400);
    const decoder: Record<string, { content: string; special: true }> = {};
    for (const [offset, content] of SPECIALS) decoder[String(size + offset)] = { content, special: true };
    tok = kimiTokenizerFromFiles(
      {
        tiktokenModel: text,
        tokenizerConfig: { added_tokens_decoder: decoder, bos_token: '[BOS]', eos_token: '<|im_end|>' },
        chatTemplate: template === undefined ? undefined : kimiTemplate(template),
      },
      `kimi-test${template ? `:${template}` : ''}`,
    );
    cache.set(key, tok);
  }
  return tok;
}
