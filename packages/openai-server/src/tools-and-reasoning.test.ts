import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelInput } from '@cookbook/core';
import { resolveModelSetup } from '@cookbook/renderers';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenAIBackend } from './models.js';
import { createOpenAIRoutes } from './routes.js';

// A backend whose sampler answers with a scripted reply: what a model would say, to test the mapping of tool calls
// and thinking through the official client (the tiny offline model does not call tools).
const setup = resolveModelSetup({ modelName: 'local/qwen3-tiny', rendererName: 'qwen3' });
let reply = '';
const prompts: ModelInput[] = [];
const backend: OpenAIBackend = {
  async createSamplingClient() {
    return {
      async sample(args) {
        prompts.push(args.prompt);
        const tokens = setup.tokenizer.encode(reply);
        return {
          sequences: [{ tokens, logprobs: tokens.map(() => -0.25), stopReason: 'stop' as const }],
          promptCacheHitTokens: 0,
        };
      },
    };
  },
  async createRestClient() {
    return {
      getWeightsInfo: async () => ({ base_model: 'local/qwen3-tiny' }),
      listUserCheckpoints: async () => ({ checkpoints: [] }),
    };
  },
  getServerCapabilities: async () => ({ supportedModels: [{ modelName: 'local/qwen3-tiny' }] }),
};

let server: Server;
let client: OpenAI;
beforeAll(async () => {
  const routes = createOpenAIRoutes({ backend: async () => backend, rendererName: 'qwen3' });
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
    await routes.handle(
      { method: req.method ?? 'GET', path, headers: req.headers, body: body ? JSON.parse(body) : undefined },
      res,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = new OpenAI({
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    apiKey: 'x',
    maxRetries: 0,
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const REPLY =
  '<think>\nThe user wants weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>';

describe('tools in, tool_calls out, thinking as reasoning_content (official client)', () => {
  it('plain: the tool is declared in the prompt; the call and the reasoning come back parsed', async () => {
    reply = REPLY;
    const r = await client.chat.completions.create({
      model: 'local/qwen3-tiny',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools,
    });
    expect(setup.tokenizer.decode(prompts.at(-1)!.toInts())).toContain('get_weather');
    const c = r.choices[0]!;
    expect(c.finish_reason).toBe('tool_calls');
    expect(c.message.content).toBeNull();
    expect((c.message as unknown as { reasoning_content: string }).reasoning_content).toBe('The user wants weather.');
    const call = c.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('not a function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
  });

  it('streamed: the same call, assembled from the events', async () => {
    reply = REPLY;
    const stream = client.chat.completions.stream({
      model: 'local/qwen3-tiny',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools,
      stream: true,
    });
    const done = await stream.finalChatCompletion();
    const c = done.choices[0]!;
    expect(c.finish_reason).toBe('tool_calls');
    const call = c.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('not a function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
  });

  it('the call and its result go back in: the next prompt holds both, in the renderer’s format', async () => {
    reply = 'It is sunny in Paris.<|im_end|>';
    const r = await client.chat.completions.create({
      model: 'local/qwen3-tiny',
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21 C' },
      ],
    });
    expect(r.choices[0]!.message.content).toBe('It is sunny in Paris.');
    expect(r.choices[0]!.finish_reason).toBe('stop');
    const prompt = setup.tokenizer.decode(prompts.at(-1)!.toInts());
    expect(prompt).toContain('<tool_call>');
    expect(prompt).toContain('<tool_response>\nsunny, 21 C\n</tool_response>');
  });
});
