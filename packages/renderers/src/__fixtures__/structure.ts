/** The control tokens a renderer emits from its own structure, found by rendering conversations that use it all. */
import type { Message } from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';
import { TOOLS } from './conversations.js';
import type { Renderer } from '../renderer.js';

/** Sorted control-token ids in `tokens`. */
export function controlIds(tokenizer: Tokenizer, tokens: readonly number[]): number[] {
  const ids = new Set(tokenizer.controlTokens.map((t) => tokenizer.convertTokenToId(t)));
  return tokens.filter((t) => ids.has(t)).sort((a, b) => a - b);
}

/**
 * Conversations from the richest (tool declarations, reasoning, tool calls and results) to the plainest, with `s`
 * inserted into every piece of message text (content, thinking, tool arguments and results, system prompt).
 */
export const CONVERSATION_SHAPES: ((renderer: Renderer, s: string) => Message[])[] = [
  (r, s) => [
    ...r.createConversationPrefixWithTools(TOOLS, `system ${s}`),
    { role: 'user', content: `question ${s}` },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `think ${s}` },
        { type: 'text', text: `answer ${s}` },
      ],
      tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city: s }) } }],
    },
    { role: 'tool', name: 'get_weather', tool_call_id: 'call_1', content: `result ${s}` },
    { role: 'assistant', content: `final ${s}` },
  ],
  (_r, s) => [
    { role: 'system', content: `system ${s}` },
    { role: 'user', content: `question ${s}` },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `think ${s}` },
        { type: 'text', text: `answer ${s}` },
      ],
    },
    { role: 'user', content: `again ${s}` },
    { role: 'assistant', content: `final ${s}` },
  ],
  (_r, s) => [
    { role: 'system', content: `system ${s}` },
    { role: 'user', content: `question ${s}` },
    { role: 'assistant', content: `answer ${s}` },
    { role: 'user', content: `again ${s}` },
    { role: 'assistant', content: `final ${s}` },
  ],
];

/** The richest of {@link CONVERSATION_SHAPES} that `renderer` accepts (renders without throwing). */
export function richestShape(renderer: Renderer): (s: string) => Message[] {
  for (const shape of CONVERSATION_SHAPES) {
    try {
      renderer.buildSupervisedExample(shape(renderer, ''));
      renderer.buildGenerationPrompt(shape(renderer, '').slice(0, -1));
      return (s) => shape(renderer, s);
    } catch {
      // this renderer has no such feature (tools, reasoning): try a plainer conversation
    }
  }
  throw new Error(`${renderer.constructor.name} renders none of the conversation shapes`);
}

/**
 * The control-token strings `renderer` emits from its own structure: those in the supervised example and the
 * generation prompt of its richest accepted conversation (message text holds none).
 */
export function structureTokens(renderer: Renderer): string[] {
  const msgs = richestShape(renderer)('');
  const { tokenizer } = renderer;
  const ids = new Set([
    ...controlIds(tokenizer, renderer.buildSupervisedExample(msgs).modelInput.toInts()),
    ...controlIds(tokenizer, renderer.buildGenerationPrompt(msgs.slice(0, -1)).toInts()),
    ...controlIds(tokenizer, renderer.buildGenerationPrompt(msgs).toInts()),
  ]);
  return tokenizer.controlTokens.filter((t) => ids.has(tokenizer.convertTokenToId(t)!));
}

/** Every structure token of `renderer`, then `extra` of its other control tokens drawn with `next`. */
export function quotedControlTokens(renderer: Renderer, next: () => number, extra: number): string[] {
  const structure = structureTokens(renderer);
  const rest = renderer.tokenizer.controlTokens.filter((t) => !structure.includes(t));
  const sample: string[] = [];
  for (let i = 0; i < extra && rest.length > 0; i++) sample.push(...rest.splice(Math.floor(next() * rest.length), 1));
  return [...structure, ...sample];
}
