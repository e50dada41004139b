/**
 * `/v1/chat/completions` ⇄ the cookbook's chat: OpenAI messages become cookbook `Message`s (an assistant's
 * `reasoning_content` becomes its thinking part, `developer` becomes `system`, a tool reply gets its function's name
 * from the call it answers), tools are declared with the renderer's `createConversationPrefixWithTools`, the
 * conversation is rendered with `buildGenerationPrompt`, and each sampled sequence is parsed back with the
 * renderer's `parseResponse`: text → `content`, thinking → `reasoning_content`, tool calls → `tool_calls`.
 */
import { randomUUID } from 'node:crypto';
import type { ContentPart, Message, ModelInput, StopCondition, ToolCall, ToolSpec } from '@cookbook/core';
import type { ModelSetup } from '@cookbook/renderers';
import type { ChatCompletionRequest, ChatMessage } from './request-schemas.js';
import { firstStop, type SampledChoice, tokenText } from './sampling.js';

/** An OpenAI logprob entry. */
export interface LogprobEntry {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

/** One choice of a chat completion. */
export interface ChatChoice {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    reasoning_content?: string;
    tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    refusal: null;
  };
  logprobs: { content: LogprobEntry[]; refusal: null } | null;
  finish_reason: 'stop' | 'length' | 'tool_calls';
}

function partsText(content: string | { text: string }[] | null | undefined): string {
  if (content === null || content === undefined) return '';
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

/** OpenAI chat messages as cookbook messages. */
export function toCookbookMessages(messages: readonly ChatMessage[]): Message[] {
  const callNames = new Map<string, string>();
  return messages.map((m): Message => {
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: partsText(m.content) };
      case 'user': {
        if (typeof m.content === 'string') return { role: 'user', content: m.content };
        const parts: ContentPart[] = m.content.map((p) =>
          p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image', image: p.image_url.url },
        );
        return { role: 'user', content: parts };
      }
      case 'assistant': {
        const text = partsText(m.content);
        const out: Message = {
          role: 'assistant',
          content:
            m.reasoning_content !== undefined && m.reasoning_content !== null && m.reasoning_content !== ''
              ? [
                  { type: 'thinking', thinking: m.reasoning_content },
                  { type: 'text', text },
                ]
              : text,
        };
        if (m.tool_calls && m.tool_calls.length > 0) {
          out.tool_calls = m.tool_calls.map((c): ToolCall => {
            callNames.set(c.id, c.function.name);
            return { type: 'function', id: c.id, function: { name: c.function.name, arguments: c.function.arguments } };
          });
        }
        return out;
      }
      default: {
        const name = callNames.get(m.tool_call_id);
        return {
          role: 'tool',
          content: partsText(m.content),
          tool_call_id: m.tool_call_id,
          ...(name === undefined ? {} : { name }),
        };
      }
    }
  });
}

/** The prompt and stop condition of a chat request. */
export function buildChatPrompt(
  setup: ModelSetup,
  req: ChatCompletionRequest,
): { prompt: ModelInput; stop: StopCondition; userStops: string[] } {
  let messages = toCookbookMessages(req.messages);
  const tools = req.tool_choice === 'none' ? [] : (req.tools ?? []);
  if (tools.length > 0) {
    const specs: ToolSpec[] = tools.map((t) => ({
      name: t.function.name,
      description: t.function.description ?? '',
      parameters: t.function.parameters ?? { type: 'object', properties: {} },
    }));
    const first = messages[0];
    const system = first?.role === 'system' ? first : undefined;
    const prefix = setup.renderer.createConversationPrefixWithTools(
      specs,
      system === undefined ? undefined : partsText(system.content as string),
    );
    messages = [...prefix, ...(system === undefined ? messages : messages.slice(1))];
  }
  const prompt = setup.renderer.buildGenerationPrompt(messages);
  const userStops =
    req.stop === undefined || req.stop === null ? [] : typeof req.stop === 'string' ? [req.stop] : req.stop;
  const rendererStop = setup.renderer.getStopSequences();
  if (userStops.length === 0) return { prompt, stop: rendererStop, userStops };
  // The sampler takes stop strings or stop token ids, not both: the renderer's stop tokens join as their text.
  const asText = rendererStop.map((s) => (typeof s === 'number' ? setup.tokenizer.decode([s]) : s));
  return { prompt, stop: [...new Set([...asText, ...userStops])], userStops };
}

/** Whether `token` is one of the renderer's stop tokens (dropped from `logprobs`, as OpenAI shows no end token). */
function isStopToken(setup: ModelSetup, token: number | undefined): boolean {
  if (token === undefined) return false;
  const stops = setup.renderer.getStopSequences();
  return stops.some((s) => (typeof s === 'number' ? s === token : setup.tokenizer.decode([token]) === s));
}

/** Logprob entries of a sequence's visible tokens (a trailing stop token dropped). */
export function logprobEntries(setup: ModelSetup, choice: SampledChoice, dropLastToken: boolean): LogprobEntry[] {
  const { tokens, logprobs } = choice.sequence;
  const count = dropLastToken ? tokens.length - 1 : tokens.length;
  const decode = (t: readonly number[]) => setup.tokenizer.decode(t);
  const out: LogprobEntry[] = [];
  for (let i = 0; i < count; i++) {
    const t = tokens[i] as number;
    out.push({
      ...tokenText(decode, t),
      logprob: logprobs?.[i] ?? Number.NaN,
      top_logprobs: (choice.top?.[i] ?? []).map(([id, lp]) => ({ ...tokenText(decode, id), logprob: lp })),
    });
  }
  return out;
}

/** A sampled sequence as an OpenAI chat choice. */
export function chatChoice(
  setup: ModelSetup,
  choice: SampledChoice,
  index: number,
  options: { userStops: readonly string[]; logprobs: boolean; toolsDeclared: boolean },
): ChatChoice {
  const { tokens, stopReason } = choice.sequence;
  let { message } = setup.renderer.parseResponse(tokens);
  let userStopHit = false;
  if (options.userStops.length > 0 && stopReason === 'stop') {
    const cut = cutAtStop(message, options.userStops);
    userStopHit = cut !== undefined;
    if (cut !== undefined) message = cut;
  }
  const parts =
    typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
  const text = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const thinking = parts.flatMap((p) => (p.type === 'thinking' ? [p.thinking] : [])).join('');
  const calls = options.toolsDeclared ? (message.tool_calls ?? []) : [];
  const toolCalls = calls.map((c) => ({
    id: c.id ?? `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'function' as const,
    function: { name: c.function.name, arguments: c.function.arguments },
  }));
  const dropLast = stopReason === 'stop' && !userStopHit && isStopToken(setup, tokens.at(-1));
  return {
    index,
    message: {
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      ...(thinking === '' ? {} : { reasoning_content: thinking }),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      refusal: null,
    },
    logprobs: options.logprobs ? { content: logprobEntries(setup, choice, dropLast), refusal: null } : null,
    finish_reason: toolCalls.length > 0 ? 'tool_calls' : stopReason === 'length' ? 'length' : 'stop',
  };
}

/** `message` with its text cut before the first of `stops` (later parts and tool calls dropped); undefined: none. */
function cutAtStop(message: Message, stops: readonly string[]): Message | undefined {
  const parts: ContentPart[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  const kept: ContentPart[] = [];
  for (const p of parts) {
    if (p.type === 'text') {
      const hit = firstStop(p.text, stops);
      if (hit !== undefined) {
        kept.push({ type: 'text', text: p.text.slice(0, hit.index) });
        return { role: message.role, content: kept };
      }
    }
    kept.push(p);
  }
  return undefined;
}

/**
 * A streamed choice's content as one delta per sampled token (each with its logprob entry), when the content is
 * exactly the text of the visible tokens (no thinking, no tool call, no stop string cut); undefined otherwise (the
 * content then goes in one delta). Each token's text is decoded against the few tokens before it, so the work stays
 * linear in the reply's length.
 */
export function tokenDeltas(
  setup: ModelSetup,
  sampled: SampledChoice,
  choice: ChatChoice,
): { content: string; entry: LogprobEntry | undefined }[] | undefined {
  const content = choice.message.content;
  if (content === null || content === '' || choice.message.reasoning_content !== undefined) return undefined;
  if (choice.message.tool_calls !== undefined) return undefined;
  const { tokens } = sampled.sequence;
  const visible =
    choice.finish_reason === 'stop' && isStopToken(setup, tokens.at(-1)) ? tokens.length - 1 : tokens.length;
  const decode = (t: readonly number[]) => setup.tokenizer.decode(t);
  const out: { content: string; entry: LogprobEntry | undefined }[] = [];
  for (let i = 0; i < visible; i++) {
    const from = Math.max(0, i - 4);
    const before = decode(tokens.slice(from, i));
    const after = decode(tokens.slice(from, i + 1));
    if (!after.startsWith(before)) return undefined;
    out.push({ content: after.slice(before.length), entry: choice.logprobs?.content[i] });
  }
  return out.map((d) => d.content).join('') === content ? out : undefined;
}
