/**
 * The warm start against the embedded service: trained once, then served from the cache; a pruned checkpoint or a
 * corrupt record is trained again; a change of data or settings is a new entry; bad settings are refused by name.
 */

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { getRenderer, TrainOnWhat } from '@cookbook/renderers';
import { ServiceClient } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { datumWeights } from '@cookbook/training';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './__tests__/helpers.js';
import { conversationToDatum } from './conversation-to-datum.js';
import { type WarmStartOptions, warmStart, warmStartDatums } from './warm-start.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const conversations: Message[][] = [0, 1, 2, 3].map((x) => [
  { role: 'user', content: `What is ${x} + 1?` },
  { role: 'assistant', content: String(x + 1) },
]);

describe('warmStartDatums', () => {
  it('trains on the messages flagged trainable when every message has the flag, else on every assistant turn', () => {
    const convo: Message[] = [
      { role: 'user', content: 'Example?', trainable: false },
      { role: 'assistant', content: 'Example answer.', trainable: false },
      { role: 'user', content: 'What is 1 + 1?', trainable: false },
      { role: 'assistant', content: '2', trainable: true },
    ];
    const flagged = warmStartDatums({ conversations: [convo], renderer })[0]!;
    const plainConvo = convo.map(({ trainable: _, ...m }) => m);
    const plain = warmStartDatums({ conversations: [plainConvo], renderer })[0]!;
    const allTurns = conversationToDatum(plainConvo, renderer, null, TrainOnWhat.ALL_ASSISTANT_MESSAGES);
    expect(datumWeights(plain)).toEqual(datumWeights(allTurns));
    // Flagged: only the last answer's tokens (the example answer is context), so fewer weighted tokens, all at the end.
    const positive = (w: number[]) => w.flatMap((x, i) => (x > 0 ? [i] : []));
    const flaggedAt = positive(datumWeights(flagged));
    expect(flaggedAt.length).toBeLessThan(positive(datumWeights(plain)).length);
    expect(flaggedAt[0]!).toBeGreaterThan(positive(datumWeights(plain))[0]!);
    expect(flaggedAt.at(-1)).toBe(datumWeights(flagged).length - 1);
  });
});

describe('warmStart', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startLocalTinker>>;
  let service: ServiceClient;
  const options = (extra: Partial<WarmStartOptions> = {}): WarmStartOptions => ({
    service,
    baseModel: 'local/qwen3-tiny',
    loraRank: 4,
    demonstrations: { conversations, renderer },
    sft: { steps: 4, batchSize: 4, learningRate: 1e-2 },
    seed: 0,
    name: 'test',
    cacheDir: join(dir, 'cache'),
    progress: false,
    ...extra,
  });

  beforeAll(async () => {
    dir = tempDir();
    server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
    service = new ServiceClient({ baseURL: server.baseURL, warn: () => {} });
  });
  afterAll(async () => {
    await service.close();
    await server.close();
  });

  it('trains once, lowers the loss, and serves the cached state next time', async () => {
    const lines: string[] = [];
    let progress = '';
    const sink = {
      write: (t: string) => {
        progress += t;
      },
      isTTY: false,
    };
    const first = await warmStart(options({ log: (l) => lines.push(l), progress: sink }));
    expect(first.cached).toBe(false);
    // The shared progress line: steps done / total, elapsed, ETA and the loss.
    expect(progress.trimEnd().split('\n').at(-1)).toMatch(/^warm start step 4\/4 100% \[\d+:\d\d<0:00, .*\] loss \d/);
    expect(first.statePath).toMatch(/^tinker:\/\/.+\/weights\//);
    expect(first.finalLoss).toBeLessThan(first.initialLoss);
    expect(lines.some((l) => l.includes('4 demonstrations, 4 steps'))).toBe(true);
    const record = JSON.parse(readFileSync(first.recordPath, 'utf8')) as { state_path: string };
    expect(record.state_path).toBe(first.statePath);

    const again = await warmStart(options());
    expect(again).toMatchObject({ cached: true, statePath: first.statePath, finalLoss: first.finalLoss });
    // The cached state loads as a new run's starting weights.
    const client = await service.createTrainingClientFromState(again.statePath);
    expect((await client.getInfo()).loraRank).toBe(4);

    // Other data, settings or seed: another entry.
    const other = await warmStart(options({ seed: 1 }));
    expect(other.cached).toBe(false);
    expect(other.key).not.toBe(first.key);
  });

  it('trains again when the checkpoint was pruned or the record is unreadable', async () => {
    const first = await warmStart(options({ name: 'pruned' }));
    const runId = first.statePath.slice('tinker://'.length).split('/')[0]!;
    rmSync(join(dir, 'service', 'runs', encodeURIComponent(runId)), { recursive: true, force: true });
    const lines: string[] = [];
    const retrained = await warmStart(options({ name: 'pruned', log: (l) => lines.push(l) }));
    expect(retrained.cached).toBe(false);
    expect(retrained.statePath).not.toBe(first.statePath);
    expect(lines.some((l) => l.includes('is gone from the service'))).toBe(true);

    writeFileSync(retrained.recordPath, '{"version": 1, "key": "trunc');
    const afterCorrupt = await warmStart(options({ name: 'pruned', log: (l) => lines.push(l) }));
    expect(afterCorrupt.cached).toBe(false);
    expect(lines.some((l) => l.includes('ignoring unreadable'))).toBe(true);
    expect((await warmStart(options({ name: 'pruned' }))).cached).toBe(true);
  });

  it('refuses bad settings and empty data by name', async () => {
    await expect(warmStart(options({ sft: { steps: 0, batchSize: 4, learningRate: 1e-2 } }))).rejects.toThrow(
      /steps must be a positive integer, got 0/,
    );
    await expect(warmStart(options({ name: '../escape' }))).rejects.toThrow(/warm start name/);
    await expect(warmStart(options({ demonstrations: { conversations: [], renderer } }))).rejects.toThrow(
      /at least one demonstration/,
    );
    const userOnly: Message[][] = [[{ role: 'user', content: 'hi' }]];
    await expect(warmStart(options({ demonstrations: { conversations: userOnly, renderer } }))).rejects.toThrow(
      /no demonstration has a weighted token/,
    );
  });
});
