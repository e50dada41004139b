/**
 * The file side of `cookbook checkpoint`: downloading a checkpoint's archive into a folder (progress, resumable,
 * size verified, extracted atomically) and exporting a checkpoint as a PEFT adapter or a merged model folder.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CheckpointError } from '@cookbook/core';
import { isBuiltinModel, writeBuiltinModelFolder } from '@cookbook/local-tinker';
import { progressBar } from '@cookbook/logging';
import { parseTinkerPath, type RestClient } from '@cookbook/tinker-client';
import {
  type ExportSummary,
  exportMergedModel,
  exportPeftAdapter,
  extractTar,
  readLoraAdapter,
  resolveBaseModelDir,
  writeFolderAtomic,
} from '@cookbook/weights';
import type { RecipeIO } from '../recipe.js';

/** Wraps a server or client failure of `verb` on `path` into one message naming both and the server's reason. */
export function checkpointFailure(verb: string, path: string, err: unknown): CheckpointError {
  const reason = err instanceof Error ? err.message : String(err);
  return new CheckpointError(`checkpoint ${verb} ${path}: ${reason}`, { cause: err });
}

/** The default folder of a downloaded checkpoint: `<run>-<name>` with unsafe characters replaced. */
export function defaultDownloadDir(tinkerPath: string): string {
  const p = parseTinkerPath(tinkerPath);
  return `${p.trainingRunId}-${p.name}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * Downloads the archive of `tinkerPath` and extracts it into `outDir` (atomically). The archive goes to
 * `<outDir>.tar` first; an interrupted download leaves `<outDir>.tar.part`, which the next call continues.
 */
export async function downloadCheckpoint(
  rest: RestClient,
  tinkerPath: string,
  outDir: string,
  options: { overwrite: boolean; io: RecipeIO; quiet?: boolean },
): Promise<{ bytes: number; files: string[] }> {
  parseTinkerPath(tinkerPath);
  if (existsSync(outDir) && !options.overwrite) {
    throw new CheckpointError(`${outDir} already exists; choose another out= folder or pass overwrite=true`);
  }
  mkdirSync(dirname(resolve(outDir)), { recursive: true });
  const tarFile = `${resolve(outDir)}.tar`;
  let bar: ReturnType<typeof progressBar> | undefined;
  let bytes: number;
  try {
    bytes = await rest.downloadCheckpointArchive(tinkerPath, tarFile, {
      onProgress: (done, total) => {
        if (options.quiet === true || total === undefined) return;
        bar ??= progressBar(total, { label: `download ${basename(outDir)}`, unit: 'byte', initial: done });
        bar.update(done);
      },
    });
  } catch (err) {
    throw checkpointFailure('download', tinkerPath, err);
  } finally {
    bar?.finish();
  }
  let files: string[] = [];
  await writeFolderAtomic(outDir, bytes, { overwrite: options.overwrite }, (tmp) => {
    files = extractTar(tarFile, tmp).map((f) => f.name);
    if (!files.includes('adapter_model.safetensors') && !files.includes('adapter_config.json')) {
      throw new CheckpointError(
        `the archive of ${tinkerPath} holds no adapter (adapter_config.json, adapter_model.safetensors): ${files.join(', ') || 'no files'}`,
      );
    }
  });
  rmSync(tarFile, { force: true });
  return { bytes, files };
}

/** Options of {@link exportCheckpoint}. */
export interface ExportCheckpointOptions {
  /** `tinker://…` path or a downloaded checkpoint folder. */
  source: string;
  outDir: string;
  format: 'merged' | 'peft';
  /** Base model: a folder, a Hub repo id, a `local/*` built-in, or '' for the checkpoint's own. */
  base: string;
  dtype: 'bfloat16' | 'float32';
  overwrite: boolean;
  maxShardBytes: number;
  rest: () => Promise<RestClient>;
  io: RecipeIO;
}

/** Exports a checkpoint (downloaded first when it is a `tinker://` path) as a PEFT adapter or a merged model. */
export async function exportCheckpoint(o: ExportCheckpointOptions): Promise<ExportSummary & { baseModel: string }> {
  if (existsSync(o.outDir) && !o.overwrite) {
    throw new CheckpointError(`${o.outDir} already exists; choose another out= folder or pass overwrite=true`);
  }
  const scratch = mkdtempSync(join(dirname(resolve(o.outDir)), `.${basename(o.outDir)}.export-`));
  try {
    let adapterDir = o.source;
    let recordedBase: string | undefined;
    if (o.source.startsWith('tinker://')) {
      const rest = await o.rest();
      try {
        recordedBase = (await rest.getWeightsInfo(o.source)).base_model;
      } catch (err) {
        throw checkpointFailure('export', o.source, err);
      }
      adapterDir = join(scratch, 'checkpoint');
      await downloadCheckpoint(rest, o.source, adapterDir, { overwrite: false, io: o.io });
    } else if (!existsSync(o.source) || !statSync(o.source).isDirectory()) {
      throw new CheckpointError(
        `checkpoint export: "${o.source}" is neither a tinker:// path nor a folder (a downloaded checkpoint: cookbook checkpoint download …)`,
      );
    }
    const adapter = readLoraAdapter(adapterDir);
    const baseName = o.base || recordedBase || adapter.baseModel;
    if (baseName === undefined) {
      throw new CheckpointError(
        `checkpoint export: ${adapterDir} does not say which base model it was trained on; name it with base=<folder or org/name>`,
      );
    }
    let baseDir: string | undefined;
    if (isBuiltinModel(baseName)) {
      baseDir = join(scratch, 'base');
      await writeBuiltinModelFolder(baseName, baseDir);
    } else if (o.format === 'merged' || o.base !== '') {
      baseDir = await resolveBaseModelDir(baseName);
    }
    const summary =
      o.format === 'peft'
        ? await exportPeftAdapter({
            adapterDir,
            outDir: o.outDir,
            baseModelName: baseName,
            overwrite: o.overwrite,
            ...(baseDir === undefined ? {} : { baseDir }),
          })
        : await exportMergedModel({
            adapterDir,
            baseDir: baseDir!,
            outDir: o.outDir,
            dtype: o.dtype,
            overwrite: o.overwrite,
            maxShardBytes: o.maxShardBytes,
          });
    return { ...summary, baseModel: baseName };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
