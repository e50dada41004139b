/**
 * For every built-in renderer with a tool-calling format: declare a tool, let the "model" answer with a call (the
 * renderer's own rendering of an assistant turn with that call, as a trained model samples it), parse it in the agent
 * env, run the tool, and check that the next prompt shows the tool's result and the call to the model.
 */

import { getTextContent, type Message, RendererError } from '@cookbook/core';
import { BUILT_IN_RENDERER_NAMES, getRenderer, type Renderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { defineTool } from '@cookbook/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
// The renderers' test tokenizers for families without an offline tokenizer package (test-only import).
import { kimiTestTokenizer } from '../../../renderers/src/__fixtures__/kimi/test-tokenizer.js';
import { nemotronTestTokenizer } from '../../../renderers/src/__fixtures__/nemotron.js';
import { inklingTestTokenizer } from '../../../renderers/src/__fixtures__/test-tokenizers.js';
import { AgentToolEnv } from './agent-tool-env.js';

function tokenizerFor(renderer: string): Renderer['tokenizer'] {
  if (renderer === 'tml_v0') return inklingTestTokenizer();
  if (renderer.startsWith('qwen3')) return getTokenizer('Qwen/Qwen3-8B');
  if (renderer.startsWith('deepseek')) return getTokenizer('deepseek-ai/DeepSeek-V3.1');
  if (renderer.startsWith('gpt_oss')) return getTokenizer('openai/gpt-oss-20b');
  if (renderer.startsWith('kimi')) return kimiTestTokenizer();
  if (renderer.startsWith('nemotron')) return nemotronTestTokenizer();
  return getTokenizer('meta-llama/Llama-3.1-8B-Instruct');
}

function supportsTools(renderer: Renderer): boolean {
  try {
    renderer.createConversationPrefixWithTools([{ name: 'x', description: '', parameters: { type: 'object' } }]);
    return true;
  } catch (e) {
    if (e instanceof RendererError) return false;
    throw e;
  }
}

const lookup = defineTool({
  name: 'lookup_city',
  description: 'Find the country of a city',
  parameters: z.object({ city: z.string() }),
  run: ({ city }) => (city === 'Tesk' ? 'Orland (capital city)' : 'unknown'),
});

/**
 * The tokens a model samples for `message` after `history`: the renderer's rendering of the turn after the generation
 * prompt. Formats whose generation prompt opens a reasoning block get the turn with a short reasoning part.
 */
function sampledTurn(renderer: Renderer, history: readonly Message[], message: Message): number[] {
  const prompt = renderer.buildGenerationPrompt(history).toInts();
  const reasoned: Message = {
    ...message,
    content: [
      { type: 'thinking', thinking: 'I should check.' },
      { type: 'text', text: getTextContent(message) },
    ],
  };
  for (const turn of [message, reasoned]) {
    const full = renderer.buildSupervisedExample([...history, turn]).modelInput.toInts();
    if (full.length > prompt.length && prompt.every((t, i) => full[i] === t)) return full.slice(prompt.length);
  }
  throw new Error(`the renderer's assistant turn does not extend its generation prompt`);
}

const withTools = BUILT_IN_RENDERER_NAMES.filter((name) => supportsTools(getRenderer(name, tokenizerFor(name))));

describe('agent round trip through every renderer with tools', () => {
  it('covers the tool-calling renderers', () => {
    expect(withTools).toEqual(
      expect.arrayContaining([
        'qwen3',
        'deepseekv3',
        'gpt_oss_low_reasoning',
        'kimi_k2',
        'kimi_k25',
        'nemotron3',
        'qwen3_5',
        'tml_v0',
      ]),
    );
  });

  for (const name of withTools) {
    it(`${name}: declare → call → parse → tool message → next prompt`, async () => {
      const renderer = getRenderer(name, tokenizerFor(name));
      const env = new AgentToolEnv({
        renderer,
        tools: [lookup],
        messages: [{ role: 'user', content: 'Which country is Tesk in?' }],
        reward: ({ finalAnswer }) => (finalAnswer && getTextContent(finalAnswer).includes('Orland') ? 1 : 0),
      });
      const first = await env.initialObservation();
      const prompt = renderer.tokenizer.decode(first.observation.toInts());
      expect(prompt).toContain('lookup_city');
      expect(prompt).toContain('Find the country of a city');

      const callId = name.startsWith('kimi') ? 'functions.lookup_city:0' : 'call_1';
      const call: Message = {
        role: 'assistant',
        content: '',
        tool_calls: [
          // Kimi's call ids name the function (`functions.<name>:<index>`), as its models write them.
          { type: 'function', id: callId, function: { name: 'lookup_city', arguments: '{"city": "Tesk"}' } },
        ],
      };
      const step = await env.step(sampledTurn(renderer, env.conversation, call));

      expect(step.metrics.parse_error).toBe(0);
      expect(step.episodeDone).toBe(false);
      const reply = env.conversation.find((m) => m.role === 'assistant')!;
      expect(reply.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ['lookup_city', { city: 'Tesk' }],
      ]);
      const toolMessage = env.conversation.at(-1)!;
      expect(toolMessage).toMatchObject({ role: 'tool', content: 'Orland (capital city)', name: 'lookup_city' });
      const next = renderer.tokenizer.decode(step.nextObservation.toInts());
      expect(next).toContain('Orland (capital city)');
      expect(next).toContain('Tesk');

      const answer: Message = { role: 'assistant', content: 'Tesk is in Orland.' };
      const end = await env.step(sampledTurn(renderer, env.conversation, answer));
      expect(end.episodeDone).toBe(true);
      expect(end.reward).toBe(1);
      expect(end.metrics['episode/tool_calls']).toBe(1);
    });
  }
});
