/** Conversations used by the parity and consistency tests, plus their Hugging Face chat-template form. */
import type { Message, ToolSpec } from '@cookbook/core';

export const WEATHER_TOOL: ToolSpec = {
  name: 'get_weather',
  description: 'Get the current weather in a city.',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name, e.g. Paris' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
    },
    required: ['city'],
  },
};

export const TIME_TOOL: ToolSpec = {
  name: 'get_time',
  description: 'Current time in a time zone.',
  parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
};

export const TOOLS: ToolSpec[] = [WEATHER_TOOL, TIME_TOOL];

/** A named conversation; `tools` means "declare these tools with the system prompt". */
export interface Case {
  name: string;
  messages: Message[];
  tools?: ToolSpec[];
  systemPrompt?: string;
}

const call = (name: string, args: string, id?: string): NonNullable<Message['tool_calls']>[number] => ({
  type: 'function',
  ...(id === undefined ? {} : { id }),
  function: { name, arguments: args },
});

/** Conversations without tool calls or thinking: every chat format renders these. */
export const PLAIN_CASES: Case[] = [
  { name: 'single user', messages: [{ role: 'user', content: 'Hello, how are you?' }] },
  {
    name: 'system + user',
    messages: [
      { role: 'system', content: 'You are a terse assistant.' },
      { role: 'user', content: 'What is 2+2?' },
    ],
  },
  {
    name: 'multi-turn',
    messages: [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Name a colour.' },
      { role: 'assistant', content: 'Blue.' },
      { role: 'user', content: 'Another one?' },
      { role: 'assistant', content: 'Green, and maybe teal.' },
      { role: 'user', content: 'Thanks!' },
    ],
  },
  {
    name: 'empty assistant content',
    messages: [
      { role: 'user', content: 'Say nothing.' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'Now say something.' },
    ],
  },
  {
    name: 'non-ASCII',
    messages: [
      { role: 'user', content: '你好, ça va? 🙂 Ünïcödé — naïve façade' },
      { role: 'assistant', content: 'Très bien — ありがとう! Ωμέγα ✓' },
      { role: 'user', content: 'Скажи ещё раз 👍🏽' },
    ],
  },
  {
    name: 'code and newlines',
    messages: [
      { role: 'user', content: 'Write code:\n\n```ts\nconst x = 1;\n```\nExplain.' },
      { role: 'assistant', content: 'It declares x.\n\n- one\n- two' },
      { role: 'user', content: 'And   spaces\tand tabs?' },
    ],
  },
];

/** Conversations with reasoning in assistant messages. */
export const THINKING_CASES: Case[] = [
  {
    name: 'thinking in history',
    messages: [
      { role: 'user', content: 'What is 17*3?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '17*3 = 51.' },
          { type: 'text', text: '51' },
        ],
      },
      { role: 'user', content: 'And 51/3?' },
    ],
  },
  {
    name: 'thinking in two history turns',
    messages: [
      { role: 'system', content: 'Think step by step.' },
      { role: 'user', content: 'a?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Letter a.' }, { type: 'text', text: 'A' }] },
      { role: 'user', content: 'b?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Letter b.\nSure.' }, { type: 'text', text: 'B' }] },
      { role: 'user', content: 'c?' },
    ],
  },
];

/** Conversations with tool declarations, calls and results (arguments in Python json.dumps spacing). */
export const TOOL_CASES: Case[] = [
  {
    name: 'tool declarations',
    tools: TOOLS,
    systemPrompt: 'You are a weather bot.',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  },
  {
    name: 'tool declarations without system prompt',
    tools: [WEATHER_TOOL],
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  },
  {
    name: 'tool call and result',
    tools: TOOLS,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', tool_calls: [call('get_weather', '{"city": "Paris"}', 'call_1')] },
      { role: 'tool', content: '{"temp": 21, "sky": "clear"}', tool_call_id: 'call_1', name: 'get_weather' },
    ],
  },
  {
    name: 'two tool calls, two results, answer, next question',
    tools: TOOLS,
    systemPrompt: 'Be brief.',
    messages: [
      { role: 'user', content: 'Weather and time in Tokyo?' },
      {
        role: 'assistant',
        content: 'Let me check both.',
        tool_calls: [call('get_weather', '{"city": "Tokyo", "unit": "celsius"}'), call('get_time', '{"tz": "Asia/Tokyo"}')],
      },
      { role: 'tool', content: '18°C, rain', name: 'get_weather' },
      { role: 'tool', content: '09:30', name: 'get_time' },
      { role: 'assistant', content: 'It is 18°C with rain, and 09:30.' },
      { role: 'user', content: 'Thanks. And Kyoto?' },
    ],
  },
];

/** Agentic turn: reasoning and a tool call after the last user query. */
export const THINKING_TOOL_CASES: Case[] = [
  {
    name: 'thinking + tool call in the current turn',
    tools: TOOLS,
    messages: [
      { role: 'user', content: 'Weather in Rome?' },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'I should call the tool.' }],
        tool_calls: [call('get_weather', '{"city": "Rome"}')],
      },
      { role: 'tool', content: 'sunny', name: 'get_weather' },
    ],
  },
];

/** A message in the form chat templates read (reasoning_content, tool_calls). */
export interface HfMessage {
  role: string;
  content: string;
  reasoning_content?: string;
  tool_calls?: { type: 'function'; id?: string; function: { name: string; arguments: string } }[];
  name?: string;
  tool_call_id?: string;
}

/** Convert to the template form: text joined; thinking → reasoning_content (only when present). */
export function toHfMessages(messages: readonly Message[]): HfMessage[] {
  return messages.map((m) => {
    const out: HfMessage = { role: m.role, content: '' };
    if (typeof m.content === 'string') out.content = m.content;
    else {
      let thinking = '';
      let hasThinking = false;
      for (const p of m.content) {
        if (p.type === 'text') out.content += p.text;
        if (p.type === 'thinking') {
          thinking += p.thinking;
          hasThinking = true;
        }
      }
      if (hasThinking) out.reasoning_content = thinking;
    }
    if (m.tool_calls) out.tool_calls = m.tool_calls.map((c) => ({ ...c }));
    if (m.name !== undefined) out.name = m.name;
    if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
    return out;
  });
}

/** The template's `tools` argument. */
export function toHfTools(tools: readonly ToolSpec[]): { type: 'function'; function: ToolSpec }[] {
  return tools.map((t) => ({ type: 'function', function: t }));
}
