/**
 * Abandoned work stops, and large requests do not starve small ones (issue: three streamed n = 32 chats whose client
 * went away kept the engine busy for minutes, and a 4-token chat waited 148 s meanwhile). Observed through the
 * engine's decode-step counter and the order in which requests finish, never through wall-clock time.
 */
import { ModelInput } from '@cookbook/core';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL, serveOpenAIRoutes, until } from './__tests__/served-routes.js';

/** Far more decode steps than a cancelled request may take: reaching it means the work ran to its end. */
const LONG = 1500;
/**
 * The large requests' length in the fairness test: short enough that, without fair admission, two of them finish
 * before the small one (which then fails the order check rather than the test's timeout).
 */
const FAIR_LONG = 300;

const routes = serveOpenAIRoutes('openai-abandoned-');
let client: ServiceClient;
beforeAll(() => {
  client = new ServiceClient({ baseURL: routes.served.baseURL, warn: () => {} });
});
afterAll(async () => {
  await client.close();
});

const steps = () => routes.served.service.decodeSteps;
const idle = () => routes.served.service.enginePending === 0;

const post = routes.post;
const chat = (body: Record<string, unknown>) =>
  post('chat/completions', { messages: [{ role: 'user', content: 'Count to ten.' }], ...body });

describe('abandoned sampling is cancelled', () => {
  it('a streamed completion whose client disconnects stops decoding, and the next request is answered', async () => {
    await (await chat({ max_tokens: 1 })).text(); // the model and the routes' sampler are loaded
    await until(idle);
    const before = steps();
    const ac = new AbortController();
    // The stand-in continues this prompt without an EOS: uncancelled, it decodes all LONG steps (checked by hand).
    const big = post(
      'completions',
      { prompt: 'one two three four five', n: 8, max_tokens: LONG, stream: true, seed: 3 },
      ac.signal,
    )
      // The stream opens with its first text (sent while decoding), so the abort may come while reading the body.
      .then((r) => r.text())
      .catch((err: unknown) => err);
    await until(() => steps() >= before + 5);
    ac.abort();
    expect(await big).toMatchObject({ name: 'AbortError' });
    await until(idle);
    const used = steps() - before;
    expect(used).toBeGreaterThanOrEqual(5);
    expect(used).toBeLessThan(LONG);
    const small = await chat({ max_tokens: 4, seed: 1 });
    expect(small.status).toBe(200);
    const body = (await small.json()) as { usage: { completion_tokens: number } };
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
  });

  it("a Tinker client's aborted sample rejects with an AbortError, stops polling and is cancelled on the service", async () => {
    // Polls of the future in flight, and cancel_future calls sent.
    let polling = 0;
    let cancels = 0;
    const counting: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.endsWith('/cancel_future')) cancels++;
      if (!url.endsWith('/retrieve_future')) return fetch(input, init);
      polling++;
      try {
        return await fetch(input, init);
      } finally {
        polling--;
      }
    };
    const own = new ServiceClient({ baseURL: routes.served.baseURL, warn: () => {}, fetch: counting });
    const sampler = await own.createSamplingClient({ baseModel: MODEL });
    const prompt = ModelInput.fromInts([1, 2, 3]);
    await sampler.sample({ prompt, samplingParams: { maxTokens: 1 } });
    await until(idle);
    const before = steps();
    const ac = new AbortController();
    const big = sampler.sample({
      prompt,
      numSamples: 4,
      samplingParams: { maxTokens: LONG, stop: [] },
      signal: ac.signal,
    });
    await until(() => steps() >= before + 5);
    await until(() => polling === 1);
    ac.abort();
    await expect(big).rejects.toMatchObject({ name: 'AbortError' });
    await until(() => polling === 0);
    expect(cancels).toBe(1);
    await until(idle);
    expect(steps() - before).toBeLessThan(LONG);
    // Aborted before it is sent: rejected at once, nothing reaches the engine.
    const atStart = steps();
    await expect(
      sampler.sample({ prompt, samplingParams: { maxTokens: LONG }, signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(steps()).toBe(atStart);
    expect(cancels).toBe(1);
    const after = await sampler.sample({ prompt, samplingParams: { maxTokens: 3, stop: [] } });
    expect(after.sequences[0]!.tokens).toHaveLength(3);
    await own.close();
  });
});

describe('large requests do not starve a small one', () => {
  it('a 4-token request sent after three n = 32 requests finishes first', async () => {
    const sampler = await client.createSamplingClient({ baseModel: MODEL });
    const prompt = ModelInput.fromInts([1, 2, 3]);
    await sampler.sample({ prompt, samplingParams: { maxTokens: 1 } });
    await until(idle);
    const before = steps();
    const order: string[] = [];
    const ac = new AbortController();
    const large = [0, 1, 2].map((i) =>
      sampler
        .sample({
          prompt,
          numSamples: 32,
          samplingParams: { maxTokens: FAIR_LONG, stop: [], seed: i },
          signal: ac.signal,
        })
        .then(
          () => order.push(`large ${i}`),
          () => undefined,
        ),
    );
    await until(() => steps() >= before + 3);
    const small = await sampler.sample({ prompt, samplingParams: { maxTokens: 4, stop: [], seed: 7 } });
    order.push('small');
    expect(small.sequences[0]!.tokens).toHaveLength(4);
    // The large ones were still decoding (none done, far fewer steps than theirs) when the small one was answered.
    expect(order).toEqual(['small']);
    expect(steps() - before).toBeLessThan(FAIR_LONG);
    ac.abort();
    await Promise.all(large);
    await until(idle);
    expect(order).toEqual(['small']);
  });
});
