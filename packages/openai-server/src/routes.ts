/**
 * The OpenAI-compatible routes: `GET /v1/models`, `GET /v1/models/{id}`, `POST /v1/completions`,
 * `POST /v1/chat/completions` (plain JSON or `stream: true` server-sent events), answered through a Tinker service.
 *
 * Streaming: on a service that reports a sample's tokens as they come (`sample_partial_results`: the embedded one),
 * a streamed reply's content is sent while it is sampled (`live-text.ts`: the text that can no longer change — not
 * the tail that could still become a stop string); the rest (content the reply parsed otherwise, reasoning, tool
 * calls, finish, usage, `[DONE]`) follows with the result. Live deltas need `logprobs` off and, for chat, no tools
 * declared, and stop when the reply turns out not to be plain text (thinking). Otherwise, and on a service that does
 * not stream (the hosted API has no streaming), every event is written when the sample is done (role, reasoning,
 * content — one delta per token with its logprob when the content is the tokens' text, else one delta —, tool calls,
 * finish, usage, `[DONE]`). The response opens with its first event, so a refused request still gets its 4xx.
 *
 * Auth: with an `apiKey`, every route wants it as `Authorization: Bearer <key>` (what OpenAI clients send) or
 * `X-API-Key`. Cancellation: when the client disconnects before its answer (`request.signal` aborts), the request's
 * samples are abandoned (the Tinker client cancels them on the service). Body size and JSON nesting are bounded by whoever reads the body (`cookbook serve`: the service's
 * `max_body_mb` and `max_json_depth`); the bounds on a sample (n, max_tokens, stop sequences, memory) are the Tinker
 * service's, and its refusals come back in OpenAI's error shape.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import { buildChatPrompt, type ChatChoice, chatChoice, tokenDeltas } from './chat.js';
import { type CompletionChoice, completionChoice, completionPrompt, completionStop } from './completions.js';
import { holdBackFor, LiveText } from './live-text.js';
import { ModelResolver, type OpenAIBackend } from './models.js';
import { OpenAIHttpError, openAIErrorBody, toOpenAIError } from './openai-errors.js';
import {
  type ChatCompletionRequest,
  ChatCompletionRequestSchema,
  type CompletionRequest,
  CompletionRequestSchema,
  completionPrompts,
  DEFAULT_MAX_MESSAGES,
} from './request-schemas.js';
import { firstStop, type SampledChoice, sampleChoices } from './sampling.js';

/** A request as the HTTP layer hands it over (the shape of local-tinker's `ServiceRequest`). */
export interface OpenAIRequest {
  method: string;
  /** Path with any trailing slash removed. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; undefined when empty. */
  body: unknown;
  /** Aborts when the client goes away (its connection closed): the request's sampling is then cancelled. */
  signal?: AbortSignal;
}

/** Options of {@link createOpenAIRoutes}. */
export interface OpenAIRoutesOptions {
  /** The Tinker service to sample from (called once, on the first request that needs it). */
  backend: () => Promise<OpenAIBackend>;
  /** Require this key (`Authorization: Bearer` or `X-API-Key`); empty/undefined: no key. */
  apiKey?: string;
  /** Render every model with this renderer instead of its catalogued one. */
  rendererName?: string;
  /** Where unexpected failures are logged. Default: console.error. */
  log?: (message: string) => void;
  /**
   * Most messages of one chat request (default {@link DEFAULT_MAX_MESSAGES}; `cookbook serve` passes its
   * `max_messages`): counted before the request is validated, so a long list costs no more than its refusal.
   */
  maxMessages?: number;
}

/** Routes to mount under `/v1` (structurally a local-tinker `MountedRoutes`). */
export interface OpenAIRoutes {
  prefix: '/v1';
  handle(request: OpenAIRequest, res: ServerResponse): Promise<void>;
  errorBody(status: number, message: string): unknown;
}

/** Build the routes. */
export function createOpenAIRoutes(options: OpenAIRoutesOptions): OpenAIRoutes {
  let backend: Promise<OpenAIBackend> | undefined;
  const getBackend = () => {
    // The handshake first: in JWT mode the service takes no other call before it (regression: the first
    // `GET /v1/models` got a 401 "Invalid JWT" until another route had opened the session).
    if (backend !== undefined) return backend;
    const opened = options.backend().then(async (b) => {
      await b.sessionId?.();
      return b;
    });
    backend = opened;
    // A failed handshake is tried again by the next request.
    opened.catch(() => {
      if (backend === opened) backend = undefined;
    });
    return opened;
  };
  const models = new ModelResolver(
    getBackend,
    options.rendererName === undefined ? {} : { rendererName: options.rendererName },
  );
  const log = options.log ?? ((m: string) => console.error(m));
  const maxMessages = options.maxMessages ?? DEFAULT_MAX_MESSAGES;
  return {
    prefix: '/v1',
    errorBody: openAIErrorBody,
    async handle(request, res) {
      try {
        checkAuth(options.apiKey, request.headers);
        const route = `${request.method} ${request.path}`;
        if (route === 'GET /v1/models') return sendJson(res, 200, await listModels(getBackend, models));
        if (request.method === 'GET' && request.path.startsWith('/v1/models/')) {
          const id = decodeURIComponent(request.path.slice('/v1/models/'.length));
          const list = await listModels(getBackend, models);
          const found = list.data.find((m) => m.id === id);
          if (found === undefined) {
            throw new OpenAIHttpError(404, `The model "${id}" does not exist`, {
              param: 'model',
              code: 'model_not_found',
            });
          }
          return sendJson(res, 200, found);
        }
        if (route === 'POST /v1/chat/completions') {
          checkMessageCount(request.body, maxMessages);
          return await chatCompletions(models, parse(ChatCompletionRequestSchema, request.body), res, request.signal);
        }
        if (route === 'POST /v1/completions') {
          return await completions(models, parse(CompletionRequestSchema, request.body), res, request.signal);
        }
        const known = ['/v1/models', '/v1/chat/completions', '/v1/completions'].includes(request.path);
        throw new OpenAIHttpError(
          known ? 405 : 404,
          known
            ? `${request.method} is not allowed on ${request.path}`
            : `Unknown route ${request.method} ${request.path} (this server has GET /v1/models, POST /v1/completions and POST /v1/chat/completions)`,
        );
      } catch (err) {
        // The client went away: its sampling was cancelled, and there is no one to answer.
        if (request.signal?.aborted === true) return;
        const e = toOpenAIError(err);
        if (e.status >= 500 && !(err instanceof OpenAIHttpError)) {
          log(
            `openai routes: ${request.method} ${request.path} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          );
        }
        if (res.headersSent) {
          res.destroy();
          return;
        }
        sendJson(res, e.status, e.toBody());
      }
    },
  };
}

function checkAuth(key: string | undefined, headers: OpenAIRequest['headers']): void {
  if (key === undefined || key === '') return;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const bearer = /^Bearer\s+(.+)$/i.exec(one(headers.authorization) ?? '')?.[1]?.trim();
  const given = bearer ?? one(headers['x-api-key']);
  if (given === undefined || given === '') {
    throw new OpenAIHttpError(401, 'No API key given: send it as "Authorization: Bearer <key>" (or X-API-Key)', {
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
  }
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new OpenAIHttpError(401, 'Incorrect API key provided', {
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
  }
}

/** A 400 when a chat body's `messages` list is longer than `max` (before anything else is checked). */
function checkMessageCount(body: unknown, max: number): void {
  const messages = body !== null && typeof body === 'object' ? (body as { messages?: unknown }).messages : undefined;
  if (Array.isArray(messages) && messages.length > max) {
    throw new OpenAIHttpError(
      400,
      `'messages' holds ${messages.length} messages, over this server's limit of ${max} (max_messages)`,
      { param: 'messages', code: 'invalid_value' },
    );
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body === undefined) throw new OpenAIHttpError(400, 'The request has no JSON body');
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const param = issue?.path.map(String).join('.') ?? '';
  const extra =
    issue?.code === 'unrecognized_keys'
      ? `Unrecognized request argument supplied: ${issue.keys.join(', ')}`
      : undefined;
  throw new OpenAIHttpError(
    400,
    extra ?? `Invalid value for ${param === '' ? 'the request' : `'${param}'`}: ${issue?.message ?? 'invalid'}`,
    { param: param === '' ? null : param, code: extra ? 'unrecognized_argument' : 'invalid_value' },
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) });
  res.end(payload);
}

/** Server-sent events; the response opens (200) with the first event, so a failure before it is a plain error. */
class EventStream {
  constructor(private readonly res: ServerResponse) {}

  private open(): void {
    if (this.res.headersSent) return;
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
  }

  send(event: unknown): void {
    this.open();
    this.res.write(`data: ${JSON.stringify(event)}\n\n`);
  }

  end(events: readonly unknown[]): void {
    for (const e of events) this.send(e);
    this.open();
    this.res.end('data: [DONE]\n\n');
  }
}

interface ModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

async function listModels(
  getBackend: () => Promise<OpenAIBackend>,
  models: ModelResolver,
): Promise<{ object: 'list'; data: ModelCard[] }> {
  const caps = await (await getBackend()).getServerCapabilities();
  const data: ModelCard[] = caps.supportedModels.flatMap((m) =>
    m.modelName === undefined ? [] : [{ id: m.modelName, object: 'model' as const, created: 0, owned_by: 'tinker' }],
  );
  for (const c of await models.samplerCheckpoints()) {
    const t = Date.parse(c.time);
    data.push({
      id: c.tinker_path,
      object: 'model',
      created: Number.isFinite(t) ? Math.floor(t / 1000) : 0,
      owned_by: 'user',
    });
  }
  return { object: 'list', data };
}

const nowS = () => Math.floor(Date.now() / 1000);

async function chatCompletions(
  models: ModelResolver,
  req: ChatCompletionRequest,
  res: ServerResponse,
  signal: AbortSignal | undefined,
) {
  const model = await models.resolve(req.model);
  const { prompt, stop, userStops } = buildChatPrompt(model.setup, req);
  const logprobs = req.logprobs === true;
  const toolsDeclared = (req.tools?.length ?? 0) > 0 && req.tool_choice !== 'none';
  const id = `chatcmpl-${randomUUID()}`;
  const created = nowS();
  const chunk = (choices: unknown[]) => ({ id, object: 'chat.completion.chunk', created, model: req.model, choices });
  const stream = req.stream === true ? new EventStream(res) : undefined;
  // Live content: the text of the tokens so far as the renderer parses it, cut at the first user stop string.
  const visible = (tokens: readonly number[]): string | undefined => {
    const { message } = model.setup.renderer.parseResponse([...tokens]);
    if ((message.tool_calls?.length ?? 0) > 0) return undefined;
    if (typeof message.content !== 'string' && message.content.some((p) => p.type !== 'text')) return undefined;
    const text =
      typeof message.content === 'string'
        ? message.content
        : message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    const hit = firstStop(text, userStops);
    return hit === undefined ? text : text.slice(0, hit.index);
  };
  const live =
    stream !== undefined && !logprobs && !toolsDeclared
      ? Array.from({ length: req.n ?? 1 }, () => new LiveText(visible, holdBackFor(userStops)))
      : undefined;
  const onTokens =
    live === undefined || stream === undefined
      ? undefined
      : (sequences: { tokens: number[] }[]) =>
          sequences.forEach((q, index) => {
            const l = live[index];
            if (l === undefined) return;
            const first = l.sent === '';
            const delta = l.push(q.tokens);
            if (delta === '') return;
            if (first) {
              stream.send(
                chunk([{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
              );
            }
            stream.send(chunk([{ index, delta: { content: delta }, logprobs: null, finish_reason: null }]));
          });
  const choices = await models.withModel(req.model, (m) =>
    sampleChoices(m, {
      prompt,
      n: req.n ?? 1,
      maxTokens: req.max_completion_tokens ?? req.max_tokens ?? undefined,
      temperature: req.temperature ?? 1,
      topP: req.top_p ?? 1,
      seed: req.seed ?? undefined,
      stop,
      topLogprobs: logprobs ? (req.top_logprobs ?? 0) : 0,
      signal,
      ...(onTokens === undefined ? {} : { onTokens }),
    }),
  );
  const out: ChatChoice[] = choices.map((c, i) =>
    chatChoice(model.setup, c, i, { userStops, logprobs, toolsDeclared }),
  );
  const completionTokens = choices.reduce((s, c) => s + c.sequence.tokens.length, 0);
  const usage = {
    prompt_tokens: prompt.length,
    completion_tokens: completionTokens,
    total_tokens: prompt.length + completionTokens,
  };
  if (stream === undefined) {
    return sendJson(res, 200, { id, object: 'chat.completion', created, model: req.model, choices: out, usage });
  }
  const events: unknown[] = [];
  for (const c of out) {
    /** One event of choice `c`: its delta, logprobs and finish reason. */
    const push = (delta: object, logprobs: unknown = null, finishReason: unknown = null) =>
      events.push(chunk([{ index: c.index, delta, logprobs, finish_reason: finishReason }]));
    const pushReasoning = () => {
      if (c.message.reasoning_content !== undefined) push({ reasoning_content: c.message.reasoning_content });
    };
    const sent = live?.[c.index]?.sent ?? '';
    if (sent !== '') {
      // Part of the content went live: the rest of it, then what only the whole reply shows.
      const rest = live![c.index]!.rest(c.message.content ?? '');
      if (rest === undefined) {
        throw new OpenAIHttpError(500, `the streamed content of choice ${c.index} differs from the reply's content`);
      }
      if (rest !== '') push({ content: rest });
      pushReasoning();
      push({}, null, c.finish_reason);
      continue;
    }
    push({ role: 'assistant', content: '' });
    pushReasoning();
    const deltas = tokenDeltas(model.setup, choices[c.index] as SampledChoice, c);
    if (deltas !== undefined) {
      for (const d of deltas) {
        push({ content: d.content }, d.entry === undefined ? null : { content: [d.entry], refusal: null });
      }
    } else if ((c.message.content ?? '') !== '' || (c.logprobs?.content.length ?? 0) > 0) {
      push({ content: c.message.content ?? '' }, c.logprobs);
    }
    if (c.message.tool_calls !== undefined) {
      push({ tool_calls: c.message.tool_calls.map((t, index) => ({ index, ...t })) });
    }
    push({}, null, c.finish_reason);
  }
  if (req.stream_options?.include_usage === true) events.push({ ...chunk([]), usage });
  stream.end(events);
}

async function completions(
  models: ModelResolver,
  req: CompletionRequest,
  res: ServerResponse,
  signal: AbortSignal | undefined,
) {
  const model = await models.resolve(req.model);
  const prompts = completionPrompts(req.prompt);
  const { stop, userStops } = completionStop(model.setup, req.stop);
  const n = req.n ?? 1;
  const k = req.logprobs ?? 0;
  const id = `cmpl-${randomUUID()}`;
  const created = nowS();
  const body = (choices: unknown[]) => ({ id, object: 'text_completion', created, model: req.model, choices });
  const stream = req.stream === true ? new EventStream(res) : undefined;
  // Live text: the tokens' text cut at the first stop string (the user's, or the EOS token's text).
  const eosText = model.setup.tokenizer.eosToken;
  const stops = [...userStops, ...(eosText === undefined ? [] : [eosText])];
  const visible = (tokens: readonly number[]): string => {
    const text = model.setup.tokenizer.decode([...tokens]);
    const hit = firstStop(text, stops);
    return hit === undefined ? text : text.slice(0, hit.index);
  };
  const live =
    stream !== undefined && (req.logprobs === undefined || req.logprobs === null)
      ? Array.from({ length: prompts.length * n }, () => new LiveText(visible, holdBackFor(stops)))
      : undefined;
  const perPrompt = await Promise.all(
    prompts.map(async (p, pi) => {
      const input = completionPrompt(model.setup, p);
      const onTokens =
        live === undefined || stream === undefined
          ? undefined
          : (sequences: { tokens: number[] }[]) =>
              sequences.forEach((q, j) => {
                const index = pi * n + j;
                const delta = live[index]?.push(q.tokens) ?? '';
                if (delta !== '') {
                  stream.send(body([{ index, text: delta, logprobs: null, finish_reason: null }]));
                }
              });
      const sampled = await models.withModel(req.model, (m) =>
        sampleChoices(m, {
          prompt: input,
          n,
          maxTokens: req.max_tokens ?? 16,
          temperature: req.temperature ?? 1,
          topP: req.top_p ?? 1,
          seed: req.seed ?? undefined,
          stop,
          topLogprobs: k,
          signal,
          ...(onTokens === undefined ? {} : { onTokens }),
        }),
      );
      return { input, sampled, text: typeof p === 'string' ? p : model.setup.tokenizer.decode(p) };
    }),
  );
  const out: CompletionChoice[] = [];
  let promptTokens = 0;
  let completionTokens = 0;
  perPrompt.forEach(({ input, sampled, text }, pi) => {
    promptTokens += input.length;
    sampled.forEach((c, j) => {
      completionTokens += c.sequence.tokens.length;
      out.push(completionChoice(model.setup, c, pi * n + j, { userStops, logprobs: req.logprobs, promptText: text }));
    });
  });
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (stream === undefined) return sendJson(res, 200, { ...body(out), usage });
  const events: unknown[] = [];
  for (const c of out) {
    const l = live?.[c.index];
    const rest = l === undefined ? c.text : l.rest(c.text);
    if (rest === undefined) {
      throw new OpenAIHttpError(500, `the streamed text of choice ${c.index} differs from the completion's text`);
    }
    // A choice that went live sends the rest of its text (none: only the finish).
    if (l === undefined || l.sent === '' || rest !== '') {
      events.push(body([{ index: c.index, text: rest, logprobs: c.logprobs, finish_reason: null }]));
    }
    events.push(body([{ index: c.index, text: '', logprobs: null, finish_reason: c.finish_reason }]));
  }
  if (req.stream_options?.include_usage === true) events.push({ ...body([]), usage });
  stream.end(events);
}
