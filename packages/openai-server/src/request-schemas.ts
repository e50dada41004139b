/**
 * The request bodies of `/v1/chat/completions` and `/v1/completions` (OpenAI's API reference), checked once where
 * they arrive. Fields the routes cannot honour (a non-zero penalty, `logit_bias`, `echo`, `suffix`, `best_of` > n,
 * a `response_format` other than text, a forced `tool_choice`) are refused by name rather than ignored; unknown
 * fields are refused too, as OpenAI does.
 */
import { z } from 'zod';

/** OpenAI's own bound on `top_logprobs` (chat) and `logprobs` (completions: 5). */
export const MAX_TOP_LOGPROBS = 20;
export const MAX_COMPLETION_LOGPROBS = 5;
/** Most prompts in one `/v1/completions` request. */
export const MAX_PROMPTS = 64;
/** Most content parts of one message, and tool calls of one assistant message. */
export const MAX_CONTENT_PARTS = 1024;
export const MAX_TOOL_CALLS = 128;
/** Default bound on the messages of one chat request (`cookbook serve max_messages`). */
export const DEFAULT_MAX_MESSAGES = 4096;

/**
 * A token list checked in one pass that stops at the first bad element: `z.array(z.number())` reports every bad
 * element, and a million of them cost hundreds of MB of issues.
 */
const tokenList = () =>
  z
    .custom<number[]>((v) => Array.isArray(v), { message: 'Invalid input: expected array' })
    .superRefine((v, ctx) => {
      if (v.length === 0) ctx.addIssue({ code: 'custom', message: 'expected at least one token' });
      const bad = v.findIndex((t) => !Number.isSafeInteger(t) || (t as number) < 0);
      if (bad >= 0) {
        ctx.addIssue({
          code: 'custom',
          path: [bad],
          message: `expected a token id (a non-negative integer), got ${String(JSON.stringify(v[bad])).slice(0, 40)}`,
        });
      }
    });

/**
 * A list of at most `max` items, its length checked before any item and its items checked in order up to the first
 * bad one (only its issue is reported): `z.array(item).max(n)` checks every item first and reports each bad one,
 * which for 4,096 messages of 1,024 bad content parts (an 8.5 MB body) kept the HTTP thread busy for a minute.
 */
function listOf<T extends z.ZodType>(item: T, max: number) {
  return z.unknown().transform((v, ctx): z.output<T>[] => {
    if (!Array.isArray(v)) {
      ctx.addIssue({ code: 'custom', message: 'Invalid input: expected array' });
      return z.NEVER;
    }
    if (v.length > max) {
      ctx.addIssue({ code: 'custom', message: `Too big: expected array to have <=${max} items, got ${v.length}` });
      return z.NEVER;
    }
    const out: z.output<T>[] = [];
    for (let i = 0; i < v.length; i++) {
      const r = item.safeParse(v[i]);
      if (!r.success) {
        const issue = r.error.issues[0]!;
        ctx.addIssue({
          code: 'custom',
          path: [i, ...issue.path.map((p) => p as string | number)],
          message: issue.message,
        });
        return z.NEVER;
      }
      out.push(r.data);
    }
    return out;
  });
}

const stop = z.union([z.string(), z.array(z.string()).max(64)]).nullish();
const zeroOnly = (name: string) =>
  z
    .number()
    .nullish()
    .refine((v) => v === undefined || v === null || v === 0, {
      message: `${name} is not supported by this server (only 0)`,
    });

/** Shared sampling fields. */
const samplingShape = {
  model: z.string().min(1).max(1000),
  n: z.number().int().min(1).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  stop,
  seed: z.number().int().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  frequency_penalty: zeroOnly('frequency_penalty'),
  presence_penalty: zeroOnly('presence_penalty'),
  logit_bias: z
    .record(z.string(), z.number())
    .nullish()
    .refine((v) => v === undefined || v === null || Object.keys(v).length === 0, {
      message: 'logit_bias is not supported by this server',
    }),
  user: z.string().nullish(),
  store: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  service_tier: z.string().nullish(),
};

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string(), detail: z.string().optional() }),
});
const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/** One message of a chat request. */
export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({
    role: z.enum(['system', 'developer']),
    content: z.union([z.string(), listOf(textPart, MAX_CONTENT_PARTS)]),
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal('user'),
    content: z.union([z.string(), listOf(z.discriminatedUnion('type', [textPart, imagePart]), MAX_CONTENT_PARTS)]),
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal('assistant'),
    content: z.union([z.string(), listOf(textPart, MAX_CONTENT_PARTS)]).nullish(),
    reasoning_content: z.string().nullish(),
    tool_calls: listOf(toolCall, MAX_TOOL_CALLS).nullish(),
    name: z.string().optional(),
    refusal: z.string().nullish(),
  }),
  z.object({
    role: z.literal('tool'),
    content: z.union([z.string(), listOf(textPart, MAX_CONTENT_PARTS)]),
    tool_call_id: z.string(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1).max(256),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

/** `POST /v1/chat/completions`. */
export const ChatCompletionRequestSchema = z
  .object({
    ...samplingShape,
    messages: z.array(ChatMessageSchema).min(1),
    max_completion_tokens: z.number().int().min(1).nullish(),
    logprobs: z.boolean().nullish(),
    top_logprobs: z.number().int().min(0).max(MAX_TOP_LOGPROBS).nullish(),
    tools: z.array(toolSchema).max(128).nullish(),
    tool_choice: z
      .union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function') }).loose()])
      .nullish()
      .refine((v) => v === undefined || v === null || v === 'none' || v === 'auto', {
        message: 'tool_choice may be "auto" or "none" here: this server cannot force a tool call',
      }),
    parallel_tool_calls: z.boolean().nullish(),
    response_format: z
      .object({ type: z.string() })
      .loose()
      .nullish()
      .refine((v) => v === undefined || v === null || v.type === 'text', {
        message: 'response_format may only be {"type":"text"} here',
      }),
    reasoning_effort: z.string().nullish(),
  })
  .strict()
  .refine((r) => r.top_logprobs === undefined || r.top_logprobs === null || r.logprobs === true, {
    message: 'top_logprobs needs logprobs: true',
    path: ['top_logprobs'],
  });
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** `POST /v1/completions`. */
export const CompletionRequestSchema = z
  .object({
    ...samplingShape,
    prompt: z.union([
      z.string(),
      z.array(z.string()).min(1).max(MAX_PROMPTS),
      tokenList(),
      z.array(tokenList()).min(1).max(MAX_PROMPTS),
    ]),
    logprobs: z.number().int().min(0).max(MAX_COMPLETION_LOGPROBS).nullish(),
    echo: z
      .boolean()
      .nullish()
      .refine((v) => v !== true, { message: 'echo is not supported by this server' }),
    suffix: z
      .string()
      .nullish()
      .refine((v) => v === undefined || v === null, { message: 'suffix is not supported by this server' }),
    best_of: z.number().int().min(1).nullish(),
  })
  .strict()
  .refine((r) => r.best_of === undefined || r.best_of === null || r.best_of === (r.n ?? 1), {
    message: 'best_of other than n is not supported by this server',
    path: ['best_of'],
  });
export type CompletionRequest = z.infer<typeof CompletionRequestSchema>;

/** The prompts of a completion request: one token list or string per prompt. */
export function completionPrompts(prompt: CompletionRequest['prompt']): (string | number[])[] {
  if (typeof prompt === 'string') return [prompt];
  if (prompt.length > 0 && typeof prompt[0] === 'number') return [prompt as number[]];
  return prompt as (string | number[])[];
}
