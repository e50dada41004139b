/**
 * `cookbook checkpoint <verb>`: the checkpoints of a Tinker-compatible server (the embedded one, another server at
 * base_url / TINKER_BASE_URL, or the hosted one with TINKER_API_KEY), over the REST routes every such server has —
 * list, info, download, export (PEFT adapter or merged model), delete, ttl, publish, unpublish. A table for people,
 * `--json` (json=true) for scripts.
 */
import { CheckpointError, ConfigError } from '@cookbook/core';
import { type Checkpoint, parseTinkerPath, type RestClient, type ServiceClient } from '@cookbook/tinker-client';
import { serviceClientFor } from '@cookbook/training';
import { formatBytes } from '@cookbook/weights';
import { z } from 'zod';
import { defineRecipe, type RecipeIO } from '../recipe.js';
import { checkpointFailure, defaultDownloadDir, downloadCheckpoint, exportCheckpoint } from './checkpoint-files.js';

export const CHECKPOINT_VERBS = [
  'list',
  'info',
  'download',
  'export',
  'delete',
  'ttl',
  'publish',
  'unpublish',
] as const;

export const checkpointSchema = z.object({
  verb: z.enum(CHECKPOINT_VERBS).describe('What to do (the first argument: cookbook checkpoint list)'),
  path: z
    .string()
    .default('')
    .describe(
      'The checkpoint: tinker://<run>/<weights|sampler_weights>/<name> (export also takes a downloaded folder)',
    ),
  run: z.string().default('').describe('list: only this training run'),
  runs: z.boolean().default(false).describe('list: the training runs instead of their checkpoints'),
  limit: z.number().int().min(1).max(1000).default(20).describe('list: rows per page'),
  offset: z.number().int().min(0).default(0).describe('list: rows skipped (the next page: offset + limit)'),
  json: z.boolean().default(false).describe('Print JSON instead of a table (also --json)'),
  out: z
    .string()
    .default('')
    .describe('download / export: the folder to write (default: <run>-<name>, <run>-<name>-<format>)'),
  format: z
    .enum(['merged', 'peft'])
    .default('merged')
    .describe('export: a merged model folder or a PEFT adapter folder'),
  base: z
    .string()
    .default('')
    .describe("export: the base model, a folder or a Hub id (org/name); '' = the one the checkpoint was trained on"),
  dtype: z.enum(['bfloat16', 'float32']).default('bfloat16').describe('export format=merged: weights dtype'),
  maxShardGb: z.number().positive().default(5).describe('export format=merged: largest safetensors shard, GB'),
  overwrite: z.boolean().default(false).describe('download / export: replace an existing out folder'),
  ttlSeconds: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('ttl: expire the checkpoint this many seconds from now; null (default) keeps it forever'),
  baseUrl: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'Tinker-compatible server; null = TINKER_BASE_URL, the hosted service with TINKER_API_KEY, else embedded',
    ),
});

type CheckpointConfig = z.infer<typeof checkpointSchema>;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r
        .map((v, c) => v.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function checkpointRows(cks: Checkpoint[]): string[][] {
  return [
    ['PATH', 'TYPE', 'SIZE', 'SAVED', 'PUBLIC', 'EXPIRES'],
    ...cks.map((c) => [
      c.tinker_path,
      c.checkpoint_type,
      c.size_bytes === undefined || c.size_bytes === null ? '-' : formatBytes(c.size_bytes),
      String(c.time),
      c.public ? 'yes' : 'no',
      c.expires_at ? String(c.expires_at) : '-',
    ]),
  ];
}

function needPath(config: CheckpointConfig): string {
  if (config.path === '') {
    throw new ConfigError(
      `checkpoint ${config.verb} needs a checkpoint: cookbook checkpoint ${config.verb} tinker://<run>/<kind>/<name>`,
      {
        key: 'path',
      },
    );
  }
  if (config.verb !== 'export') parseTinkerPath(config.path);
  return config.path;
}

async function list(config: CheckpointConfig, rest: RestClient, io: RecipeIO): Promise<void> {
  if (config.runs) {
    const r = await rest.listTrainingRuns({ limit: config.limit, offset: config.offset });
    if (config.json) return io.out(JSON.stringify({ training_runs: r.trainingRuns, cursor: r.cursor }, null, 2));
    io.out(
      table([
        ['RUN', 'BASE MODEL', 'RANK', 'LAST CHECKPOINT'],
        ...r.trainingRuns.map((t) => [
          t.training_run_id,
          t.base_model,
          String(t.lora_rank ?? '-'),
          t.last_checkpoint?.tinker_path ?? t.last_sampler_checkpoint?.tinker_path ?? '-',
        ]),
      ]),
    );
    const end = r.cursor.offset + r.trainingRuns.length;
    io.out(
      `runs ${r.cursor.offset + 1}–${end} of ${r.cursor.total_count}${end < r.cursor.total_count ? ` (next: offset=${end})` : ''}`,
    );
    return;
  }
  let cks: Checkpoint[];
  let total: number | undefined;
  if (config.run !== '') {
    try {
      cks = await rest.listCheckpoints(config.run);
    } catch (err) {
      throw new CheckpointError(`checkpoint list run=${config.run}: ${(err as Error).message}`, { cause: err });
    }
    total = cks.length;
    cks = cks.slice(config.offset, config.offset + config.limit);
  } else {
    const r = await rest.listUserCheckpoints({ limit: config.limit, offset: config.offset });
    cks = r.checkpoints;
    total = r.cursor?.total_count;
  }
  if (config.json) return io.out(JSON.stringify({ checkpoints: cks, total_count: total ?? null }, null, 2));
  if (cks.length === 0) return io.out(config.run === '' ? 'no checkpoints' : `run ${config.run} has no checkpoints`);
  io.out(table(checkpointRows(cks)));
  const end = config.offset + cks.length;
  if (total !== undefined) {
    io.out(`checkpoints ${config.offset + 1}–${end} of ${total}${end < total ? ` (next: offset=${end})` : ''}`);
  }
}

async function info(config: CheckpointConfig, rest: RestClient, io: RecipeIO): Promise<void> {
  const path = needPath(config);
  const p = parseTinkerPath(path);
  let weights: Awaited<ReturnType<RestClient['getWeightsInfo']>>;
  let record: Checkpoint | undefined;
  try {
    weights = await rest.getWeightsInfo(path);
    record = (await rest.listCheckpoints(p.trainingRunId).catch(() => [])).find((c) => c.tinker_path === path);
  } catch (err) {
    throw checkpointFailure('info', path, err);
  }
  const all = { tinker_path: path, training_run_id: p.trainingRunId, ...record, ...weights };
  if (config.json) return io.out(JSON.stringify(all, null, 2));
  io.out(table(Object.entries(all).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])));
}

async function act(config: CheckpointConfig, rest: RestClient, io: RecipeIO): Promise<void> {
  const path = needPath(config);
  try {
    if (config.verb === 'delete') await rest.deleteCheckpoint(path);
    else if (config.verb === 'publish') await rest.publishCheckpoint(path);
    else if (config.verb === 'unpublish') await rest.unpublishCheckpoint(path);
    else await rest.setCheckpointTtl(path, config.ttlSeconds);
  } catch (err) {
    throw checkpointFailure(config.verb, path, err);
  }
  const done =
    config.verb === 'ttl'
      ? config.ttlSeconds === null
        ? `${path} no longer expires`
        : `${path} expires in ${config.ttlSeconds} s`
      : `${path} ${config.verb === 'delete' ? 'deleted' : `${config.verb}ed`}`;
  io.out(config.json ? JSON.stringify({ tinker_path: path, verb: config.verb, ok: true }) : done);
}

export const checkpoint = defineRecipe({
  name: 'checkpoint',
  description:
    'Checkpoints on the server: list, info, download, export (merged / PEFT), delete, ttl, publish, unpublish',
  schema: checkpointSchema,
  positionals: ['verb', 'path'],
  notes: [
    'Examples: cookbook checkpoint list run=<run id>; cookbook checkpoint info tinker://<run>/weights/final;',
    'cookbook checkpoint download tinker://<run>/sampler_weights/final out=./adapter;',
    'cookbook checkpoint export tinker://<run>/sampler_weights/final format=merged base=/models/Qwen3-0.6B out=./merged;',
    'cookbook checkpoint ttl tinker://… ttl_seconds=86400. The server is the embedded one unless base_url=,',
    'TINKER_BASE_URL or TINKER_API_KEY say otherwise. A download interrupted leaves <out>.tar.part: run it again to resume.',
  ].join('\n'),
  async run(config, io) {
    // A missing or malformed path is a usage error found before any server is contacted (or started).
    if (!['list'].includes(config.verb)) needPath(config);
    let client: ServiceClient | undefined;
    const rest = async () => {
      client ??= serviceClientFor(config);
      return client.createRestClient();
    };
    try {
      switch (config.verb) {
        case 'list':
          return await list(config, await rest(), io);
        case 'info':
          return await info(config, await rest(), io);
        case 'download': {
          const path = needPath(config);
          const out = config.out || defaultDownloadDir(path);
          const r = await downloadCheckpoint(await rest(), path, out, {
            overwrite: config.overwrite,
            io,
            quiet: config.json,
          });
          io.out(
            config.json
              ? JSON.stringify({ tinker_path: path, out, ...r })
              : `${path} → ${out} (${formatBytes(r.bytes)}: ${r.files.join(', ')})`,
          );
          return;
        }
        case 'export': {
          const source = needPath(config);
          const out =
            config.out ||
            `${source.startsWith('tinker://') ? defaultDownloadDir(source) : source.replace(/[\\/]+$/, '')}-${config.format}`;
          const r = await exportCheckpoint({
            source,
            outDir: out,
            format: config.format,
            base: config.base,
            dtype: config.dtype,
            overwrite: config.overwrite,
            maxShardBytes: config.maxShardGb * 1e9,
            rest,
            io,
          });
          io.out(
            config.json
              ? JSON.stringify({
                  source,
                  out,
                  format: config.format,
                  base_model: r.baseModel,
                  files: r.files,
                  bytes: r.bytes,
                })
              : `${source} → ${out} (${config.format}${config.format === 'merged' ? `, ${config.dtype}` : ''}, base ${r.baseModel}, ${formatBytes(r.bytes)}: ${r.files.join(', ')})`,
          );
          return;
        }
        default:
          return await act(config, await rest(), io);
      }
    } finally {
      await client?.close();
    }
  },
});
