/**
 * The seeded conversations the renderer checks generate (template conformance, parity with upstream's renderers):
 * an optional system prompt, tools, 1–3 turns with reasoning, single or parallel tool calls and their results, empty
 * texts, Unicode, images where the family takes them, and quoted control strings when asked.
 */
import type { ContentPart, Message, ToolCall, ToolSpec } from '@cookbook/core';
import { encodePng } from '@cookbook/images';
import type { Renderer } from '../renderer.js';

/** What the generated conversations may hold (what the format and the template can both render). */
export interface ConversationFeatures {
  /** Tool declarations, tool calls (single and parallel) and tool results. */
  tools: boolean;
  /** Reasoning in assistant messages (last and earlier turns). */
  reasoning: boolean;
  /** Message text that starts with whitespace (a renderer that encodes header and text apart differs there). */
  leadingWhitespace: boolean;
  /** Image parts in user messages (one or two, before, between or after the text). */
  images?: boolean;
  /**
   * At most one tool call per assistant message (a format whose template takes only the first, as Harmony's): the
   * parallel calls of the other rows are left out, never split.
   */
  singleToolCall?: boolean;
}

/** One generated conversation: tools and a system prompt go first, the way each side declares them. */
export interface Conversation {
  messages: Message[];
  tools?: ToolSpec[];
  systemPrompt?: string;
  /** Whether its texts quote the tokenizer's control strings. */
  quotes: boolean;
}

const TOOLS: ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Get the current weather in a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer' } },
      required: ['city'],
    },
  },
  {
    name: 'search',
    description: 'Search the web — returns snippets.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
];

/** The generated conversations' images: sizes that give different token counts under every family's rule. */
const IMAGE_SIZES: readonly (readonly [number, number])[] = [
  [20, 30],
  [300, 100],
  [64, 64],
];
let imageBytes: Uint8Array[] | undefined;
let imageData: string[] | undefined;

/** The PNG of `IMAGE_SIZES[k]` (one flat grey per size, written once). */
function conversationImage(k: number): Uint8Array {
  imageBytes ??= IMAGE_SIZES.map(([w, h], i) => encodePng(w, h, new Uint8Array(w * h * 3).fill(90 + 40 * i)));
  return imageBytes[k]!;
}

/** The size of a generated image, by its base64 data. */
export function imageSize(base64: string): readonly [number, number] | undefined {
  imageData ??= IMAGE_SIZES.map((_, i) => Buffer.from(conversationImage(i)).toString('base64'));
  return IMAGE_SIZES[imageData.indexOf(base64)];
}

const WORDS = ['hello', 'Grüße', '数学', 'café', '🙂', 'x=1;', 'naïve', 'ok.', '"quoted"', '<b>', '42', 'Ω≈ç', 'a\tb'];

/**
 * A seeded conversation: an optional system prompt, tools (when `features.tools`), 1–3 turns of a user message and
 * assistant steps — reasoning in any of them, single or parallel tool calls with one result each, empty texts,
 * Unicode — ending on the assistant or on the user; `quoted` control strings are spliced into the texts.
 */
export function generateConversation(
  next: () => number,
  features: ConversationFeatures,
  quoted: readonly string[],
): Conversation {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const text = (canBeEmpty = true): string => {
    if (canBeEmpty && next() < 0.06) return '';
    const n = 1 + Math.floor(next() * 5);
    let out = features.leadingWhitespace && next() < 0.15 ? pick([' ', '\n', '  ']) : '';
    for (let i = 0; i < n; i++) {
      out += quoted.length > 0 && next() < 0.3 ? pick(quoted) : pick(WORDS);
      if (i < n - 1) out += next() < 0.85 ? ' ' : '\n';
    }
    return out;
  };
  const tools = features.tools && next() < 0.6 ? TOOLS.slice(0, 1 + Math.floor(next() * 2)) : undefined;
  const messages: Message[] = [];
  const turns = 1 + Math.floor(next() * 3);
  let callId = 0;
  for (let t = 0; t < turns; t++) {
    const question = text(t > 0) || 'q';
    if (features.images === true && next() < 0.35) {
      const parts: ContentPart[] = [{ type: 'text', text: question }];
      const n = next() < 0.3 ? 2 : 1;
      for (let i = 0; i < n; i++) {
        const image: ContentPart = { type: 'image', image: conversationImage(Math.floor(next() * IMAGE_SIZES.length)) };
        parts.splice(Math.floor(next() * (parts.length + 1)), 0, image);
      }
      messages.push({ role: 'user', content: parts });
    } else messages.push({ role: 'user', content: question });
    if (t === turns - 1 && next() < 0.3) break;
    for (let step = 0; step < 3; step++) {
      const reasoning = features.reasoning && next() < 0.5 ? text(false) : undefined;
      const calls: ToolCall[] = [];
      if (tools !== undefined && step < 2 && next() < 0.5) {
        const n = features.singleToolCall === true ? 1 : next() < 0.35 ? 2 : 1;
        for (let i = 0; i < n; i++) {
          const tool = pick(tools);
          const args = tool.name === 'search' ? { query: text(false) } : { city: text(false), days: 1 + i };
          calls.push({
            type: 'function',
            id: `call_${callId++}`,
            function: { name: tool.name, arguments: pyJson(args) },
          });
        }
      }
      const answer = calls.length > 0 && next() < 0.5 ? '' : text();
      const content: Message['content'] =
        reasoning === undefined
          ? answer
          : [
              { type: 'thinking', thinking: reasoning },
              ...(answer === '' ? [] : [{ type: 'text' as const, text: answer }]),
            ];
      messages.push({ role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      if (calls.length === 0) break;
      for (const c of calls) {
        messages.push({
          role: 'tool',
          content: text(false),
          name: c.function.name,
          ...(c.id === undefined ? {} : { tool_call_id: c.id }),
        });
      }
    }
  }
  const system = next() < 0.5 ? text(false) : undefined;
  return {
    messages,
    ...(tools === undefined ? {} : { tools }),
    ...(system === undefined ? {} : { systemPrompt: system }),
    quotes: quoted.length > 0,
  };
}

/** JSON with Python's `json.dumps` spacing (what templates' `tojson` writes). */
function pyJson(v: Record<string, unknown>): string {
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}: ${JSON.stringify(x)}`)
    .join(', ')}}`;
}

/** The renderer's messages: its tool-declaration prefix (or the system prompt), then the conversation. */
export function rendererConversation(renderer: Renderer, c: Conversation): Message[] {
  if (c.tools !== undefined)
    return [...renderer.createConversationPrefixWithTools(c.tools, c.systemPrompt), ...c.messages];
  return c.systemPrompt === undefined ? c.messages : [{ role: 'system', content: c.systemPrompt }, ...c.messages];
}
