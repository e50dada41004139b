import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { datumFromTokensWeights, tensorToNumbers } from '@cookbook/core';
import { ConflictError, NotFoundError } from '@cookbook/tinker-client';
import { ForwardBackwardRequestProto } from '@cookbook/tinker-wire';
import { extractTar } from '@cookbook/weights';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixedBatch, MODEL, startPair, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ root, cleanup } = await tempRoot());
});
afterAll(async () => {
  await cleanup();
});

describe('REST: runs and checkpoints survive a restart', () => {
  it('lists, archives, publishes, sets TTL and deletes checkpoints', async () => {
    let runId = '';
    let statePath = '';
    let samplerPath = '';
    {
      const { client, stop } = await startPair({ root });
      const tc = await client.createLoraTrainingClient({
        baseModel: MODEL,
        rank: 4,
        userMetadata: { renderer_name: 'qwen3' },
      });
      runId = tc.modelId;
      await tc.forwardBackward(fixedBatch(0, 1, 6), 'cross_entropy');
      await tc.optimStep();
      statePath = (await tc.saveState('s1')).path;
      samplerPath = (await tc.saveWeightsForSampler('w1')).path!;
      await stop();
    }
    const { client, stop } = await startPair({ root });
    try {
      const rest = await client.createRestClient();
      const runs = await rest.listTrainingRuns();
      const run = runs.trainingRuns.find((r) => r.training_run_id === runId)!;
      expect(run).toMatchObject({
        base_model: MODEL,
        is_lora: true,
        lora_rank: 4,
        user_metadata: { renderer_name: 'qwen3' },
      });
      expect(run.last_checkpoint?.tinker_path).toBe(statePath);
      expect(run.last_sampler_checkpoint?.tinker_path).toBe(samplerPath);
      const ckpts = await rest.listCheckpoints(runId);
      expect(ckpts.map((c) => [c.checkpoint_id, c.checkpoint_type])).toEqual([
        ['weights/s1', 'training'],
        ['sampler_weights/w1', 'sampler'],
      ]);
      expect((await rest.listUserCheckpoints()).checkpoints).toHaveLength(2);
      expect(await rest.getWeightsInfo(statePath)).toMatchObject({ base_model: MODEL, is_lora: true, lora_rank: 4 });

      // Archive: a tar of the PEFT adapter with the completion marker.
      const { url, expires } = await rest.getCheckpointArchiveUrl(samplerPath);
      expect(expires!.getTime()).toBeGreaterThan(Date.now());
      expect(url.startsWith(`${await client.baseURL()}/`)).toBe(true);
      const dest = join(await mkdtemp(join(tmpdir(), 'cookbook-archive-')), 'w1.tar');
      const size = await rest.downloadCheckpointArchive(samplerPath, dest);
      const unpacked = await mkdtemp(join(tmpdir(), 'cookbook-unpacked-'));
      const entries = extractTar(dest, unpacked);
      expect(size).toBeGreaterThan(1000);
      expect(entries.map((e) => e.name)).toEqual(
        expect.arrayContaining(['adapter_config.json', 'adapter_model.safetensors', 'checkpoint_complete']),
      );
      const cfg = JSON.parse(await readFile(join(unpacked, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
      expect(cfg).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 32, base_model_name_or_path: MODEL });
      // A resumed download: the archive's bytes are the same on every request, and a Range request gets the rest.
      const whole = await readFile(dest);
      const rest100 = await fetch(url, { headers: { Range: 'bytes=100-' } });
      expect(rest100.status).toBe(206);
      expect(rest100.headers.get('content-range')).toBe(`bytes 100-${whole.length - 1}/${whole.length}`);
      expect(Buffer.from(await rest100.arrayBuffer()).equals(whole.subarray(100))).toBe(true);
      expect((await fetch(url, { headers: { Range: `bytes=${whole.length}-` } })).status).toBe(416);
      // A tampered download URL is refused.
      const tampered = url.replace(/sig=([0-9a-f])/, (_m, c: string) => `sig=${c === '0' ? '1' : '0'}`);
      expect((await fetch(tampered)).status).toBe(403);

      await rest.publishCheckpoint(statePath);
      await expect(rest.publishCheckpoint(statePath)).rejects.toBeInstanceOf(ConflictError);
      await rest.unpublishCheckpoint(statePath);
      await rest.setCheckpointTtl(statePath, 3600);
      expect((await rest.listCheckpoints(runId)).find((c) => c.tinker_path === statePath)?.expires_at).toBeDefined();
      await rest.setCheckpointTtl(statePath, null);
      expect((await rest.listCheckpoints(runId)).find((c) => c.tinker_path === statePath)?.expires_at).toBeUndefined();

      // A resumed training client from the listed checkpoint works after the restart.
      const resumed = await client.createTrainingClientFromState(statePath, { optimizer: true });
      expect((await resumed.forwardBackward(fixedBatch(0, 1, 6), 'cross_entropy')).metrics['loss:sum']).toBeGreaterThan(
        0,
      );

      await rest.deleteCheckpoint(samplerPath);
      expect((await rest.listCheckpoints(runId)).map((c) => c.checkpoint_id)).toEqual(['weights/s1']);
      await expect(rest.deleteCheckpoint(samplerPath)).rejects.toBeInstanceOf(NotFoundError);
      const sessions = await rest.listSessions();
      expect(sessions).toContain(runId.split(':')[0]);
    } finally {
      await stop();
    }
  });

  it('a checkpoint whose TTL passed is gone', async () => {
    const { client, stop } = await startPair({ root });
    try {
      const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 4 });
      const { path } = await tc.saveState('short', { ttlSeconds: 60 });
      const rest = await client.createRestClient();
      expect((await rest.listCheckpoints(tc.modelId)).map((c) => c.tinker_path)).toEqual([path]);
      // The clock (Date only: timers stay real) moves past the TTL, however long the save and listing took.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
      try {
        expect(await rest.listCheckpoints(tc.modelId)).toEqual([]);
      } finally {
        vi.useRealTimers();
      }
    } finally {
      await stop();
    }
  });
});

/** Little-endian packed arrays, as the protobuf messages carry them. */
const int32 = (xs: number[]) => new Uint8Array(new Int32Array(xs).buffer);
const int64 = (xs: number[]) => new Uint8Array(new BigInt64Array(xs.map(BigInt)).buffer);
const f32 = (xs: number[]) => new Uint8Array(new Float32Array(xs).buffer);

/** A zstd frame holding `data` as one raw (uncompressed) block: valid zstd any decoder must accept. */
function zstdRawFrame(data: Uint8Array): Uint8Array {
  const header = [0x28, 0xb5, 0x2f, 0xfd, 0x20, data.length & 0xff]; // magic, single-segment, 1-byte content size
  if (data.length > 255) throw new RangeError('test helper handles ≤ 255 bytes');
  const blockHeader = (data.length << 3) | 1; // last block, raw
  return new Uint8Array([
    ...header,
    blockHeader & 0xff,
    (blockHeader >> 8) & 0xff,
    (blockHeader >> 16) & 0xff,
    ...data,
  ]);
}

describe('protobuf forward_backward (SDK ≥ 0.25)', () => {
  it('accepts a protobuf (and zstd) body and answers polls with protobuf results equal to the JSON path', async () => {
    const { client, service, stop } = await startPair({ root });
    try {
      const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 4 });
      const d = datumFromTokensWeights([11, 12, 13, 14, 15], [0, 1, 1, 1, 1]);
      const json = await tc.forward([d], 'cross_entropy');
      const msg = ForwardBackwardRequestProto.fromObject({
        model_id: tc.modelId,
        seq_id: 2,
        data: [
          {
            model_input: [{ encoded_text: { tokens: int32(d.modelInput.toInts()) } }],
            loss_fn_inputs: {
              target_tokens: { dense: int64(tensorToNumbers(d.lossFnInputs.target_tokens!)), dtype: 2, shape: [4] },
              weights: { dense: f32(tensorToNumbers(d.lossFnInputs.weights!)), dtype: 1, shape: [4] },
            },
          },
        ],
        loss_fn: 'cross_entropy',
        forward_only: true,
      });
      const raw = ForwardBackwardRequestProto.encode(msg).finish();
      const send = async (body: Uint8Array, headers: Record<string, string>) => {
        const r = await fetch(`${service.baseURL}/api/v1/forward_backward`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-protobuf', ...headers },
          body,
        });
        const reply = (await r.json()) as { request_id: string };
        expect(reply, JSON.stringify(reply)).toHaveProperty('request_id');
        return reply.request_id;
      };
      const poll = async (id: string) => {
        const r = await fetch(`${service.baseURL}/api/v1/retrieve_future`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/x-protobuf',
            'X-Tinker-Request-Type': 'Forward',
          },
          body: JSON.stringify({ request_id: id }),
        });
        expect(r.headers.get('content-type')).toBe('application/x-protobuf');
        return new Uint8Array(await r.arrayBuffer());
      };
      const Out = protobuf
        .parse(
          `syntax = "proto3";
        message BatchedTensor { bytes data = 1; bytes offsets = 2; int32 dtype = 3; repeated int64 trailing_shape = 4; }
        message ArrayRecord { string type_tag = 1; map<string, BatchedTensor> fields = 2; int64 num_datums = 3; }
        message ForwardBackwardOutput { string loss_fn_output_type = 1; repeated ArrayRecord loss_fn_outputs = 2; map<string, double> metrics = 3; }`,
          { keepCase: true },
        )
        .root.lookupType('ForwardBackwardOutput');
      const want = tensorToNumbers(json.lossFnOutputs[0]!.logprobs!);
      for (const [body, headers] of [
        [raw, {}],
        [zstdRawFrame(raw), { 'Content-Encoding': 'zstd' }],
      ] as const) {
        const out = Out.toObject(Out.decode(await poll(await send(body, headers))), { longs: Number }) as {
          loss_fn_outputs: { fields: Record<string, { data: Uint8Array; offsets: Uint8Array }>; num_datums: number }[];
          metrics: Record<string, number>;
        };
        const lp = out.loss_fn_outputs[0]!.fields.logprobs!;
        const values = Array.from(new Float32Array(new Uint8Array(lp.data).buffer));
        expect(out.loss_fn_outputs[0]!.num_datums).toBe(1);
        for (const [i, v] of values.entries()) expect(v).toBeCloseTo(want[i]!, 5);
        expect(out.metrics['loss:sum']).toBeCloseTo(json.metrics['loss:sum']!, 4);
        // The zstd body decodes to the same request (seq_id 2), so the service answers it as a replay.
      }
    } finally {
      await stop();
    }
  });

  it('the client can send forward_backward as protobuf through its encoder seam, with the same results as JSON', async () => {
    const { ServiceClient } = await import('@cookbook/tinker-client');
    const { service, stop } = await startPair({ root });
    let encoded = 0;
    const proto = new ServiceClient({
      baseURL: service.baseURL,
      warn: () => undefined,
      forwardBackwardEncoder: {
        encode(req) {
          encoded++;
          const msg = ForwardBackwardRequestProto.fromObject({
            model_id: req.model_id,
            seq_id: req.seq_id,
            loss_fn: req.forward_backward_input.loss_fn,
            forward_only: req.forward_only,
            data: req.forward_backward_input.data.map((d) => ({
              model_input: d.model_input.chunks.map((c) => ({
                encoded_text: { tokens: int32(c.type === 'encoded_text' ? c.tokens : []) },
              })),
              loss_fn_inputs: Object.fromEntries(
                Object.entries(d.loss_fn_inputs).map(([k, t]) => [
                  k,
                  {
                    dense: t.dtype === 'int64' ? int64(t.data) : f32(t.data),
                    dtype: t.dtype === 'int64' ? 2 : 1,
                    shape: t.shape ?? [t.data.length],
                  },
                ]),
              ),
            })),
          });
          return { data: ForwardBackwardRequestProto.encode(msg).finish(), contentType: 'application/x-protobuf' };
        },
      },
    });
    const { ServiceClient: SC } = await import('@cookbook/tinker-client');
    const json = new SC({ baseURL: service.baseURL, warn: () => undefined });
    try {
      const run = async (sc: InstanceType<typeof SC>) => {
        const tc = await sc.createLoraTrainingClient({ baseModel: MODEL, rank: 4, seed: 9 });
        const losses: number[] = [];
        for (let i = 0; i < 3; i++) {
          const fb = tc.forwardBackward(fixedBatch(i, 2, 8), 'cross_entropy');
          void tc.optimStep({ learningRate: 1e-2 });
          losses.push((await fb).metrics['loss:sum']!);
        }
        losses.push((await tc.forward(fixedBatch(5, 2, 8), 'cross_entropy')).metrics['loss:sum']!);
        return losses;
      };
      expect(await run(proto)).toEqual(await run(json));
      expect(encoded).toBe(4);
    } finally {
      await proto.close();
      await json.close();
      await stop();
    }
  });

  it('rejects a body that is not protobuf with a 400', async () => {
    const { service, stop } = await startPair({ root });
    try {
      const r = await fetch(`${service.baseURL}/api/v1/forward_backward`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-protobuf' },
        body: new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f]),
      });
      expect(r.status).toBe(400);
    } finally {
      await stop();
    }
  });
});
