/**
 * What a chat or completion body can cost before it is refused (regression: `messages` = 1,000,000 numbers in a
 * 2 MB body raised memory by ≈600 MB on its way to a 400): counts first, and lists fail at their first bad element.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  ChatCompletionRequestSchema,
  CompletionRequestSchema,
  MAX_CONTENT_PARTS,
  MAX_TOOL_CALLS,
} from './request-schemas.js';
import { createOpenAIRoutes } from './routes.js';

/** The routes with a backend that must not be reached, and a response that records what was written. */
async function answer(path: string, body: unknown, maxMessages?: number) {
  const routes = createOpenAIRoutes({
    backend: () => Promise.reject(new Error('the backend was called')),
    log: () => {},
    ...(maxMessages === undefined ? {} : { maxMessages }),
  });
  let status = 0;
  let text = '';
  const res = {
    headersSent: false,
    writeHead(s: number) {
      status = s;
      return res;
    },
    end(t: string) {
      text = t;
    },
  };
  await routes.handle({ method: 'POST', path, headers: {}, body }, res as unknown as ServerResponse);
  return { status, error: (JSON.parse(text) as { error: { message: string; param: string | null } }).error };
}

describe('chat and completion bodies are bounded before they are validated', () => {
  it('messages past max_messages: a 400 naming the count and the limit, before any message is read', async () => {
    const user = { role: 'user', content: 'hi' };
    const r = await answer('/v1/chat/completions', { model: 'm', messages: [user, user, user] }, 2);
    expect(r).toEqual({
      status: 400,
      error: expect.objectContaining({
        message: "'messages' holds 3 messages, over this server's limit of 2 (max_messages)",
        param: 'messages',
      }),
    });
    const big = await answer('/v1/chat/completions', { model: 'm', messages: Array(1_000_000).fill(1) });
    expect(big.error.message).toBe(
      "'messages' holds 1000000 messages, over this server's limit of 4096 (max_messages)",
    );
  });

  it('a prompt token list of 200,000 strings: one issue, naming its first element', () => {
    const r = CompletionRequestSchema.safeParse({ model: 'm', prompt: [1, 2, ...Array(200_000).fill('x')] });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues).length).toBeLessThan(5_000);
    expect(JSON.stringify(r.error?.issues)).toContain('expected a token id (a non-negative integer), got \\"x\\"');
  });

  it('content parts past their bound: a short refusal, not one issue per part', async () => {
    const r = await answer('/v1/chat/completions', {
      model: 'm',
      messages: [{ role: 'user', content: Array(100_000).fill(7) }],
    });
    expect(r.status).toBe(400);
    expect(r.error.message.length).toBeLessThan(2_000);
  });

  it('content parts and tool calls within their bounds stop at the first bad one (regression: every one was checked and reported)', () => {
    // 1,024 bad parts in each of 64 messages, 128 bad tool calls: one issue per message, at its first bad element.
    const r = ChatCompletionRequestSchema.safeParse({
      model: 'm',
      messages: [
        ...Array.from({ length: 64 }, () => ({ role: 'user', content: Array(MAX_CONTENT_PARTS).fill(7) })),
        { role: 'assistant', content: 'x', tool_calls: Array(MAX_TOOL_CALLS).fill(7) },
      ],
    });
    expect(r.success).toBe(false);
    const text = JSON.stringify(r.error?.issues);
    expect(text.length).toBeLessThan(100_000);
    expect(text).toContain('"path":[0]');
    expect(text).toContain('"path":["messages",64,"tool_calls",0]');
  });
});
