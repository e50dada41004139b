/**
 * `stream: true` sends text while it is sampled (on the embedded service, which reports a sample's tokens as they
 * come), and what it sends adds up to the reply a non-streamed request gets. Liveness is shown by order, never by
 * time: the client reads two text events, then disconnects, and the engine stopped well before the request's
 * length — a stream written only at the end would have decoded every step first.
 */
import { describe, expect, it } from 'vitest';
import { serveOpenAIRoutes, until } from './__tests__/served-routes.js';

/** Far more decode steps than the stream may take before its client goes: reaching it means nothing was live. */
const LONG = 1500;

const routes = serveOpenAIRoutes('openai-live-');
const post = routes.post;

/** The `data:` events of an SSE body as they arrive. */
async function* events(res: Response): AsyncGenerator<unknown> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = line.replace(/^data: /, '');
      if (data === '[DONE]') return;
      yield JSON.parse(data);
    }
  }
}

type CompletionChunk = { choices: { index: number; text: string; finish_reason: string | null }[] };
type ChatChunk = {
  choices: { index: number; delta: { content?: string; role?: string }; finish_reason: string | null }[];
};

describe('streamed replies are sent while they are sampled', () => {
  it('a completion streams its text before decoding ends; a disconnect mid-stream stops it', async () => {
    await (await post('completions', { prompt: 'one', max_tokens: 1 })).text(); // model and sampler loaded
    await until(() => routes.served.service.enginePending === 0);
    const before = routes.served.service.decodeSteps;
    const ac = new AbortController();
    // The stand-in continues this prompt without an EOS: uncancelled, it decodes all LONG steps.
    const res = await post(
      'completions',
      { prompt: 'one two three four five', n: 2, max_tokens: LONG, stream: true, seed: 3 },
      ac.signal,
    );
    expect(res.status).toBe(200);
    const texts: string[] = [];
    for await (const e of events(res)) {
      const c = (e as CompletionChunk).choices[0]!;
      expect(c.finish_reason, 'a text event came after the sample had ended').toBeNull();
      if (c.text !== '') texts.push(c.text);
      if (texts.length === 2) break;
    }
    ac.abort();
    expect(texts).toHaveLength(2);
    await until(() => routes.served.service.enginePending === 0);
    // The text came while the sample ran: the disconnect after it stopped the decoding far from its end.
    expect(routes.served.service.decodeSteps - before).toBeLessThan(LONG);
  });

  it('what a chat and a completion stream adds up to the reply without streaming', async () => {
    const chatBody = { messages: [{ role: 'user', content: 'Count to ten.' }], n: 2, max_tokens: 40, seed: 11 };
    const whole = (await (await post('chat/completions', chatBody)).json()) as {
      choices: { message: { content: string | null } }[];
    };
    const content = ['', ''];
    let deltas = 0;
    for await (const e of events(await post('chat/completions', { ...chatBody, stream: true }))) {
      for (const c of (e as ChatChunk).choices) {
        if (c.delta.content !== undefined && c.delta.content !== '') {
          content[c.index] += c.delta.content;
          deltas++;
        }
      }
    }
    expect(content).toEqual(whole.choices.map((c) => c.message.content ?? ''));
    expect(deltas).toBeGreaterThanOrEqual(1);
    const completionBody = { prompt: 'one two three', n: 2, max_tokens: 30, seed: 5, stop: [' seven'] };
    const plain = (await (await post('completions', completionBody)).json()) as CompletionChunk;
    const text = ['', ''];
    for await (const e of events(await post('completions', { ...completionBody, stream: true }))) {
      for (const c of (e as CompletionChunk).choices) text[c.index] += c.text;
    }
    expect(text).toEqual(plain.choices.map((c) => c.text));
  });
});
