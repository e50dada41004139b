/** Shared set-up for client ↔ embedded-service tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Datum, datumFromTokensWeights } from '@cookbook/core';
import { type LocalTinker, type LocalTinkerOptions, startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';

export const MODEL = 'local/qwen3-tiny';

/** A temp folder removed by the returned cleanup. */
export async function tempRoot(): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'cookbook-it-'));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Start a service and a client on it; `stop()` closes both. */
export async function startPair(
  options: LocalTinkerOptions & { root: string },
): Promise<{ service: LocalTinker; client: ServiceClient; stop: () => Promise<void> }> {
  const service = await startLocalTinker({ longPollMs: 2000, ...options });
  const client = new ServiceClient({
    baseURL: service.baseURL,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    backoffScale: 0.01,
    warn: () => undefined,
  });
  return {
    service,
    client,
    stop: async () => {
      await client.close();
      await service.close();
    },
  };
}

/** A fixed batch of token sequences, all weights on but the first token. */
export function fixedBatch(seed = 0, n = 4, len = 12): Datum[] {
  const out: Datum[] = [];
  for (let i = 0; i < n; i++) {
    const tokens = Array.from({ length: len }, (_, j) => 1000 + ((seed * 7919 + i * 131 + j * 17) % 5000));
    out.push(datumFromTokensWeights(tokens, [0, ...new Array<number>(len - 1).fill(1)]));
  }
  return out;
}

/** Σ of a loss:sum metric. */
export function lossOf(metrics: Record<string, number>): number {
  const v = metrics['loss:sum'];
  if (v === undefined) throw new Error(`no loss:sum in ${JSON.stringify(metrics)}`);
  return v;
}
