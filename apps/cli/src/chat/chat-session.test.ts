import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { getTextContent, type ModelInput } from '@cookbook/core';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { getRenderer, resolveModelSetup } from '@cookbook/renderers';
import { readConversationFile } from '@cookbook/supervised';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChatLoop } from './chat-loop.js';
import { ChatSession } from './chat-session.js';

const MODEL = 'local/qwen3-tiny';
const setup = resolveModelSetup({ modelName: MODEL });

/** A sampler that answers with `reply` (its tokens, `chunk` per call), recording the prompts it was given. */
function scriptedSampler(reply: string, options: { gate?: () => Promise<void> } = {}) {
  const tokens = setup.tokenizer.encode(reply);
  const prompts: ModelInput[] = [];
  let sent = 0;
  return {
    prompts,
    reset() {
      sent = 0;
    },
    async sample(args: { prompt: ModelInput; samplingParams?: { maxTokens?: number } }) {
      prompts.push(args.prompt);
      await options.gate?.();
      const n = args.samplingParams?.maxTokens ?? 1;
      const out = tokens.slice(sent, sent + n);
      sent += out.length;
      return {
        sequences: [{ tokens: out, stopReason: sent >= tokens.length ? ('stop' as const) : ('length' as const) }],
        promptCacheHitTokens: 0,
      };
    },
  };
}

function session(sampler: ReturnType<typeof scriptedSampler>, s = setup) {
  return new ChatSession({ sampler, setup: s, maxTokens: 100, temperature: 1, topP: 1, chunkTokens: 2 });
}

describe('ChatSession (scripted sampler)', () => {
  it('streams the reply in chunks, each request continuing the last; thinking and text come apart', async () => {
    const thinking = { ...setup, renderer: getRenderer('qwen3', setup.tokenizer) };
    const sampler = scriptedSampler('<think>\nsum it\n</think>\n\nIt is 5.<|im_end|>');
    const chat = session(sampler, thinking);
    const pieces: { kind: string; text: string }[] = [];
    const { message, end } = await chat.reply('2+3?', (p) => pieces.push(p));
    expect(end).toBe('stop');
    expect(sampler.prompts.length).toBeGreaterThan(3);
    // Request i's prompt is request i-1's prompt plus what it returned.
    for (let i = 1; i < sampler.prompts.length; i++) {
      expect(sampler.prompts[i]!.toInts().slice(0, sampler.prompts[i - 1]!.length)).toEqual(
        sampler.prompts[i - 1]!.toInts(),
      );
    }
    const shown = (kind: string) =>
      pieces
        .filter((p) => p.kind === kind)
        .map((p) => p.text)
        .join('');
    expect(shown('thinking').trim()).toBe('sum it');
    expect(shown('text').trim()).toBe('It is 5.');
    expect(getTextContent(message)).toBe('It is 5.');
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('an abort between chunks stops the reply and keeps what came', async () => {
    const controller = new AbortController();
    let calls = 0;
    const sampler = scriptedSampler('one two three four five six seven eight<|im_end|>', {
      gate: async () => {
        calls++;
        if (calls === 2) controller.abort();
      },
    });
    const chat = session(sampler);
    const { message, end } = await chat.reply('count', () => {}, controller.signal);
    expect(end).toBe('interrupted');
    expect(getTextContent(message)).toBe(setup.tokenizer.decode(setup.tokenizer.encode('one two three').slice(0, 2)));
    expect(chat.messages).toHaveLength(2);
  });
});

describe('the chat loop over streams', () => {
  it('replies, /system, /reset and /save (a JSONL line the SFT loader reads); model text cannot drive the terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-loop-'));
    try {
      const sampler = scriptedSampler('hi \x1b[2J there<|im_end|>');
      const chat = session(sampler);
      const input = new PassThrough();
      const output = new PassThrough();
      let out = '';
      output.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const loop = runChatLoop({ session: chat, input, output, color: false });
      const file = join(dir, 'sub', 'chats.jsonl');
      input.end(['/system Be kind.', 'hello', `/save ${file}`, '/reset', '/bogus', '/exit', 'never sent'].join('\n'));
      await loop.done;
      expect(out).toContain('hi \\x1b[2J there');
      expect(out).not.toContain('\x1b');
      expect(out).toContain('(system prompt set; conversation cleared)');
      expect(out).toContain(`(appended 3 messages to ${file})`);
      expect(out).toContain('unknown command /bogus');
      expect(chat.messages).toEqual([{ role: 'system', content: 'Be kind.' }]);
      const rows = readConversationFile(file);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.messages.map((m) => [m.role, getTextContent(m)])).toEqual([
        ['system', 'Be kind.'],
        ['user', 'hello'],
        ['assistant', 'hi \x1b[2J there'],
      ]);
      expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('interrupt() (Ctrl-C) stops the reply, and the loop goes on to the next line', async () => {
    let release: (() => void) | undefined;
    let calls = 0;
    const sampler = scriptedSampler('a b c d e f g h i j k l<|im_end|>', {
      gate: () => {
        calls++;
        return calls === 2 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
      },
    });
    const chat = session(sampler);
    const input = new PassThrough();
    const output = new PassThrough();
    let out = '';
    output.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const loop = runChatLoop({ session: chat, input, output, color: false });
    input.write('first\n');
    while (release === undefined) await new Promise((r) => setTimeout(r, 5));
    expect(loop.interrupt()).toBe(true);
    release();
    input.end('/reset\n');
    await loop.done;
    expect(out).toContain('(stopped)');
    expect(out).toContain('(conversation cleared)');
    expect(loop.interrupt()).toBe(false);
  });
});

describe('ChatSession on the embedded service', () => {
  let service: LocalTinker;
  let client: ServiceClient;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'chat-service-'));
    service = await startLocalTinker({ root });
    client = new ServiceClient({ baseURL: service.baseURL, warn: () => {} });
  });
  afterAll(async () => {
    await client?.close();
    await service?.close({ graceMs: 0 });
    rmSync(root, { recursive: true, force: true });
  });

  it('what is shown as it streams is the stored reply; a seed repeats the reply', async () => {
    const sampler = await client.createSamplingClient({ baseModel: MODEL });
    const replies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const chat = new ChatSession({
        sampler,
        setup,
        maxTokens: 24,
        temperature: 1,
        topP: 1,
        seed: 42,
        chunkTokens: 5,
      });
      let shown = '';
      const { message } = await chat.reply('Spell cat.', (p) => {
        shown += p.text;
      });
      expect(shown.trim()).toBe(getTextContent(message).trim());
      replies.push(shown);
    }
    expect(replies[0]!.length).toBeGreaterThan(0);
    expect(replies[1]).toBe(replies[0]);
  });
});
