import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTextContent, ModelInput } from '@cookbook/core';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { resolveModelSetup } from '@cookbook/renderers';
import { type SamplingClient, ServiceClient } from '@cookbook/tinker-client';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIRoutes } from './routes.js';

const MODEL = 'local/qwen3-tiny';
const KEY = 'test-key-123';

let service: LocalTinker;
let tinker: ServiceClient;
let openai: OpenAI;
let root: string;
let baseSampler: SamplingClient;
let checkpointPath: string;
const setup = resolveModelSetup({ modelName: MODEL });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'openai-routes-'));
  let baseURL = '';
  const routes = createOpenAIRoutes({
    apiKey: KEY,
    backend: async () => new ServiceClient({ baseURL, apiKey: KEY, warn: () => {} }),
  });
  service = await startLocalTinker({
    root,
    apiKey: KEY,
    mounts: [routes],
    limits: { maxNumSamples: 4, maxBodyBytes: 64 * 1024 },
  });
  baseURL = service.baseURL;
  tinker = new ServiceClient({ baseURL, apiKey: KEY, warn: () => {} });
  openai = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: KEY, maxRetries: 0 });
  baseSampler = await tinker.createSamplingClient({ baseModel: MODEL });
  const training = await tinker.createLoraTrainingClient({ baseModel: MODEL, rank: 4 });
  const saved = await training.saveWeightsForSampler('chat-ckpt');
  checkpointPath = saved.path ?? '';
});

afterAll(async () => {
  await tinker?.close();
  await service?.close({ graceMs: 0 });
  rmSync(root, { recursive: true, force: true });
});

const messages = [
  { role: 'system' as const, content: 'You answer briefly.' },
  { role: 'user' as const, content: 'Spell the word cat.' },
];

/** What the Tinker sampling route gives for the chat prompt the renderer builds. */
async function routeSample(sampler: SamplingClient, seed: number, maxTokens: number) {
  const prompt = setup.renderer.buildGenerationPrompt(messages);
  const res = await sampler.sample({
    prompt,
    numSamples: 1,
    samplingParams: { seed, maxTokens, temperature: 1, topP: 1, stop: setup.renderer.getStopSequences() },
  });
  const seq = res.sequences[0]!;
  const stopToken = seq.stopReason === 'stop';
  const visible = stopToken ? seq.tokens.slice(0, -1) : seq.tokens;
  return {
    seq,
    content: setup.renderer.parseResponse(seq.tokens).message,
    logprobs: (seq.logprobs ?? []).slice(0, visible.length),
    tokens: visible,
    promptTokens: prompt.length,
  };
}

describe('OpenAI-compatible routes, through the official openai client', () => {
  it('chat.completions.create: the text and logprobs of the Tinker sampling route for the same seed', async () => {
    const expected = await routeSample(baseSampler, 7, 24);
    const r = await openai.chat.completions.create({
      model: MODEL,
      messages,
      seed: 7,
      max_tokens: 24,
      logprobs: true,
      top_logprobs: 3,
    });
    const choice = r.choices[0]!;
    expect(expected.tokens.length).toBeGreaterThan(0);
    expect(choice.message.content).toBe(getTextContent(expected.content));
    expect(choice.logprobs?.content?.map((e) => e.logprob)).toEqual(expected.logprobs);
    expect(choice.logprobs?.content?.map((e) => e.token)).toEqual(
      expected.tokens.map((t) => setup.tokenizer.decode([t])),
    );
    let matched = 0;
    for (const e of choice.logprobs?.content ?? []) {
      expect(e.top_logprobs).toHaveLength(3);
      const lps = e.top_logprobs.map((t) => t.logprob);
      expect([...lps].sort((a, b) => b - a)).toEqual(lps);
      // The sampled token's plain logprob is at most the best one, and where the sampled token is among the top
      // ones, the two requests (sampling, and scoring prompt + completion) agree on its logprob.
      expect(e.logprob).toBeLessThanOrEqual(lps[0]! + 1e-4);
      const same = e.top_logprobs.find((t) => t.token === e.token);
      if (same !== undefined) {
        matched++;
        expect(Math.abs(same.logprob - e.logprob)).toBeLessThan(1e-3);
      }
    }
    expect(matched).toBeGreaterThan(0);
    expect(choice.finish_reason).toBe(expected.seq.stopReason === 'length' ? 'length' : 'stop');
    expect(r.usage).toEqual({
      prompt_tokens: expected.promptTokens,
      completion_tokens: expected.seq.tokens.length,
      total_tokens: expected.promptTokens + expected.seq.tokens.length,
    });
    expect(r.object).toBe('chat.completion');
  });

  it('chat.completions.create with stream: true gives the same text and logprobs as the plain call', async () => {
    const plain = await openai.chat.completions.create({
      model: MODEL,
      messages,
      seed: 11,
      max_tokens: 20,
      logprobs: true,
    });
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages,
      seed: 11,
      max_tokens: 20,
      logprobs: true,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let contentChunks = 0;
    const logprobs: number[] = [];
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) {
        content += c.delta.content ?? '';
        if (c.delta.content) contentChunks++;
        for (const e of c.logprobs?.content ?? []) logprobs.push(e.logprob);
        if (c.finish_reason) finish = c.finish_reason;
      }
    }
    expect(content).toBe(plain.choices[0]!.message.content);
    // A plain text reply streams one delta per token.
    expect(contentChunks).toBe(plain.choices[0]!.logprobs?.content?.length);
    expect(contentChunks).toBeGreaterThan(1);
    expect(logprobs).toEqual(plain.choices[0]!.logprobs?.content?.map((e) => e.logprob));
    expect(finish).toBe(plain.choices[0]!.finish_reason);
    expect(usage).toEqual(plain.usage);
  });

  it('completions.create (plain and streamed): the text and logprobs of the sampling route on the encoded prompt', async () => {
    // A raw prompt in the chat format (control tokens in the text are matched), which the tiny model continues.
    const prompt = setup.tokenizer.decode(setup.renderer.buildGenerationPrompt(messages).toInts());
    const tokens = setup.tokenizer.encode(prompt, { addSpecialTokens: true });
    const res = await baseSampler.sample({
      prompt: ModelInput.fromInts(tokens),
      numSamples: 1,
      samplingParams: { seed: 3, maxTokens: 10, temperature: 1, topP: 1 },
    });
    const seq = res.sequences[0]!;
    const visible = seq.tokens.at(-1) === setup.tokenizer.eosTokenId ? seq.tokens.slice(0, -1) : seq.tokens;
    const r = await openai.completions.create({ model: MODEL, prompt, seed: 3, max_tokens: 10, logprobs: 2 });
    const c = r.choices[0]!;
    expect(visible.length).toBeGreaterThan(0);
    expect(c.text).toBe(setup.tokenizer.decode(visible));
    expect(c.logprobs?.token_logprobs).toEqual((seq.logprobs ?? []).slice(0, visible.length));
    expect(c.logprobs?.top_logprobs?.every((row) => Object.keys(row).length <= 2)).toBe(true);
    expect(c.logprobs?.text_offset?.[0]).toBe(prompt.length);

    const stream = await openai.completions.create({
      model: MODEL,
      prompt,
      seed: 3,
      max_tokens: 10,
      logprobs: 0,
      stream: true,
    });
    let text = '';
    const lps: number[] = [];
    for await (const chunk of stream) {
      for (const ch of chunk.choices) {
        text += ch.text;
        lps.push(...(ch.logprobs?.token_logprobs ?? []));
      }
    }
    expect(text).toBe(c.text);
    expect(lps).toEqual(c.logprobs?.token_logprobs);
  });

  it('completions.create cuts the text before a stop string', async () => {
    const prompt = setup.tokenizer.decode(setup.renderer.buildGenerationPrompt(messages).toInts());
    const full = await openai.completions.create({ model: MODEL, prompt, seed: 5, max_tokens: 12 });
    const text = full.choices[0]!.text;
    const stop = text.slice(2, 3);
    expect(stop.length).toBe(1);
    const cut = await openai.completions.create({ model: MODEL, prompt, seed: 5, max_tokens: 12, stop: [stop] });
    expect(cut.choices[0]!.text).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0]!.finish_reason).toBe('stop');
  });

  it('n samples, each a choice with its own index', async () => {
    const r = await openai.chat.completions.create({ model: MODEL, messages, n: 3, seed: 1, max_tokens: 6 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2]);
  });

  it('a sampler checkpoint by tinker:// path and by name: listed by models.list and sampled as the route samples it', async () => {
    const list = await openai.models.list();
    const ids = list.data.map((m) => m.id);
    expect(ids).toContain(MODEL);
    expect(ids).toContain(checkpointPath);
    const ckptSampler = await tinker.createSamplingClient({ modelPath: checkpointPath });
    const expected = await routeSample(ckptSampler, 9, 12);
    for (const model of [checkpointPath, 'chat-ckpt']) {
      const r = await openai.chat.completions.create({ model, messages, seed: 9, max_tokens: 12, logprobs: true });
      expect(r.model).toBe(model);
      expect(r.choices[0]!.logprobs?.content?.map((e) => e.logprob)).toEqual(expected.logprobs);
    }
    expect((await openai.models.retrieve(MODEL)).id).toBe(MODEL);
  });
});

describe('errors in OpenAI’s shape', () => {
  it('an unknown model is a 404 model_not_found naming it', async () => {
    const err = await openai.chat.completions.create({ model: 'no/such-model', messages }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    const e = err as InstanceType<typeof OpenAI.NotFoundError>;
    expect(e.status).toBe(404);
    expect(e.code).toBe('model_not_found');
    expect(e.param).toBe('model');
    expect(e.message).toContain('no/such-model');
  });

  it('a bad parameter is a 400 naming the parameter; an unknown argument is refused by name', async () => {
    const bad = await openai.chat.completions.create({ model: MODEL, messages, temperature: 5 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('temperature');
    const r = await fetch(`${service.baseURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages, frobnicate: 1 }),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('frobnicate');
    const penalty = await openai.chat.completions.create({ model: MODEL, messages, presence_penalty: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((penalty as Error).message).toContain('presence_penalty is not supported');
  });

  it("over the service's limits: n past max_num_samples and a body past max_body_bytes", async () => {
    const many = await openai.chat.completions.create({ model: MODEL, messages, n: 5, max_tokens: 2 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(many).toBeInstanceOf(OpenAI.APIError);
    expect((many as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(400);
    expect((many as Error).message).toMatch(/num_samples/);
    const big = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((big as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect((big as Error).message).toMatch(/exceeds this service's limit/);
  });

  it('a missing or wrong key is a 401 invalid_api_key', async () => {
    const wrong = new OpenAI({ baseURL: `${service.baseURL}/v1`, apiKey: 'nope', maxRetries: 0 });
    const err = await wrong.models.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    const r = await fetch(`${service.baseURL}/v1/models`);
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });
});
