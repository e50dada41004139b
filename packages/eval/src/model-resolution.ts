/**
 * Which model an evaluation samples, and in which chat format (upstream `run_inspect_evals.py` +
 * `resolve_renderer_name_from_checkpoint_or_default`): explicit settings first, then the checkpoint's training run
 * (its base model and the `renderer_name` stored in its metadata), then the base model's recommended renderer.
 * `model_path` may also be a local run folder: its last checkpoint with sampler weights is used.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, ConfigError } from '@cookbook/core';
import { CHECKPOINTS_FILE, readCheckpoints } from '@cookbook/logging';
import { resolveRendererName } from '@cookbook/renderers';
import { parseTinkerPath, type RestClient } from '@cookbook/tinker-client';

/** Where a resolved setting came from. */
export type ResolutionSource = 'explicit' | 'checkpoint' | 'recommended' | 'run folder';

/** The model an evaluation uses. */
export interface ResolvedModel {
  /** Sampler weights (`tinker://…/sampler_weights/…`), or null for the base model. */
  modelPath: string | null;
  baseModel: string;
  rendererName: string;
  sources: { modelPath?: ResolutionSource; baseModel: ResolutionSource; rendererName: ResolutionSource };
}

/** What is asked for. */
export interface ModelRequest {
  modelPath: string | null;
  modelName: string | null;
  rendererName: string | null;
}

/** The last sampler path recorded in a run folder's `checkpoints.jsonl`. */
export function samplerPathFromRunFolder(folder: string): string {
  if (!existsSync(join(folder, CHECKPOINTS_FILE))) {
    throw new ConfigError(
      `model_path=${folder} is a folder without ${CHECKPOINTS_FILE}; give a run folder or a tinker://…/sampler_weights/… path`,
      { key: 'model_path' },
    );
  }
  const last = readCheckpoints(folder)
    .filter((r) => typeof r.sampler_path === 'string')
    .at(-1);
  if (last?.sampler_path === undefined) {
    throw new ConfigError(`model_path=${folder}: ${CHECKPOINTS_FILE} has no checkpoint with sampler weights`, {
      key: 'model_path',
    });
  }
  return last.sampler_path;
}

/**
 * Resolves the model: `modelPath` (tinker path or run folder) and/or `modelName`; the training run is asked for
 * what is not given. `rest` is only called when a checkpoint's run must be looked up.
 */
export async function resolveModel(
  request: ModelRequest,
  rest: () => Promise<Pick<RestClient, 'getTrainingRun'>>,
): Promise<ResolvedModel> {
  let modelPath = request.modelPath;
  let pathSource: ResolutionSource | undefined;
  if (modelPath !== null) {
    pathSource = 'explicit';
    if (!modelPath.startsWith('tinker://')) {
      if (!existsSync(modelPath) || !statSync(modelPath).isDirectory()) {
        throw new ConfigError(
          `model_path=${modelPath} is neither a tinker://… checkpoint path nor a run folder with ${CHECKPOINTS_FILE}`,
          { key: 'model_path' },
        );
      }
      modelPath = samplerPathFromRunFolder(modelPath);
      pathSource = 'run folder';
    }
  }
  if (modelPath === null) {
    if (request.modelName === null) {
      throw new ConfigError(
        'give model_path=tinker://…/sampler_weights/… (or a run folder) to evaluate a checkpoint, or model_name=… for a base model (offline: model_name=local/qwen3-tiny)',
        { key: 'model_name' },
      );
    }
    return {
      modelPath: null,
      baseModel: request.modelName,
      rendererName: resolveRendererName(request.modelName, request.rendererName),
      sources: { baseModel: 'explicit', rendererName: request.rendererName !== null ? 'explicit' : 'recommended' },
    };
  }
  const path = modelPath;
  let runBase: string | undefined;
  let runRenderer: string | undefined;
  if (request.modelName === null || request.rendererName === null) {
    const { trainingRunId } = parseTinkerPath(path);
    try {
      const run = await (await rest()).getTrainingRun(trainingRunId);
      runBase = run.base_model;
      const r = run.user_metadata?.renderer_name;
      runRenderer = typeof r === 'string' && r.length > 0 ? r : undefined;
    } catch (error) {
      if (request.modelName === null) {
        throw new CheckpointError(
          `cannot read the training run of ${path} to find its base model (${error instanceof Error ? error.message : String(error)}); pass model_name=… explicitly`,
          { cause: error },
        );
      }
    }
  }
  const baseModel = request.modelName ?? runBase!;
  const rendererName = resolveRendererName(baseModel, request.rendererName ?? runRenderer);
  return {
    modelPath: path,
    baseModel,
    rendererName,
    sources: {
      ...(pathSource ? { modelPath: pathSource } : {}),
      baseModel: request.modelName !== null ? 'explicit' : 'checkpoint',
      rendererName:
        request.rendererName !== null ? 'explicit' : runRenderer !== undefined ? 'checkpoint' : 'recommended',
    },
  };
}
