import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveModelSetup } from '@cookbook/renderers';
import { ServiceClient } from '@cookbook/tinker-client';
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
  it('POST /v1/chat/completions with the key answers with the Tinker sampling route’s logprobs for the seed; without the key, a 401 in OpenAI’s shape', async () => {
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
      const messages = [{ role: 'user', content: 'hi' }];
      const body = JSON.stringify({ model: 'local/qwen3-tiny', messages, max_tokens: 6, seed: 1, logprobs: true });
      const ok = await fetch(`${baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sekret', 'Content-Type': 'application/json' },
        body,
      });
      expect(ok.status).toBe(200);
      const answer = (await ok.json()) as {
        object: string;
        choices: { message: { role: string }; logprobs: { content: { logprob: number }[] } }[];
      };
      expect(answer.object).toBe('chat.completion');
      expect(answer.choices[0]?.message.role).toBe('assistant');
      // The same request on the Tinker sampling route of the same server.
      const setup = resolveModelSetup({ modelName: 'local/qwen3-tiny' });
      const tinker = new ServiceClient({ baseURL, apiKey: 'sekret', warn: () => {} });
      try {
        const sampler = await tinker.createSamplingClient({ baseModel: 'local/qwen3-tiny' });
        const res = await sampler.sample({
          prompt: setup.renderer.buildGenerationPrompt(messages),
          samplingParams: { maxTokens: 6, seed: 1, temperature: 1, topP: 1, stop: setup.renderer.getStopSequences() },
        });
        const seq = res.sequences[0]!;
        const shown = seq.stopReason === 'stop' ? seq.tokens.length - 1 : seq.tokens.length;
        expect(shown).toBeGreaterThan(0);
        expect(answer.choices[0]?.logprobs.content.map((e) => e.logprob)).toEqual(seq.logprobs?.slice(0, shown));
      } finally {
        await tinker.close();
      }
      const denied = await fetch(`${baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      expect(denied.status).toBe(401);
      expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    } finally {
      child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
