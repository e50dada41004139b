import type { ToolCall } from '@cookbook/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool, toolSpec } from './define-tool.js';
import { capOutput, executeToolCall, executeToolCalls, toolMap } from './execute.js';

const add = defineTool({
  name: 'add',
  description: 'Add two integers',
  parameters: z.object({ a: z.number().int().describe('first'), b: z.number().int().default(0) }),
  run: ({ a, b }) => String(a + b),
});
const call = (name: string, args: string, id?: string): ToolCall => ({
  type: 'function',
  ...(id === undefined ? {} : { id }),
  function: { name, arguments: args },
});

afterEach(() => {
  vi.useRealTimers();
});

describe('defineTool / toolSpec', () => {
  it('derives the JSON-schema spec from the zod schema (defaults make a field optional)', () => {
    expect(toolSpec(add)).toEqual({
      name: 'add',
      description: 'Add two integers',
      parameters: {
        type: 'object',
        properties: {
          a: { type: 'integer', description: 'first' },
          b: { type: 'integer', default: 0 },
        },
        required: ['a'],
      },
    });
  });

  it('refuses a bad name, non-object parameters and bad limits', () => {
    const run = () => '';
    expect(() => defineTool({ name: 'two words', description: '', parameters: z.object({}), run })).toThrow(
      /not a function identifier/,
    );
    expect(() =>
      defineTool({ name: 't', description: '', parameters: z.string() as unknown as z.ZodObject, run }),
    ).toThrow(/must be a zod object/);
    expect(() => defineTool({ name: 't', description: '', parameters: z.object({}), timeoutSeconds: 0, run })).toThrow(
      /timeoutSeconds must be a positive number/,
    );
  });
});

describe('executeToolCall', () => {
  const tools = toolMap([add]);

  it('runs a valid call and answers with a tool message carrying the call id', async () => {
    const r = await executeToolCall(tools, call('add', '{"a": 2, "b": 3}', 'c1'));
    expect(r.error).toBeUndefined();
    expect(r.message).toEqual({ role: 'tool', content: '5', name: 'add', tool_call_id: 'c1' });
  });

  it('turns an unknown tool into an error message naming the available tools', async () => {
    const r = await executeToolCall(tools, call('mul', '{"a": 2}'));
    expect(r.error).toBe('unknown_tool');
    expect(r.message.role).toBe('tool');
    expect(r.message.content).toBe('Error: unknown tool "mul". Available tools: add.');
  });

  it('turns arguments that are not JSON into an error message', async () => {
    const r = await executeToolCall(tools, call('add', '{"a": 2,'));
    expect(r.error).toBe('invalid_json');
    expect(r.message.content).toMatch(/^Error: the arguments of add are not valid JSON/);
  });

  it('turns a schema violation into an error message naming the field', async () => {
    const r = await executeToolCall(tools, call('add', '{"a": "two"}'));
    expect(r.error).toBe('invalid_arguments');
    expect(r.message.content).toMatch(/^Error: invalid arguments for add: a: .*expected number/i);
    const extra = await executeToolCall(tools, call('add', '{"a": 1.5}'));
    expect(extra.error).toBe('invalid_arguments');
  });

  it('turns a throwing tool (sync or async) into an error message', async () => {
    const bad = defineTool({
      name: 'bad',
      description: '',
      parameters: z.object({}),
      run: () => {
        throw new Error('disk on fire');
      },
    });
    const r = await executeToolCall(toolMap([bad]), call('bad', '{}'));
    expect(r.error).toBe('threw');
    expect(r.message.content).toBe('Error: bad failed: disk on fire');
  });

  it('cuts a hanging tool at its timeout and aborts its signal', async () => {
    vi.useFakeTimers();
    let aborted = false;
    const hang = defineTool({
      name: 'hang',
      description: '',
      parameters: z.object({}),
      timeoutSeconds: 5,
      run: (_args, { signal }) =>
        new Promise<string>(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    const pending = executeToolCall(toolMap([hang]), call('hang', '{}'));
    await vi.advanceTimersByTimeAsync(4999);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const r = await pending;
    expect(r.error).toBe('timeout');
    expect(r.message.content).toBe('Error: hang did not finish within 5 seconds.');
    expect(aborted).toBe(true);
  });

  it('uses the executor timeout when the tool sets none', async () => {
    vi.useFakeTimers();
    const slow = defineTool({
      name: 'slow',
      description: '',
      parameters: z.object({}),
      run: () => new Promise<string>(() => {}),
    });
    const pending = executeToolCall(toolMap([slow]), call('slow', ''), { timeoutSeconds: 2 });
    await vi.advanceTimersByTimeAsync(2000);
    expect((await pending).error).toBe('timeout');
  });

  it('caps long output with a note', async () => {
    const long = defineTool({
      name: 'long',
      description: '',
      parameters: z.object({}),
      maxOutputChars: 10,
      run: () => 'x'.repeat(25),
    });
    const r = await executeToolCall(toolMap([long]), call('long', '{}'));
    expect(r.truncated).toBe(true);
    expect(r.message.content).toBe(`${'x'.repeat(10)}\n[output truncated: 10 of 25 characters shown]`);
    expect(capOutput('abc', 3)).toEqual({ text: 'abc', truncated: false });
  });

  it('passes per-call rewards, metrics and stop requests through', async () => {
    const submit = defineTool({
      name: 'submit',
      description: '',
      parameters: z.object({ answer: z.string() }),
      run: ({ answer }) => ({ content: 'ok', reward: answer === '42' ? 1 : 0, metrics: { submitted: 1 }, stop: true }),
    });
    const r = await executeToolCall(toolMap([submit]), call('submit', '{"answer":"42"}'));
    expect(r).toMatchObject({ reward: 1, metrics: { submitted: 1 }, stop: true });
  });
});

describe('executeToolCalls', () => {
  it('runs calls concurrently by default and keeps their order; unparsed calls become errors', async () => {
    const started: string[] = [];
    const resolvers: Array<() => void> = [];
    const wait = defineTool({
      name: 'wait',
      description: '',
      parameters: z.object({ tag: z.string() }),
      run: ({ tag }) =>
        new Promise<string>((resolve) => {
          started.push(tag);
          resolvers.push(() => resolve(tag));
        }),
    });
    const pending = executeToolCalls(toolMap([wait]), {
      tool_calls: [call('wait', '{"tag":"a"}'), call('wait', '{"tag":"b"}')],
      unparsed_tool_calls: [{ raw_text: '<tool_call>{oops</tool_call>', error: 'invalid JSON' }],
    });
    await vi.waitFor(() => expect(started).toEqual(['a', 'b']));
    for (const r of resolvers.reverse()) r();
    const results = await pending;
    expect(results.map((r) => r.message.content)).toEqual([
      'a',
      'b',
      'Error: could not parse the tool call "<tool_call>{oops</tool_call>": invalid JSON',
    ]);
    expect(results[2]!.error).toBe('unparsed');
  });

  it('runs calls one after another with parallel=false', async () => {
    const log: string[] = [];
    const step = defineTool({
      name: 'step',
      description: '',
      parameters: z.object({ tag: z.string() }),
      run: async ({ tag }) => {
        log.push(`start ${tag}`);
        await Promise.resolve();
        log.push(`end ${tag}`);
        return tag;
      },
    });
    await executeToolCalls(
      toolMap([step]),
      { tool_calls: [call('step', '{"tag":"a"}'), call('step', '{"tag":"b"}')] },
      {
        parallel: false,
      },
    );
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});
