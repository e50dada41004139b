/**
 * Weights & Biases sink over plain HTTP (upstream `ml_log.WandbLogger` uses the wandb client library). It creates
 * the run with the GraphQL `upsertBucket` mutation and streams history rows to the run's `file_stream` endpoint,
 * the same two calls the official clients make. Any failure prints one warning and turns the sink off: training
 * never sees an exception from here.
 */
import { randomBytes } from 'node:crypto';
import { CookbookError } from '@cookbook/core';
import type { TextSink } from './console-logger.js';
import { toJsonValue } from './internal/to-json.js';
import type { MetricsLogger, MetricValue } from './metrics-logger.js';

/** Options of {@link WandbLogger}. */
export interface WandbLoggerOptions {
  /** W&B project name. */
  project: string;
  /** Run display name. Default: the generated run id. */
  name?: string | undefined;
  /** API key (`WANDB_API_KEY`). */
  apiKey: string;
  /** API base URL (`WANDB_BASE_URL`). Default: `https://api.wandb.ai`. */
  baseUrl?: string | undefined;
  /** Entity (user or team) (`WANDB_ENTITY`). Default: the key owner's default entity. */
  entity?: string | undefined;
  /** Where the one-time failure warning goes. Default: `process.stderr`. */
  warn?: TextSink;
  /** Per-request timeout in milliseconds. Default: 15000. */
  timeoutMs?: number;
  /** fetch implementation. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

const UPSERT_BUCKET = `mutation UpsertBucket($id: String, $name: String, $project: String, $entity: String, $displayName: String, $config: JSONString) {
  upsertBucket(input: {id: $id, name: $name, modelName: $project, entityName: $entity, displayName: $displayName, config: $config}) {
    bucket { id name displayName project { name entity { name } } }
  }
}`;

interface RunRef {
  id: string;
  name: string;
  project: string;
  entity: string;
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** Streams metrics to Weights & Biases; see the module comment for the failure policy. */
export class WandbLogger implements MetricsLogger {
  /** Generated run id (the run's URL slug). */
  readonly runId: string;
  readonly #opts: WandbLoggerOptions;
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #warn: TextSink;
  readonly #startMs = Date.now();
  #chain: Promise<void> = Promise.resolve();
  #run: RunRef | undefined;
  #failed = false;
  #pending: string[] = [];
  #flushQueued = false;
  #offset = 0;
  #autoStep = 0;

  constructor(options: WandbLoggerOptions) {
    this.#opts = options;
    this.#baseUrl = (options.baseUrl ?? 'https://api.wandb.ai').replace(/\/+$/, '');
    this.#fetch = options.fetch ?? fetch;
    this.#warn = options.warn ?? process.stderr;
    this.runId = randomBytes(6)
      .toString('base64url')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '0')
      .slice(0, 8);
  }

  /** Whether the sink has given up after a failure. */
  get failed(): boolean {
    return this.#failed;
  }

  logHparams(config: unknown): void {
    const json = toJsonValue(config);
    const entries = json !== null && typeof json === 'object' && !Array.isArray(json) ? Object.entries(json) : [];
    const wandbConfig = Object.fromEntries(entries.map(([k, v]) => [k, { desc: null, value: v }]));
    this.#enqueue(() => this.#upsert(JSON.stringify(wandbConfig)));
  }

  logMetrics(metrics: Record<string, MetricValue>, step?: number): void {
    if (this.#failed) return;
    const now = Date.now();
    const row: Record<string, unknown> = { ...metrics };
    row._step = step ?? this.#autoStep;
    row._timestamp = now / 1000;
    row._runtime = (now - this.#startMs) / 1000;
    this.#autoStep = (step ?? this.#autoStep) + 1;
    this.#pending.push(JSON.stringify(toJsonValue(row)));
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      this.#enqueue(() => this.#flush());
    }
  }

  async close(): Promise<void> {
    this.#enqueue(async () => {
      if (this.#run) await this.#post(this.#streamUrl(this.#run), { complete: true, exitcode: 0 });
    });
    await this.#chain;
  }

  #enqueue(op: () => Promise<void>): void {
    this.#chain = this.#chain.then(async () => {
      if (this.#failed) return;
      try {
        await op();
      } catch (error) {
        this.#failed = true;
        this.#pending = [];
        this.#warn.write(
          `warning: Weights & Biases logging failed (${errorText(error)}); continuing without it, metrics are still written to metrics.jsonl\n`,
        );
      }
    });
  }

  async #post(url: string, body: unknown): Promise<unknown> {
    const response = await this.#fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`api:${this.#opts.apiKey}`).toString('base64')}`,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.#opts.timeoutMs ?? 15_000),
    });
    const text = await response.text();
    if (!response.ok) throw new CookbookError(`HTTP ${response.status} from ${url}: ${text.slice(0, 200)}`);
    try {
      return text ? (JSON.parse(text) as unknown) : null;
    } catch {
      return null;
    }
  }

  async #upsert(config?: string): Promise<void> {
    const variables = {
      ...(this.#run ? { id: this.#run.id } : {}),
      name: this.runId,
      project: this.#opts.project,
      entity: this.#run?.entity ?? this.#opts.entity ?? null,
      displayName: this.#opts.name ?? null,
      ...(config === undefined ? {} : { config }),
    };
    const result = (await this.#post(`${this.#baseUrl}/graphql`, { query: UPSERT_BUCKET, variables })) as {
      data?: {
        upsertBucket?: {
          bucket?: { id?: string; name?: string; project?: { name?: string; entity?: { name?: string } } };
        };
      };
      errors?: Array<{ message?: string }>;
    } | null;
    if (result?.errors?.length)
      throw new CookbookError(`GraphQL error: ${result.errors.map((e) => e.message).join('; ')}`);
    const bucket = result?.data?.upsertBucket?.bucket;
    const entity = bucket?.project?.entity?.name;
    if (!bucket?.id || !entity) throw new CookbookError('unexpected upsertBucket response (no run id or entity)');
    this.#run = {
      id: bucket.id,
      name: bucket.name ?? this.runId,
      project: bucket.project?.name ?? this.#opts.project,
      entity,
    };
  }

  #streamUrl(run: RunRef): string {
    const seg = encodeURIComponent;
    return `${this.#baseUrl}/files/${seg(run.entity)}/${seg(run.project)}/${seg(run.name)}/file_stream`;
  }

  async #flush(): Promise<void> {
    this.#flushQueued = false;
    if (!this.#run) await this.#upsert();
    const run = this.#run;
    const rows = this.#pending;
    this.#pending = [];
    if (!run || rows.length === 0) return;
    await this.#post(this.#streamUrl(run), {
      files: { 'wandb-history.jsonl': { offset: this.#offset, content: rows } },
    });
    this.#offset += rows.length;
  }
}
