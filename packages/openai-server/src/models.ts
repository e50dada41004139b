/**
 * Which model a request's `model` names, and its sampler and renderer: a `tinker://…` sampler path (its base model
 * asked of the service's `weights_info`), a sampler checkpoint's name (`final`, or `sampler_weights/final`; refused
 * when several runs have one by that name), or a base model the service serves. The renderer is the base model's
 * catalogued one (`loadModelSetup`). Resolved models are cached (a bounded number, least recently used dropped).
 */

import { BoundedMap } from '@cookbook/core';
import type { ModelSetup } from '@cookbook/renderers';
import { loadModelSetup } from '@cookbook/renderers';
import type { Checkpoint, SampleArgs, SampleResponse, SupportedModel } from '@cookbook/tinker-client';
import { OpenAIHttpError } from './openai-errors.js';

/** The calls the routes make on a Tinker service (a `ServiceClient` has them all). */
export interface OpenAIBackend {
  createSamplingClient(args: { baseModel?: string; modelPath?: string }): Promise<{
    sample(args: SampleArgs): PromiseLike<SampleResponse>;
  }>;
  createRestClient(): Promise<{
    getWeightsInfo(tinkerPath: string): Promise<{ base_model: string }>;
    listUserCheckpoints(options?: { limit?: number; offset?: number }): Promise<{ checkpoints: Checkpoint[] }>;
  }>;
  getServerCapabilities(): Promise<{ supportedModels: SupportedModel[] }>;
  /**
   * Opens the client's session (a `ServiceClient` has it): the handshake, with the JWT exchange when the service is
   * in JWT mode. When present it is awaited before the first call, so REST calls carry a JWT from the start.
   */
  sessionId?(): Promise<string>;
}

/** A model ready to sample. */
export interface ResolvedModel {
  /** What the request named. */
  id: string;
  /** The base model (the renderer's and tokenizer's model). */
  baseModel: string;
  /** The sampler path, for a checkpoint. */
  modelPath?: string;
  sampler: { sample(args: SampleArgs): PromiseLike<SampleResponse> };
  setup: ModelSetup;
}

/** Most checkpoints searched for a checkpoint name, and listed by `/v1/models`. */
export const MAX_LISTED_CHECKPOINTS = 1000;
const CACHE_SIZE = 16;

/** Resolves and caches models for the routes. */
export class ModelResolver {
  private readonly cache = new BoundedMap<string, Promise<ResolvedModel>>(CACHE_SIZE);
  constructor(
    private readonly backend: () => Promise<OpenAIBackend>,
    private readonly options: { rendererName?: string } = {},
  ) {}

  /** The model a request names, or a 404 `model_not_found` naming it. */
  resolve(model: string): Promise<ResolvedModel> {
    const hit = this.cache.touch(model);
    if (hit !== undefined) return hit;
    const p = this.load(model);
    this.cache.set(model, p);
    p.catch(() => {
      if (this.cache.get(model) === p) this.cache.delete(model);
    });
    return p;
  }

  /** Drop `model` from the cache (its sampler is gone from the service: the next request opens a new one). */
  forget(model: string): void {
    this.cache.delete(model);
  }

  /**
   * Run `use` with the model's sampler; when the service no longer knows that sampler (a 404 naming the sampling
   * session, a 410: it was unloaded or the service restarted), open a new one and run `use` once more.
   */
  async withModel<T>(model: string, use: (m: ResolvedModel) => Promise<T>): Promise<T> {
    try {
      return await use(await this.resolve(model));
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      const message = err instanceof Error ? err.message : '';
      if (!((status === 404 && /sampling_session_id|sampler/.test(message)) || status === 410)) throw err;
      this.forget(model);
      return use(await this.resolve(model));
    }
  }

  /** Sampler checkpoints the service lists (at most {@link MAX_LISTED_CHECKPOINTS}). */
  async samplerCheckpoints(): Promise<Checkpoint[]> {
    const rest = await (await this.backend()).createRestClient();
    const out: Checkpoint[] = [];
    for (let offset = 0; offset < MAX_LISTED_CHECKPOINTS; offset += 100) {
      const page = (await rest.listUserCheckpoints({ limit: 100, offset })).checkpoints;
      out.push(...page.filter((c) => c.checkpoint_type === 'sampler'));
      if (page.length < 100) break;
    }
    return out;
  }

  private async load(model: string): Promise<ResolvedModel> {
    const backend = await this.backend();
    let modelPath: string | undefined;
    if (model.startsWith('tinker://')) modelPath = model;
    else if (!model.includes('/') || model.startsWith('sampler_weights/')) {
      const name = model.replace(/^sampler_weights\//, '');
      const found = (await this.samplerCheckpoints()).filter((c) => c.checkpoint_id === `sampler_weights/${name}`);
      if (found.length > 1) {
        throw new OpenAIHttpError(
          400,
          `model "${model}" names ${found.length} sampler checkpoints (${found
            .slice(0, 5)
            .map((c) => c.tinker_path)
            .join(', ')}${found.length > 5 ? ', …' : ''}): give the tinker:// path`,
          { param: 'model', code: 'model_ambiguous' },
        );
      }
      modelPath = found[0]?.tinker_path;
    }
    let baseModel = model;
    if (modelPath !== undefined) {
      try {
        baseModel = (await (await backend.createRestClient()).getWeightsInfo(modelPath)).base_model;
      } catch (err) {
        throw notFound(model, err);
      }
    }
    // The service answers for the model first: it refuses a folder outside its model roots (the same answer whether
    // or not the folder exists) before anything of it is read here for the renderer.
    let sampler: ResolvedModel['sampler'];
    try {
      sampler = await backend.createSamplingClient(modelPath === undefined ? { baseModel } : { modelPath });
    } catch (err) {
      throw notFound(model, err);
    }
    let setup: ModelSetup;
    try {
      setup = await loadModelSetup({
        modelName: baseModel,
        rendererName: this.options.rendererName ?? null,
        warn: () => {},
      });
    } catch (err) {
      throw notFound(model, err, modelPath === undefined ? undefined : baseModel);
    }
    return { id: model, baseModel, ...(modelPath === undefined ? {} : { modelPath }), sampler, setup };
  }
}

function notFound(model: string, err: unknown, baseModel?: string): OpenAIHttpError {
  if (err instanceof OpenAIHttpError) return err;
  const why = err instanceof Error ? err.message : String(err);
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number' && status !== 404 && status !== 400 && status !== 410) {
    return new OpenAIHttpError(status, `Tinker service: ${why}`, { param: 'model', cause: err });
  }
  return new OpenAIHttpError(
    404,
    `The model "${model}" does not exist or cannot be served${baseModel ? ` (base model ${baseModel})` : ''}: ${why}`,
    { param: 'model', code: 'model_not_found', cause: err },
  );
}
