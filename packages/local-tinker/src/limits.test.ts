import { describe, expect, it } from 'vitest';
import {
  ceDatum,
  json,
  MODEL,
  post,
  request,
  result,
  servicesClosedAfterEach,
  sessionAndModel,
  submitAndWait,
} from './__tests__/direct.js';
import { thrown } from './__tests__/thrown.js';
import { checkJsonDepth, DEFAULT_LIMITS } from './limits.js';
import { decompressZstd, zstdOutputBound } from './zstd.js';

const service = servicesClosedAfterEach();

/** A zstd frame header: magic, descriptor, optional window byte, content size bytes. */
function frame(descriptor: number, rest: number[]): number[] {
  return [0x28, 0xb5, 0x2f, 0xfd, descriptor, ...rest];
}
/** A 3-byte block header. */
function block(last: boolean, type: number, size: number): number[] {
  const h = (size << 3) | (type << 1) | (last ? 1 : 0);
  return [h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff];
}

describe('zstd bodies are bounded before they are decompressed', () => {
  it('a frame declaring 1 GiB of content is refused from its header (regression: 36 KB → 1 GiB, 7 s stall)', () => {
    // FCS flag 2 (4-byte content size), single segment, content size 2^30, then one tiny RLE block.
    const bomb = new Uint8Array([...frame(0xa0, [0, 0, 0, 0x40]), ...block(true, 1, 1 << 20), 0]);
    const err = thrown(() => decompressZstd(bomb, 64 << 20));
    expect(err.status).toBe(413);
    expect(err.message).toContain('1073741824');
    expect(err.message).toContain(`limit of ${64 << 20} bytes`);
  });

  it('a frame without a declared size is bounded by its blocks (RLE blocks say their size)', () => {
    const blocks: number[] = [];
    for (let i = 0; i < 600; i++) blocks.push(...block(i === 599, 1, 128 * 1024), 7);
    // Window descriptor byte 0x58: 2^(10+11) = 2 MiB window, no content size.
    const bomb = new Uint8Array([...frame(0x00, [0x58]), ...blocks]);
    expect(() => zstdOutputBound(bomb, 64 << 20)).toThrow(/over this service's limit/);
    expect(zstdOutputBound(bomb, 100 << 20)).toBe(600 * 128 * 1024);
  });

  it('a valid small frame decompresses', () => {
    const data = [...new TextEncoder().encode('hello')];
    const raw = new Uint8Array([...frame(0x20, [data.length]), ...block(true, 0, data.length), ...data]);
    expect(new TextDecoder().decode(decompressZstd(raw, 1024))).toBe('hello');
    expect(thrown(() => decompressZstd(new Uint8Array([1, 2, 3, 4, 5]), 1024)).status).toBe(400);
  });
});

describe('JSON depth is checked before parsing', () => {
  it('refuses 5,000 levels with a 400 naming the limit, ignores brackets inside strings', () => {
    const deep = new TextEncoder().encode(`${'['.repeat(5000)}${']'.repeat(5000)}`);
    const err = thrown(() => checkJsonDepth(deep, 64));
    expect(err.status).toBe(400);
    expect(err.message).toContain('more than 64 levels');
    expect(() => checkJsonDepth(new TextEncoder().encode(`{"a":"${'['.repeat(500)}\\""}`), 3)).not.toThrow();
  });
});

describe('limits that name themselves', () => {
  it('num_samples, topk_prompt_logprobs, max_tokens: 400 with field, value and limit', async () => {
    const s = await service();
    const { session } = await sessionAndModel(s);
    const sampler = json(
      await post(s, 'create_sampling_session', { session_id: session, sampling_session_seq_id: 0, base_model: MODEL }),
    ).sampling_session_id;
    const sample = (extra: Record<string, unknown>, params: Record<string, unknown> = {}) =>
      post(s, 'asample', {
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        sampling_params: params,
        sampling_session_id: sampler,
        ...extra,
      });
    const r1 = await sample({ num_samples: 1_000_000 });
    expect(r1.status).toBe(400);
    expect(json(r1).detail).toBe(
      `num_samples = 1000000 exceeds this service's limit of ${DEFAULT_LIMITS.maxNumSamples} (the operator can raise it: cookbook serve max_num_samples=…)`,
    );
    const r2 = await sample({ topk_prompt_logprobs: 100_000 });
    expect(json(r2).detail).toMatch(/^topk_prompt_logprobs = 100000 exceeds .* max_topk_prompt_logprobs/);
    const r3 = await sample({}, { max_tokens: 10_000_000 });
    expect(json(r3).detail).toMatch(/^sampling_params.max_tokens = 10000000 exceeds .* max_tokens=/);
  });

  it('max_tokens left out is bounded (regression: a whole-context sample blocked every route for 60–90 s)', async () => {
    const s = await service({ limits: { defaultMaxTokens: 5 } });
    const out = await submitAndWait(s, 'asample', {
      num_samples: 2,
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      sampling_params: { stop: [] },
      base_model: MODEL,
    });
    expect((out.sequences as { tokens: number[] }[]).map((q) => q.tokens.length)).toEqual([5, 5]);
  });

  it("the sampler's working memory (num_samples × length) is refused at submission once the model is known", async () => {
    const s = await service({ limits: { maxSampleBytes: 50_000_000 } });
    await submitAndWait(s, 'asample', {
      prompt: { chunks: [{ tokens: [1, 2] }] },
      sampling_params: { max_tokens: 1 },
      base_model: MODEL,
    });
    const r = await post(s, 'asample', {
      num_samples: 100,
      prompt: { chunks: [{ tokens: [1, 2] }] },
      sampling_params: { max_tokens: 1 },
      base_model: MODEL,
    });
    expect(r.status).toBe(400);
    expect(json(r).detail).toMatch(/num_samples × \(prompt \+ max_tokens\) = 100 × 4: .* limit of 50000000 bytes/);
  });

  it('LoRA rank and learning_rate', async () => {
    const s = await service();
    const session = json(await post(s, 'create_session', {})).session_id;
    const r = await post(s, 'create_model', {
      session_id: session,
      model_seq_id: 0,
      base_model: MODEL,
      lora_config: { rank: 1_000_000 },
    });
    expect(json(r).detail).toMatch(/^lora_config.rank = 1000000 exceeds this service's limit of 256/);
    const { model } = await sessionAndModel(s);
    const lr = await post(s, 'optim_step', { model_id: model, adam_params: { learning_rate: 1e308 } });
    expect(lr.status).toBe(400);
    expect(json(lr).detail).toMatch(/^adam_params.learning_rate = 1e\+308 exceeds this service's limit of 1/);
  });

  it('a CSR tensor declaring [1, 2^31] is refused before it is densified (regression: it killed the process)', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    const t0 = Date.now();
    const r = await post(s, 'forward_backward', {
      model_id: model,
      forward_backward_input: {
        loss_fn: 'cross_entropy',
        data: [
          {
            model_input: { chunks: [{ tokens: [1] }] },
            loss_fn_inputs: {
              target_tokens: {
                data: [2],
                dtype: 'int64',
                shape: [1, 2 ** 31],
                sparse_crow_indices: [0, 1],
                sparse_col_indices: [0],
              },
            },
          },
        ],
      },
    });
    expect(r.status).toBe(400);
    expect(json(r).detail).toContain(`exceeds this service's limit of ${DEFAULT_LIMITS.maxLossInputElements}`);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect((await s.handle(request('GET', 'healthz'))).status).toBe(200);
  });

  it('a dense tensor is bounded by its declared shape; one that does not hold its data gets the engine’s 400', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    const fb = (target: Record<string, unknown>) =>
      post(s, 'forward_backward', {
        model_id: model,
        forward_backward_input: {
          loss_fn: 'cross_entropy',
          data: [{ model_input: { chunks: [{ tokens: [1, 2] }] }, loss_fn_inputs: { target_tokens: target } }],
        },
      });
    const huge = await fb({ data: [2, 3], dtype: 'int64', shape: [1, 2 ** 31] });
    expect(huge.status).toBe(400);
    expect(json(huge).detail).toContain(`exceeds this service's limit of ${DEFAULT_LIMITS.maxLossInputElements}`);
    const short = await fb({ data: [2, 3], dtype: 'int64', shape: [3] });
    expect(short.status).toBe(400);
    expect(json(short).detail).toBe('data[0]: target_tokens has shape [3] (3 values) but 2 values');
  });

  it('non-finite gradients never reach the weights; the model keeps training', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    const tokens = [11, 12, 13, 14, 15];
    const probe = async () =>
      (
        (
          await submitAndWait(s, 'forward', {
            model_id: model,
            forward_input: { loss_fn: 'cross_entropy', data: [ceDatum(tokens)] },
          })
        ).loss_fn_outputs as { logprobs: { data: number[] } }[]
      )[0]!.logprobs.data;
    const before = await probe();
    const huge = {
      model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] },
      loss_fn_inputs: {
        target_tokens: { data: tokens.slice(1) },
        logprobs: { data: [-1, -1, -1, -1] },
        advantages: { data: [3e38, 3e38, 3e38, 3e38] },
      },
    };
    await submitAndWait(s, 'forward_backward', {
      model_id: model,
      forward_backward_input: { loss_fn: 'importance_sampling', data: [huge, huge, huge] },
    });
    const step = await submitAndWait(s, 'optim_step', { model_id: model, adam_params: { learning_rate: 0.1 } });
    expect(step).toMatchObject({ category: 'user' });
    expect(step.error).toContain('gradients are not finite or too large');
    expect(await probe()).toEqual(before);
    await submitAndWait(s, 'forward_backward', {
      model_id: model,
      forward_backward_input: { loss_fn: 'cross_entropy', data: [ceDatum(tokens)] },
    });
    expect(await submitAndWait(s, 'optim_step', { model_id: model, adam_params: {} })).toHaveProperty('metrics');
    expect((await probe()).every(Number.isFinite)).toBe(true);
    const beyond = await post(s, 'forward_backward', {
      model_id: model,
      forward_backward_input: {
        loss_fn: 'importance_sampling',
        data: [{ ...huge, loss_fn_inputs: { ...huge.loss_fn_inputs, advantages: { data: [1, 1e300, 1, 1] } } }],
      },
    });
    expect(json(beyond).detail).toContain('loss_fn_inputs.advantages.data[1] = 1e+300: a float32 value must be finite');
  });

  it('a request for the result of an unknown future says what happened', async () => {
    const s = await service();
    const r = await result(s, 'req_nope');
    expect(r.status).toBe(404);
    expect(r.detail).toContain('if it restarted, what was in memory is gone');
  });
});
