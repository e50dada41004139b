import type { Message } from '@cookbook/core';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { TOOLS, WEATHER_TOOL } from './__fixtures__/conversations.js';
import { formatHarmonyToolDefinition, GptOssRenderer } from './gpt-oss-renderer.js';

const tok = getTokenizer('openai/gpt-oss-20b');
const none = new GptOssRenderer(tok);
const medium = new GptOssRenderer(tok, { reasoningEffort: 'medium', currentDate: '2025-06-28' });
const text = (ids: number[]) => tok.decode(ids);

const SYSTEM =
  '<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n' +
  'Current date: 2025-06-28\n\nReasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be ' +
  'included for every message.';

// The documented wire strings (openai-harmony); the official template is compared in template-conformance.test.ts.
describe('gpt-oss Harmony format', () => {
  it('no_sysprompt: user turn and generation header', () => {
    expect(text(none.buildGenerationPrompt([{ role: 'user', content: 'What is 2 + 2?' }]).toInts())).toBe(
      '<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant',
    );
  });
  it('reasoning system message, developer instructions, history with analysis and final', () => {
    const msgs: Message[] = [
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Greet.' },
          { type: 'text', text: 'Salut !' },
        ],
      },
      { role: 'user', content: 'Ça va ?' },
    ];
    expect(text(medium.buildGenerationPrompt(msgs).toInts())).toBe(
      `${SYSTEM}<|end|><|start|>developer<|message|># Instructions\n\nAnswer in French.\n\n<|end|>` +
        '<|start|>user<|message|>Hi<|end|>' +
        '<|start|>assistant<|channel|>analysis<|message|>Greet.<|end|><|start|>assistant<|channel|>final<|message|>Salut !<|end|>' +
        '<|start|>user<|message|>Ça va ?<|end|><|start|>assistant',
    );
  });
  it('tools: routing line joins the system message; functions namespace in the developer message', () => {
    const msgs = [
      ...medium.createConversationPrefixWithTools(TOOLS, 'Be brief.'),
      { role: 'user', content: 'Weather?' },
    ];
    expect(text(medium.buildGenerationPrompt(msgs).toInts())).toBe(
      `${SYSTEM}\nCalls to these tools must go to the commentary channel: 'functions'.<|end|>` +
        '<|start|>developer<|message|># Instructions\n\nBe brief.\n\n# Tools\n\n## functions\n\nnamespace functions {\n\n' +
        '// Get the current weather in a city.\ntype get_weather = (_: {\n// City name, e.g. Paris\ncity: string,\n' +
        'unit?: "celsius" | "fahrenheit", // default: "celsius"\n}) => any;\n\n' +
        '// Current time in a time zone.\ntype get_time = (_: {\ntz: string,\n}) => any;\n\n} // namespace functions<|end|>' +
        '<|start|>user<|message|>Weather?<|end|><|start|>assistant',
    );
    // Without its own system message the routing line is a system message of its own.
    expect(
      text(none.buildGenerationPrompt(msgs).toInts()).startsWith(
        "<|start|>system<|message|>Calls to these tools must go to the commentary channel: 'functions'.<|end|><|start|>developer",
      ),
    ).toBe(true);
  });
  it('tool calls and tool results', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'Use the tool.' }],
        tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', name: 'get_weather', content: '{"sky":"clear"}' },
    ];
    expect(text(none.buildGenerationPrompt(msgs).toInts())).toBe(
      '<|start|>user<|message|>Weather in Paris?<|end|>' +
        '<|start|>assistant<|channel|>analysis<|message|>Use the tool.<|end|>' +
        '<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city":"Paris"}<|call|>' +
        '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"sky":"clear"}<|end|><|start|>assistant',
    );
    expect(() => none.buildGenerationPrompt([{ role: 'tool', content: 'x' }])).toThrow(/name/);
  });
  it('last assistant message ends with <|return|> and parses back', () => {
    const msg: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Easy.' },
        { type: 'text', text: '4' },
      ],
    };
    const msgs: Message[] = [{ role: 'user', content: '2+2?' }, msg];
    const { modelInput, weights } = medium.buildSupervisedExample(msgs);
    const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
    expect(text(action)).toBe(
      '<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>',
    );
    expect(medium.parseResponse(action)).toEqual({ message: msg, termination: 'stop_sequence' });
  });
  it('parses tool calls, with preamble, stops at <|call|>', () => {
    const call: Message = {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }],
    };
    const { modelInput, weights } = none.buildSupervisedExample([{ role: 'user', content: 'Oslo?' }, call]);
    const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
    expect(none.parseResponse(action)).toEqual({ message: call, termination: 'stop_sequence' });
    const bad = none.parseResponse(
      tok.encode(' to=functions.f<|channel|>commentary <|constrain|>json<|message|>{x<|call|>'),
    );
    expect(bad.message.unparsed_tool_calls?.[0]?.error).toMatch(/Invalid JSON/);
    expect(none.parseResponse(tok.encode('<|channel|>final<|message|>cut')).termination).toBe('malformed');
    expect(() => none.parseResponse(tok.encode('a<|return|>b<|return|>'))).toThrow(/at most one/);
    expect(none.getStopSequences()).toEqual([tok.convertTokenToId('<|return|>'), tok.convertTokenToId('<|call|>')]);
  });
  it('formats a parameterless tool', () => {
    expect(
      formatHarmonyToolDefinition({
        name: 'now',
        description: 'Time.',
        parameters: { type: 'object', properties: {} },
      }),
    ).toBe('// Time.\ntype now = () => any;');
    expect(formatHarmonyToolDefinition(WEATHER_TOOL)).toContain('type get_weather = (_: {\n');
    // A described parameters object: its comment between `(_:` and `{`, as openai-harmony writes it.
    expect(
      formatHarmonyToolDefinition({
        name: 'f',
        description: 'F.',
        parameters: { type: 'object', description: 'Args.', properties: { x: { type: 'string' } } },
      }),
    ).toBe('// F.\ntype f = (_: // Args.\n{\nx?: string,\n}) => any;');
  });
});
