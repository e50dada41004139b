/**
 * TrainingClient (upstream SDK `lib/public_interfaces/training_client.py`). Every call takes seq ids in
 * submission order and its POST waits for the previous call's POST, so `forwardBackward` then `optimStep` can be
 * submitted back to back without awaiting; results are awaited later. A forward_backward batch is split into
 * chunks whose POSTs go out together, the first chunk last.
 */
import { DataError, type Datum, tensorFromFloat32, tensorToNumbers, validateDatum } from '@cookbook/core';
import {
  CreateSamplingSessionResponseSchema,
  ForwardBackwardOutputSchema,
  type FutureRequestType,
  GetInfoResponseSchema,
  LoadWeightsResponseSchema,
  LossFnTypeSchema,
  OptimStepResponseSchema,
  SaveWeightsForSamplerResponseSchema,
  SaveWeightsResponseSchema,
  type WireDatum,
} from '@cookbook/tinker-wire';
import { loadTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import type { z } from 'zod';
import { APIFuture } from './api-future.js';
import { chunkData, combineChunkOutputs } from './chunking.js';
import type { ClientHolder, Submitted } from './internal/holder.js';
import { forwardBackwardBody } from './internal/protocol.js';
import { SamplingClient } from './sampling-client.js';
import {
  type AdamParams,
  adamParamsToWire,
  datumToWire,
  type ForwardBackwardOutput,
  forwardBackwardOutputFromWire,
  type LossFnType,
} from './types.js';

/** What `getInfo` returns. */
export interface TrainingModelInfo {
  modelId: string;
  modelData: { arch?: string; modelName?: string; tokenizerId?: string };
  isLora?: boolean;
  loraRank?: number;
  modelName?: string;
}

/** A loss computed on the client: its value, d(loss)/d(logprob) per datum, and metrics to report. */
export interface CustomLossResult {
  loss: number;
  /** One array per datum, the same length as that datum's logprobs. */
  gradLogprobs: ArrayLike<number>[];
  metrics?: Record<string, number>;
}

/**
 * A client-side loss over the per-token logprobs of the targets. TypeScript has no autograd, so the function
 * returns its gradient with respect to the logprobs along with its value.
 */
export type CustomLossFn = (data: Datum[], logprobs: Float32Array[]) => CustomLossResult | Promise<CustomLossResult>;

/** Trains one LoRA model on the server. */
export class TrainingClient {
  readonly modelId: string;
  private readonly holder: ClientHolder;
  private seqCounter = 0;
  private tokenizer: Promise<Tokenizer> | undefined;
  private turn: Promise<void> = Promise.resolve();

  constructor(holder: ClientHolder, modelId: string) {
    this.holder = holder;
    this.modelId = modelId;
  }

  /** Reserve `n` consecutive seq ids (seq_id = counter + 1). */
  private reserve(n: number): number[] {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(++this.seqCounter);
    return ids;
  }

  /** Run `fn` after every earlier call's POST has returned, so POSTs leave in seq order. */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.turn.then(fn);
    this.turn = p.then(
      () => undefined,
      () => undefined,
    );
    return p;
  }

  private checkData(data: Datum[], lossFn: string): WireDatum[] {
    if (!LossFnTypeSchema.safeParse(lossFn).success) {
      throw new DataError(`unknown loss_fn "${lossFn}"; expected one of ${LossFnTypeSchema.options.join(', ')}`, {
        field: 'loss_fn',
      });
    }
    for (const [i, d] of data.entries()) validateDatum(d, i);
    return data.map(datumToWire);
  }

  /**
   * POST one call's chunks. `proto` mode (SDK 0.25.0 `training_client.py`, `resources/training.py`): every chunk is a
   * protobuf forward_backward, a forward pass sets `forward_only`. `json` mode (SDK 0.16.1): JSON bodies to
   * `/forward` or `/forward_backward`. With `parallel_fwdbwd_chunks` (the default) the chunks go out together, the
   * first one last (the server waits for the first seq id, so the batch starts whole); without it, one after another
   * in seq order.
   */
  private runBatch(
    kind: 'forward' | 'forward_backward',
    lossFn: LossFnType,
    lossFnConfig: Record<string, number> | undefined,
    seqIds: number[],
    chunks: WireDatum[][],
  ): Promise<Submitted[]> {
    const post = async (chunk: WireDatum[], seqId: number) => {
      const input = { data: chunk, loss_fn: lossFn, ...(lossFnConfig ? { loss_fn_config: lossFnConfig } : {}) };
      const encoder = this.holder.forwardBackwardEncoder;
      if (encoder || this.holder.mode === 'proto') {
        const request = {
          model_id: this.modelId,
          seq_id: seqId,
          forward_backward_input: input,
          forward_only: kind === 'forward',
        };
        const rawBody = encoder
          ? encoder.encode(request)
          : await forwardBackwardBody(request, this.holder.flags.proto_compress_fwdbwd);
        return this.holder.submit('/api/v1/forward_backward', undefined, { rawBody });
      }
      const body =
        kind === 'forward'
          ? { forward_input: input, model_id: this.modelId, seq_id: seqId }
          : { forward_backward_input: input, model_id: this.modelId, seq_id: seqId };
      return this.holder.submit(`/api/v1/${kind}`, body);
    };
    return (async () => {
      if (!this.holder.flags.parallel_fwdbwd_chunks) {
        const out: Submitted[] = [];
        for (const [i, c] of chunks.entries()) out.push(await post(c, seqIds[i]!));
        return out;
      }
      const rest = await Promise.all(chunks.slice(1).map((c, i) => post(c, seqIds[i + 1]!)));
      const first = await post(chunks[0]!, seqIds[0]!);
      return [first, ...rest];
    })();
  }

  private batch(
    kind: 'forward' | 'forward_backward',
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: Record<string, number>,
  ): APIFuture<ForwardBackwardOutput> {
    const wireData = this.checkData(data, lossFn);
    const flags = this.holder.flags;
    const chunks = chunkData(wireData, flags.fwdbwd_max_chunk_len, flags.fwdbwd_max_chunk_bytes_count);
    const seqIds = this.reserve(chunks.length);
    const submitted = this.inTurn(() => this.runBatch(kind, lossFn, lossFnConfig, seqIds, chunks));
    const requestType = kind === 'forward' ? 'Forward' : 'ForwardBackward';
    return new APIFuture(
      submitted.then(async (subs) => {
        const outs = await Promise.all(subs.map((s) => this.holder.poll(s, requestType, ForwardBackwardOutputSchema)));
        return combineChunkOutputs(
          outs.map(forwardBackwardOutputFromWire),
          chunks.map((c) => c.length),
        );
      }),
    );
  }

  /** Compute the loss and accumulate gradients for `data`. Gradients add up until {@link optimStep}. */
  forwardBackward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: Record<string, number>,
  ): APIFuture<ForwardBackwardOutput> {
    return this.batch('forward_backward', data, lossFn, lossFnConfig);
  }

  /** Compute the loss and outputs for `data` without accumulating gradients. */
  forward(data: Datum[], lossFn: LossFnType, lossFnConfig?: Record<string, number>): APIFuture<ForwardBackwardOutput> {
    return this.batch('forward', data, lossFn, lossFnConfig);
  }

  /**
   * A forward_backward with a loss computed on the client (upstream `forward_backward_custom`): a forward pass
   * gets the target logprobs, `lossFn` returns the loss and its gradient g, and a cross-entropy
   * forward_backward with weights −g applies that gradient. About 1.5× the cost of one forward_backward.
   */
  forwardBackwardCustom(data: Datum[], lossFn: CustomLossFn): APIFuture<ForwardBackwardOutput> {
    for (const [i, d] of data.entries()) {
      for (const key of Object.keys(d.lossFnInputs)) {
        if (key !== 'target_tokens' && key !== 'weights') {
          throw new DataError(`forwardBackwardCustom accepts only target_tokens and weights, got "${key}"`, {
            field: `data[${i}].loss_fn_inputs.${key}`,
          });
        }
      }
      if (d.lossFnInputs.target_tokens === undefined) {
        throw new DataError('forwardBackwardCustom needs target_tokens', {
          field: `data[${i}].loss_fn_inputs.target_tokens`,
        });
      }
    }
    const withWeights = data.map((d) => ({
      modelInput: d.modelInput,
      lossFnInputs: {
        target_tokens: d.lossFnInputs.target_tokens!,
        weights: d.lossFnInputs.weights ?? tensorFromFloat32(new Array<number>(d.modelInput.length).fill(0)),
      },
    }));
    const wireData = this.checkData(withWeights, 'cross_entropy');
    const flags = this.holder.flags;
    const maxLen = flags.fwdbwd_max_chunk_len;
    const maxBytes = flags.fwdbwd_max_chunk_bytes_count;
    const fwdChunks = chunkData(wireData, maxLen, maxBytes);
    const fwdIds = this.reserve(fwdChunks.length);
    const bwdIds = this.reserve(fwdChunks.length);
    const sizes = fwdChunks.map((c) => c.length);
    // The turn is held until the backward pass is submitted, so later calls keep their order.
    const work = this.inTurn(async () => {
      const fwdSubs = await this.runBatch('forward', 'cross_entropy', undefined, fwdIds, fwdChunks);
      const fwdOuts = await Promise.all(
        fwdSubs.map((s) => this.holder.poll(s, 'Forward', ForwardBackwardOutputSchema)),
      );
      const fwd = combineChunkOutputs(fwdOuts.map(forwardBackwardOutputFromWire), sizes);
      const logprobs = fwd.lossFnOutputs.map((o, i) => {
        const lp = o.logprobs;
        if (lp === undefined) throw new DataError(`forward returned no logprobs for datum ${i}`);
        return Float32Array.from(tensorToNumbers(lp));
      });
      const custom = await lossFn(data, logprobs);
      if (custom.gradLogprobs.length !== data.length) {
        throw new DataError(`custom loss returned ${custom.gradLogprobs.length} gradients for ${data.length} datums`);
      }
      const bwdData = withWeights.map((d, i) => {
        const g = custom.gradLogprobs[i]!;
        if (g.length !== logprobs[i]!.length) {
          throw new DataError(`custom loss gradient ${i} has length ${g.length}, expected ${logprobs[i]!.length}`);
        }
        return {
          modelInput: d.modelInput,
          lossFnInputs: {
            target_tokens: d.lossFnInputs.target_tokens,
            // The targets' shape: (N) or (N, K) (a loss over K target tokens per position).
            weights: tensorFromFloat32(
              Array.from(g, (v) => -v),
              d.lossFnInputs.target_tokens.shape,
            ),
          },
        };
      });
      const bwdWire = bwdData.map(datumToWire);
      const bwdChunks = chunkData(bwdWire, maxLen, maxBytes);
      if (bwdChunks.length !== fwdChunks.length) {
        // Same data, same limits: the chunking cannot differ; guard anyway so seq ids stay consistent.
        throw new DataError('internal: custom-loss chunking changed between passes');
      }
      const bwdSubs = await this.runBatch('forward_backward', 'cross_entropy', undefined, bwdIds, bwdChunks);
      return { bwdSubs, custom };
    });
    return new APIFuture(
      work.then(async ({ bwdSubs, custom }) => {
        const outs = await Promise.all(
          bwdSubs.map((s) => this.holder.poll(s, 'ForwardBackward', ForwardBackwardOutputSchema)),
        );
        const out = combineChunkOutputs(outs.map(forwardBackwardOutputFromWire), sizes);
        return { ...out, metrics: { ...out.metrics, ...(custom.metrics ?? {}), 'custom_loss:sum': custom.loss } };
      }),
    );
  }

  /** One seq-ordered request: takes the next seq id, posts in turn, then polls its result. */
  private ordered<T>(
    path: string,
    body: Record<string, unknown>,
    requestType: FutureRequestType,
    schema: z.ZodType<T>,
  ): Promise<T> {
    const [seqId] = this.reserve(1);
    // Retries are safe for every call, saves and loads included: the server dedupes by seq_id and idempotency key.
    const submitted = this.inTurn(() => this.holder.submit(path, { ...body, model_id: this.modelId, seq_id: seqId }));
    return submitted.then((s) => this.holder.poll(s, requestType, schema));
  }

  /** Apply one AdamW step with the accumulated gradients. */
  optimStep(adamParams: AdamParams = {}): APIFuture<{ metrics: Record<string, number> }> {
    const result = this.ordered(
      '/api/v1/optim_step',
      { adam_params: adamParamsToWire(adamParams), type: 'optim_step' },
      'OptimStep',
      OptimStepResponseSchema,
    );
    return new APIFuture(result.then((r) => ({ metrics: r.metrics ?? {} })));
  }

  /**
   * Save weights and optimizer state as `tinker://<run>/weights/<name>`. A name already saved is a 409 unless
   * `overwrite` (default false, SDK 0.25.0 `SaveWeightsRequest.overwrite`).
   */
  saveState(name: string, options: { ttlSeconds?: number; overwrite?: boolean } = {}): APIFuture<{ path: string }> {
    const result = this.ordered(
      '/api/v1/save_weights',
      {
        path: name,
        ...(options.ttlSeconds !== undefined ? { ttl_seconds: options.ttlSeconds } : {}),
        overwrite: options.overwrite ?? false,
        type: 'save_weights',
      },
      'SaveWeights',
      SaveWeightsResponseSchema,
    );
    return new APIFuture(result.then((r) => ({ path: r.path })));
  }

  /**
   * Load a training checkpoint (`tinker://…/weights/…`). The service allows this only as a model's first
   * request; use {@link ServiceClient.createTrainingClientFromState} to resume.
   */
  loadState(
    path: string,
    options: { optimizer?: boolean; weightsAccessToken?: string } = {},
  ): APIFuture<{ path?: string }> {
    const result = this.ordered(
      '/api/v1/load_weights',
      {
        path,
        optimizer: options.optimizer ?? false,
        ...(options.weightsAccessToken !== undefined ? { weights_access_token: options.weightsAccessToken } : {}),
        type: 'load_weights',
      },
      'LoadWeights',
      LoadWeightsResponseSchema,
    );
    return new APIFuture(result.then((r) => (r.path === undefined ? {} : { path: r.path })));
  }

  /**
   * Save weights for sampling. With a name, returns `tinker://<run>/sampler_weights/<name>`; without one the
   * save is ephemeral and returns a sampling session id.
   */
  saveWeightsForSampler(
    name?: string,
    options: { ttlSeconds?: number } = {},
  ): APIFuture<{ path?: string; samplingSessionId?: string }> {
    const target =
      name !== undefined ? { path: name } : { sampling_session_seq_id: this.holder.nextSamplingSessionSeqId() };
    const result = this.ordered(
      '/api/v1/save_weights_for_sampler',
      {
        ...target,
        ...(options.ttlSeconds !== undefined ? { ttl_seconds: options.ttlSeconds } : {}),
        type: 'save_weights_for_sampler',
      },
      'SaveWeightsForSampler',
      SaveWeightsForSamplerResponseSchema,
    );
    return new APIFuture(
      result.then((r) => {
        const out: { path?: string; samplingSessionId?: string } = {};
        if (r.path !== undefined) out.path = r.path;
        if (r.sampling_session_id !== undefined) out.samplingSessionId = r.sampling_session_id;
        return out;
      }),
    );
  }

  /** Save the current weights and return a SamplingClient that samples from them. */
  async saveWeightsAndGetSamplingClient(name?: string): Promise<SamplingClient> {
    const saved = await this.saveWeightsForSampler(name);
    if (saved.samplingSessionId !== undefined) return new SamplingClient(this.holder, saved.samplingSessionId);
    if (saved.path === undefined)
      throw new DataError('save_weights_for_sampler returned neither a path nor a session id');
    const { data } = await this.holder.http.request({
      method: 'POST',
      path: '/api/v1/create_sampling_session',
      body: {
        session_id: this.holder.sessionId,
        sampling_session_seq_id: this.holder.nextSamplingSessionSeqId(),
        model_path: saved.path,
        type: 'create_sampling_session',
      },
      schema: CreateSamplingSessionResponseSchema,
    });
    return new SamplingClient(this.holder, data.sampling_session_id);
  }

  /** The model's architecture, name, tokenizer and LoRA rank. */
  async getInfo(): Promise<TrainingModelInfo> {
    const { data } = await this.holder.http.request({
      method: 'POST',
      path: '/api/v1/get_info',
      body: { model_id: this.modelId, type: 'get_info' },
      schema: GetInfoResponseSchema,
    });
    const md = data.model_data;
    const info: TrainingModelInfo = { modelId: data.model_id, modelData: {} };
    if (md.arch !== undefined) info.modelData.arch = md.arch;
    if (md.model_name !== undefined) info.modelData.modelName = md.model_name;
    if (md.tokenizer_id !== undefined) info.modelData.tokenizerId = md.tokenizer_id.split(':')[0]!;
    if (data.is_lora !== undefined) info.isLora = data.is_lora;
    if (data.lora_rank !== undefined) info.loraRank = data.lora_rank;
    if (data.model_name !== undefined) info.modelName = data.model_name;
    return info;
  }

  /**
   * The model's tokenizer (upstream `get_tokenizer`), named by the service's `tokenizer_id` (else the model name) and
   * loaded by `@cookbook/tokenizers`: offline from the family's package or a local folder, else from the Hugging Face
   * Hub when online. Asked once per client; a failure is not cached.
   */
  getTokenizer(): Promise<Tokenizer> {
    this.tokenizer ??= this.getInfo().then((info) => {
      const name = info.modelData.tokenizerId ?? info.modelData.modelName ?? info.modelName;
      if (name === undefined) throw new DataError(`get_info for ${this.modelId} named no tokenizer and no model`);
      return loadTokenizer(name);
    });
    this.tokenizer.catch(() => {
      this.tokenizer = undefined;
    });
    return this.tokenizer;
  }
}
