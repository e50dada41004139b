/**
 * RestClient (upstream SDK `lib/public_interfaces/rest_client.py`): training runs, checkpoints
 * (list, delete, publish, unpublish, TTL, archive URL and download), samplers and sessions.
 */
import { open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { DataError } from '@cookbook/core';
import {
  AuditLogResponseSchema,
  BillingUsageResponseSchema,
  CheckpointArchiveUrlResponseSchema,
  CheckpointsListResponseSchema,
  SamplerInfoSchema,
  SessionInfoSchema,
  SessionsListResponseSchema,
  splitCheckpointPath,
  TraceExportResponseSchema,
  TrainingRunSchema,
  TrainingRunsResponseSchema,
  WeightsInfoResponseSchema,
  type WireCheckpoint,
  type WireTrainingRun,
} from '@cookbook/tinker-wire';
import type { z } from 'zod';
import { APIError } from './errors.js';
import { type HttpClient, sleep } from './http.js';

/** A `tinker://<run>/<weights|sampler_weights>/<name>` path, split. */
export interface ParsedTinkerPath {
  trainingRunId: string;
  checkpointType: 'training' | 'sampler';
  /** `weights/<name>` or `sampler_weights/<name>`, as REST routes expect. */
  checkpointId: string;
  name: string;
}

/** Split a checkpoint path; throws a DataError naming the path when it is not one. */
export function parseTinkerPath(path: string): ParsedTinkerPath {
  const parts = splitCheckpointPath(path);
  if (!parts) {
    throw new DataError(
      `"${path}" is not a checkpoint path; expected tinker://<run_id>/weights/<name> or tinker://<run_id>/sampler_weights/<name>`,
    );
  }
  const { runId, kind, name } = parts;
  return {
    trainingRunId: runId,
    checkpointType: kind === 'weights' ? 'training' : 'sampler',
    checkpointId: `${kind}/${name}`,
    name,
  };
}

export type Checkpoint = WireCheckpoint;
export type TrainingRun = WireTrainingRun;

/** A page of results. */
export interface Cursor {
  offset: number;
  limit: number;
  total_count: number;
}

const ARCHIVE_TRIES = 6;

/** Synchronous REST routes of a Tinker-compatible server. */
export class RestClient {
  private readonly http: HttpClient;

  constructor(http: HttpClient) {
    this.http = http;
  }

  private async get<T>(
    path: string,
    schema: z.ZodType<T>,
    query?: Record<string, string | number | undefined>,
  ): Promise<T> {
    return (await this.http.request({ method: 'GET', path, schema, ...(query ? { query } : {}) })).data;
  }

  private checkpointRoute(path: string): string {
    const p = parseTinkerPath(path);
    return `/api/v1/training_runs/${encodeURIComponent(p.trainingRunId)}/checkpoints/${p.checkpointId
      .split('/')
      .map(encodeURIComponent)
      .join('/')}`;
  }

  /** Training runs, newest first; `projectId` keeps only the runs of one project (SDK 0.25.0). */
  async listTrainingRuns(
    options: { limit?: number; offset?: number; accessScope?: 'owned' | 'accessible'; projectId?: string } = {},
  ): Promise<{ trainingRuns: TrainingRun[]; cursor: Cursor }> {
    const r = await this.get('/api/v1/training_runs', TrainingRunsResponseSchema, {
      limit: options.limit ?? 20,
      offset: options.offset ?? 0,
      access_scope: options.accessScope ?? 'owned',
      project_id: options.projectId,
    });
    return { trainingRuns: r.training_runs, cursor: r.cursor };
  }

  async getTrainingRun(
    trainingRunId: string,
    options: { accessScope?: 'owned' | 'accessible' } = {},
  ): Promise<TrainingRun> {
    return this.get(`/api/v1/training_runs/${encodeURIComponent(trainingRunId)}`, TrainingRunSchema, {
      access_scope: options.accessScope ?? 'owned',
    });
  }

  /** The checkpoints of one run. */
  async listCheckpoints(trainingRunId: string): Promise<Checkpoint[]> {
    return (
      await this.get(
        `/api/v1/training_runs/${encodeURIComponent(trainingRunId)}/checkpoints`,
        CheckpointsListResponseSchema,
      )
    ).checkpoints;
  }

  /** Every checkpoint the user owns. */
  async listUserCheckpoints(
    options: { limit?: number; offset?: number } = {},
  ): Promise<{ checkpoints: Checkpoint[]; cursor?: Cursor }> {
    const r = await this.get('/api/v1/checkpoints', CheckpointsListResponseSchema, {
      limit: options.limit ?? 100,
      offset: options.offset ?? 0,
    });
    return r.cursor === undefined ? { checkpoints: r.checkpoints } : { checkpoints: r.checkpoints, cursor: r.cursor };
  }

  async deleteCheckpoint(tinkerPath: string): Promise<void> {
    await this.http.request({ method: 'DELETE', path: this.checkpointRoute(tinkerPath) });
  }

  async publishCheckpoint(tinkerPath: string): Promise<void> {
    await this.http.request({ method: 'POST', path: `${this.checkpointRoute(tinkerPath)}/publish` });
  }

  async unpublishCheckpoint(tinkerPath: string): Promise<void> {
    await this.http.request({ method: 'DELETE', path: `${this.checkpointRoute(tinkerPath)}/publish` });
  }

  /** Expire the checkpoint `ttlSeconds` from now; null keeps it forever. */
  async setCheckpointTtl(tinkerPath: string, ttlSeconds: number | null): Promise<void> {
    await this.http.request({
      method: 'PUT',
      path: `${this.checkpointRoute(tinkerPath)}/ttl`,
      body: { ttl_seconds: ttlSeconds },
    });
  }

  /**
   * A download URL for the checkpoint's archive (a tar of the PEFT adapter). Accepts a 302 with `Location`
   * and `Expires`, or 200 `{url, expires}`; a 503 means the archive is still being built and is retried.
   */
  async getCheckpointArchiveUrl(tinkerPath: string): Promise<{ url: string; expires?: Date }> {
    const path = `${this.checkpointRoute(tinkerPath)}/archive`;
    for (let attempt = 1; ; attempt++) {
      const req = {
        method: 'GET' as const,
        path,
        redirect: 'manual' as const,
        headers: { Accept: 'application/json' },
      };
      const res = await this.http.send(req);
      if (res.status === 503 && attempt < ARCHIVE_TRIES) {
        await sleep(30_000 * this.http.backoffScale);
        continue;
      }
      if (res.status >= 300 && res.status < 400) {
        const location = res.headers.get('location');
        if (!location)
          throw new APIError(`GET ${path} → ${res.status} without a Location header`, { status: res.status });
        const expires = res.headers.get('expires');
        const url = new URL(location, `${this.http.baseURL}/`).toString();
        return expires ? { url, expires: new Date(expires) } : { url };
      }
      if (res.status < 200 || res.status >= 300) throw this.http.errorFor(req, res);
      const body = this.http.parse({ ...req, schema: CheckpointArchiveUrlResponseSchema }, res);
      const url = new URL(body.url, `${this.http.baseURL}/`).toString();
      return body.expires ? { url, expires: new Date(body.expires) } : { url };
    }
  }

  /**
   * Download the checkpoint archive to `destFile`. Bytes go to `<destFile>.part` as they arrive (`onProgress` is
   * told after each chunk); a `.part` left by an interrupted download is continued with a Range request when the
   * server supports one (else started over), and the file is renamed into place only once its size equals the size
   * the server announced. Returns the size.
   * @throws APIError naming the checkpoint path and the HTTP status, or the byte counts of an incomplete download
   */
  async downloadCheckpointArchive(
    tinkerPath: string,
    destFile: string,
    options: { onProgress?: (doneBytes: number, totalBytes: number | undefined) => void; resume?: boolean } = {},
  ): Promise<number> {
    const { url } = await this.getCheckpointArchiveUrl(tinkerPath);
    const sameServer = url.startsWith(this.http.baseURL);
    const part = `${destFile}.part`;
    const metaFile = `${part}.json`;
    let have = 0;
    let knownTotal: number | undefined;
    if (options.resume !== false) {
      try {
        const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { tinker_path?: unknown; total?: unknown };
        if (meta.tinker_path === tinkerPath && typeof meta.total === 'number') {
          have = (await stat(part)).size;
          knownTotal = meta.total;
        }
      } catch {
        have = 0;
      }
    }
    const headers: Record<string, string> = sameServer ? await this.http.authHeaders() : {};
    if (have > 0) headers.Range = `bytes=${have}-`;
    const res = await fetch(url, { headers });
    let total: number | undefined;
    let append = false;
    const contentRange = res.headers.get('content-range');
    if (res.status === 206 && have > 0) {
      total = Number(/\/(\d+)$/.exec(contentRange ?? '')?.[1] ?? Number.NaN);
      // A different total means the archive changed since the first attempt: start over.
      append = total === knownTotal;
      if (!append) {
        await res.body?.cancel();
        await rm(metaFile, { force: true });
        return this.downloadCheckpointArchive(tinkerPath, destFile, { ...options, resume: false });
      }
    } else if (res.status === 416 && have > 0 && knownTotal === have) {
      await res.body?.cancel();
      await rename(part, destFile);
      await rm(metaFile, { force: true });
      options.onProgress?.(have, have);
      return have;
    } else if (!res.ok) {
      throw new APIError(`downloading the archive of ${tinkerPath} failed with HTTP ${res.status}`, {
        status: res.status,
      });
    } else {
      const len = res.headers.get('content-length');
      total = len === null ? undefined : Number(len);
    }
    if (!append) have = 0;
    if (total !== undefined && !Number.isSafeInteger(total)) total = undefined;
    if (total !== undefined) await writeFile(metaFile, JSON.stringify({ tinker_path: tinkerPath, total }));
    const fh = await open(part, append ? 'a' : 'w');
    let done = have;
    try {
      options.onProgress?.(done, total);
      if (res.body) {
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          let off = 0;
          while (off < chunk.length) off += (await fh.write(chunk, off, chunk.length - off)).bytesWritten;
          done += chunk.length;
          options.onProgress?.(done, total);
        }
      }
    } finally {
      await fh.close();
    }
    if (total !== undefined && done !== total) {
      throw new APIError(
        `downloading the archive of ${tinkerPath} stopped after ${done} of ${total} bytes; run the download again to resume it`,
      );
    }
    await rename(part, destFile);
    await rm(metaFile, { force: true });
    return done;
  }

  /** The LoRA configuration and base model of a checkpoint (works for public checkpoints too). */
  async getWeightsInfo(tinkerPath: string): Promise<z.infer<typeof WeightsInfoResponseSchema>> {
    return (
      await this.http.request({
        method: 'POST',
        path: '/api/v1/weights_info',
        body: { tinker_path: tinkerPath },
        schema: WeightsInfoResponseSchema,
      })
    ).data;
  }

  async getSampler(samplerId: string): Promise<z.infer<typeof SamplerInfoSchema>> {
    return this.get(`/api/v1/samplers/${encodeURIComponent(samplerId)}`, SamplerInfoSchema);
  }

  async listSessions(
    options: { limit?: number; offset?: number; accessScope?: 'owned' | 'accessible' } = {},
  ): Promise<string[]> {
    return (
      await this.get('/api/v1/sessions', SessionsListResponseSchema, {
        limit: options.limit ?? 20,
        offset: options.offset ?? 0,
        access_scope: options.accessScope ?? 'owned',
      })
    ).sessions;
  }

  async getSession(
    sessionId: string,
    options: { accessScope?: 'owned' | 'accessible' } = {},
  ): Promise<{ trainingRunIds: string[]; samplerIds: string[] }> {
    const r = await this.get(`/api/v1/sessions/${encodeURIComponent(sessionId)}`, SessionInfoSchema, {
      access_scope: options.accessScope ?? 'owned',
    });
    return { trainingRunIds: r.training_run_ids, samplerIds: r.sampler_ids };
  }

  /** Move a session (with its runs and samplers) into a project: `PUT /sessions/{id}/project` (SDK 0.25.0). */
  async assignSessionProject(sessionId: string, projectId: string): Promise<void> {
    await this.http.request({
      method: 'PUT',
      path: `/api/v1/sessions/${encodeURIComponent(sessionId)}/project`,
      body: { project_id: projectId },
    });
  }

  /**
   * A download URL of the session's timeline as a trace: polls `GET /sessions/{id}/trace_export` every 5 s
   * (SDK 0.25.0) until it is `ready`; `failed` throws with the server's error.
   */
  async exportSessionTrace(sessionId: string, options: { pollMs?: number } = {}): Promise<string> {
    const path = `/api/v1/sessions/${encodeURIComponent(sessionId)}/trace_export`;
    for (;;) {
      const r = await this.get(path, TraceExportResponseSchema);
      if (r.status === 'ready') {
        if (r.url === undefined) throw new APIError(`GET ${path}: status ready without a url`);
        return r.url;
      }
      if (r.status === 'failed') throw new APIError(`trace export of session ${sessionId} failed: ${r.error ?? ''}`);
      await sleep((options.pollMs ?? 5_000) * this.http.backoffScale);
    }
  }

  /** The account's audit log: `GET /audit?event_type=all|checkpoints&day=YYYY-MM-DD` (SDK 0.25.0). */
  async getAuditLog(
    options: { eventType?: 'all' | 'checkpoints'; day?: string } = {},
  ): Promise<z.infer<typeof AuditLogResponseSchema>> {
    return this.get('/api/v1/audit', AuditLogResponseSchema, {
      event_type: options.eventType ?? 'all',
      day: options.day,
    });
  }

  /**
   * Hourly billing usage in [startingOn, endingBefore) (RFC 3339 times on UTC hour boundaries, at most 14 days):
   * `GET /billing/usage/events` (SDK 0.25.0).
   */
  async getBillingUsage(startingOn: string, endingBefore: string): Promise<z.infer<typeof BillingUsageResponseSchema>> {
    return this.get('/api/v1/billing/usage/events', BillingUsageResponseSchema, {
      starting_on: startingOn,
      ending_before: endingBefore,
    });
  }
}
