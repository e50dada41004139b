import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelInput } from '@cookbook/core';
import { resolveModelSetup } from '@cookbook/renderers';
import { ServiceClient } from '@cookbook/tinker-client';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

async function call(baseURL: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${baseURL}/api/v1/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await r.json()) as Record<string, unknown>;
}

describe('cookbook serve and SIGTERM (regression: it waited for all queued work, ≈190 s)', () => {
  it('stops at once: a running sample fails with "the service is stopping" and the process exits by itself, 0', async () => {
    const root = mkdtempSync(join(tmpdir(), 'serve-term-'));
    const child = spawn(
      process.execPath,
      ['--conditions=@cookbook/source', '--import', 'tsx', 'apps/cli/src/main.ts', 'serve', 'port=0', `root=${root}`],
      { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      const baseURL = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        void exited.then(() => reject(new Error(`serve exited: ${out}`)));
      });
      // 64 samples over the whole context: minutes of work.
      const sample = await call(baseURL, 'asample', {
        base_model: 'local/qwen3-tiny',
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        num_samples: 64,
        sampling_params: { max_tokens: 30_000 },
      });
      const polled = call(baseURL, 'retrieve_future', { request_id: sample.request_id });
      child.kill('SIGTERM');
      const answer = await polled;
      expect(String(answer.error)).toMatch(/^the service is stopping/);
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(out).toContain('stopping (SIGTERM)');
    } finally {
      child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('cookbook serve speaks the OpenAI API on the same port', () => {
  it('the official openai client (chat plain and streamed, completions) gets the Tinker sampling route’s text and logprobs for the seed; a wrong key gets a 401 in OpenAI’s shape', async () => {
    const root = mkdtempSync(join(tmpdir(), 'serve-openai-'));
    const child = spawn(
      process.execPath,
      [
        '--conditions=@cookbook/source',
        '--import',
        'tsx',
        'apps/cli/src/main.ts',
        'serve',
        'port=0',
        `root=${root}`,
        'api_key=sekret',
      ],
      { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const baseURL = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /OpenAI API: base_url (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', () => reject(new Error(`serve exited: ${out}`)));
      });
      const messages = [{ role: 'user' as const, content: 'hi' }];
      // The same request on the Tinker sampling route of the same server: what every /v1 answer must equal.
      const setup = resolveModelSetup({ modelName: 'local/qwen3-tiny' });
      const tinker = new ServiceClient({ baseURL, apiKey: 'sekret', warn: () => {} });
      let tinkerLogprobs: number[];
      let tinkerText: string;
      let completionLogprobs: number[];
      try {
        const sampler = await tinker.createSamplingClient({ baseModel: 'local/qwen3-tiny' });
        const res = await sampler.sample({
          prompt: setup.renderer.buildGenerationPrompt(messages),
          samplingParams: { maxTokens: 6, seed: 1, temperature: 1, topP: 1, stop: setup.renderer.getStopSequences() },
        });
        const seq = res.sequences[0]!;
        const shown = seq.stopReason === 'stop' ? seq.tokens.length - 1 : seq.tokens.length;
        expect(shown).toBeGreaterThan(0);
        tinkerLogprobs = seq.logprobs?.slice(0, shown) ?? [];
        tinkerText = setup.renderer.parseResponse(seq.tokens).message.content as string;
        const raw = await sampler.sample({
          prompt: ModelInput.fromInts(setup.tokenizer.encode('Once upon a time', { addSpecialTokens: true })),
          samplingParams: { maxTokens: 5, seed: 3, temperature: 1, topP: 1 },
        });
        completionLogprobs = raw.sequences[0]?.logprobs ?? [];
      } finally {
        await tinker.close();
      }
      // The official client, against the spawned `cookbook serve`.
      const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: 'sekret', maxRetries: 0 });
      const plain = await client.chat.completions.create({
        model: 'local/qwen3-tiny',
        messages,
        max_tokens: 6,
        seed: 1,
        logprobs: true,
      });
      expect(plain.object).toBe('chat.completion');
      expect(plain.choices[0]?.message.role).toBe('assistant');
      expect(plain.choices[0]?.message.content).toBe(tinkerText);
      expect(plain.choices[0]?.logprobs?.content?.map((e) => e.logprob)).toEqual(tinkerLogprobs);
      const stream = await client.chat.completions.create({
        model: 'local/qwen3-tiny',
        messages,
        max_tokens: 6,
        seed: 1,
        logprobs: true,
        stream: true,
      });
      let streamed = '';
      const streamedLogprobs: number[] = [];
      for await (const chunk of stream) {
        streamed += chunk.choices[0]?.delta.content ?? '';
        for (const e of chunk.choices[0]?.logprobs?.content ?? []) streamedLogprobs.push(e.logprob);
      }
      expect(streamed).toBe(tinkerText);
      expect(streamedLogprobs).toEqual(tinkerLogprobs);
      const completion = await client.completions.create({
        model: 'local/qwen3-tiny',
        prompt: 'Once upon a time',
        max_tokens: 5,
        seed: 3,
        logprobs: 0,
      });
      const served = completion.choices[0]?.logprobs?.token_logprobs ?? [];
      expect(served.length).toBeGreaterThan(0);
      expect(served).toEqual(completionLogprobs.slice(0, served.length));
      const denied = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: 'wrong', maxRetries: 0 });
      const err = await denied.chat.completions
        .create({ model: 'local/qwen3-tiny', messages })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    } finally {
      child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
