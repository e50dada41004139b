/**
 * The REST routes (tinker-api.md §2: training runs, checkpoints, sessions, samplers) and signed archive downloads: a
 * tar of a checkpoint's PEFT adapter plus a `checkpoint_complete` marker, behind an HMAC-signed, expiring URL.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { CheckpointTtlRequestSchema } from '@cookbook/tinker-wire';
import { HttpError, ok, parseBody, type ServiceReply, type ServiceRequest } from '../http-errors.js';
import { checkTtlSeconds } from '../limits.js';
import type { ServiceState } from '../service-state.js';
import type { CheckpointRecord, RunRecord } from '../storage.js';
import { tarDirectory } from '../tar-writer.js';

/** `limit` / `offset` query parameters: non-negative integers (limit at most 1000), or a 400 naming the bad one. */
function page(q: URLSearchParams, defaultLimit: number): { limit: number; offset: number } {
  const read = (key: string, dflt: number, max: number) => {
    const raw = q.get(key);
    if (raw === null || raw === '') return dflt;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < 0 || v > max) {
      throw new HttpError(400, `query parameter ${key}=${raw.slice(0, 40)}: expected an integer from 0 to ${max}`);
    }
    return v;
  };
  return { limit: read('limit', defaultLimit, 1000), offset: read('offset', 0, Number.MAX_SAFE_INTEGER) };
}

/** Decodes one percent-encoded path segment, or a 400 (malformed escapes are the client's mistake, not a 500). */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(400, `malformed percent-encoding in the path segment "${s.slice(0, 80)}"`);
  }
}

async function trainingRunJson(state: ServiceState, run: RunRecord) {
  const live = state.models.get(run.training_run_id)?.run ?? run;
  const ckpts = await state.storage.listCheckpoints(run.training_run_id);
  const lastOf = (type: 'training' | 'sampler') => ckpts.filter((c) => c.checkpoint_type === type).at(-1);
  const out: Record<string, unknown> = {
    training_run_id: run.training_run_id,
    base_model: run.base_model,
    model_owner: run.model_owner,
    is_lora: true,
    corrupted: false,
    lora_rank: run.lora_rank,
    last_request_time: live.last_request_time,
  };
  const lt = lastOf('training');
  const ls = lastOf('sampler');
  if (lt) out.last_checkpoint = lt;
  if (ls) out.last_sampler_checkpoint = ls;
  if (run.user_metadata) out.user_metadata = run.user_metadata;
  return out;
}

export async function listTrainingRuns(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const { limit, offset } = page(req.query, 20);
  // The local service has no projects (SDK 0.25.0 `project_id` filter): a project filter matches no run.
  const inProject = req.query.get('project_id') === null;
  const runs = (inProject ? await state.storage.listRuns() : []).sort((a, b) =>
    b.created_at.localeCompare(a.created_at),
  );
  const rows = await Promise.all(runs.slice(offset, offset + limit).map((r) => trainingRunJson(state, r)));
  return ok({ training_runs: rows, cursor: { offset, limit, total_count: runs.length } });
}

export async function listUserCheckpoints(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const { limit, offset } = page(req.query, 100);
  const all: CheckpointRecord[] = [];
  for (const run of await state.storage.listRuns()) {
    all.push(...(await state.storage.listCheckpoints(run.training_run_id)));
  }
  all.sort((a, b) => b.time.localeCompare(a.time));
  return ok({ checkpoints: all.slice(offset, offset + limit), cursor: { offset, limit, total_count: all.length } });
}

export async function listSessions(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const { limit, offset } = page(req.query, 20);
  const ids = new Set(state.sessions.keys());
  for (const run of await state.storage.listRuns()) ids.add(run.training_run_id.split(':')[0]!);
  return ok({ sessions: [...ids].slice(offset, offset + limit) });
}

function sign(state: ServiceState, text: string): string {
  return createHmac('sha256', state.secret).update(text).digest('hex');
}

/** The REST routes with path parameters; undefined when none matches. */
export async function restRoute(state: ServiceState, req: ServiceRequest): Promise<ServiceReply | undefined> {
  const parts = req.path.split('/').slice(3).map(decodeSegment); // after /api/v1/
  const { method } = req;
  if (parts[0] === 'samplers' && parts.length === 2 && method === 'GET') {
    const s = state.samplers.get(parts[1]!);
    if (!s) throw state.missing('sampler', parts[1]!);
    return ok({ sampler_id: s.id, base_model: s.baseModel, ...(s.modelPath ? { model_path: s.modelPath } : {}) });
  }
  if (parts[0] === 'sessions' && parts.length === 3 && (parts[2] === 'project' || parts[2] === 'trace_export')) {
    throw new HttpError(
      404,
      parts[2] === 'project'
        ? 'the local service has no projects: PUT /api/v1/sessions/{id}/project is a hosted-service route'
        : 'the local service records no session traces: GET /api/v1/sessions/{id}/trace_export is a hosted-service route',
    );
  }
  if ((parts[0] === 'audit' && parts.length === 1) || (parts[0] === 'billing' && parts[1] === 'usage')) {
    throw new HttpError(
      404,
      `the local service keeps no ${parts[0] === 'audit' ? 'audit log' : 'billing usage'}: ${req.method} ${req.path} is a hosted-service route`,
    );
  }
  if (parts[0] === 'sessions' && parts.length === 2 && method === 'GET') {
    const id = parts[1]!;
    const live = state.sessions.get(id);
    const runIds = new Set(live?.runIds ?? []);
    for (const run of await state.storage.listRuns()) {
      if (run.training_run_id.startsWith(`${id}:`)) runIds.add(run.training_run_id);
    }
    if (!live && runIds.size === 0) throw new HttpError(404, `unknown session "${id}"`);
    return ok({ training_run_ids: [...runIds], sampler_ids: [...(live?.samplerIds ?? [])] });
  }
  if ((parts[0] === 'training_runs' || parts[0] === 'models') && parts.length >= 2) {
    const runId = parts[1]!;
    const run = await state.storage.readRun(runId);
    if (!run) throw new HttpError(404, `unknown training run "${runId}"`);
    if (parts.length === 2 && method === 'GET' && parts[0] === 'training_runs') {
      return ok(await trainingRunJson(state, run));
    }
    if (parts[2] !== 'checkpoints') return undefined;
    if (parts.length === 3 && method === 'GET') return ok({ checkpoints: await state.storage.listCheckpoints(runId) });
    return checkpointAction(state, req, runId, parts.slice(3));
  }
  return undefined;
}

/** `…/checkpoints/<kind>/<name>[/<action>]`: delete, publish / unpublish, ttl, archive. */
async function checkpointAction(
  state: ServiceState,
  req: ServiceRequest,
  runId: string,
  rest: string[],
): Promise<ServiceReply | undefined> {
  const [kind, name, action] = rest;
  const { method } = req;
  if (kind !== 'weights' && kind !== 'sampler_weights') {
    throw new HttpError(400, `checkpoint id must be weights/<name> or sampler_weights/<name>, got "${rest.join('/')}"`);
  }
  if (name === undefined) throw new HttpError(400, 'checkpoint name missing');
  const record = await state.storage.readCheckpoint(runId, kind, name);
  if (!record) throw new HttpError(404, `checkpoint tinker://${runId}/${kind}/${name} does not exist`);
  if (action === undefined && method === 'DELETE') {
    await state.storage.deleteCheckpoint(runId, kind, name);
    return { status: 204 };
  }
  if (action === 'publish' && method === 'POST') {
    if (record.public) throw new HttpError(409, `${record.tinker_path} is already public`);
    await state.storage.updateCheckpoint(runId, kind, name, { public: true });
    return { status: 204 };
  }
  if (action === 'publish' && method === 'DELETE') {
    if (!record.public) throw new HttpError(409, `${record.tinker_path} is already private`);
    await state.storage.updateCheckpoint(runId, kind, name, { public: false });
    return { status: 204 };
  }
  if (action === 'ttl' && method === 'PUT') {
    const b = parseBody(CheckpointTtlRequestSchema, req.body, 'ttl');
    checkTtlSeconds('ttl_seconds', b.ttl_seconds);
    const patch: Partial<CheckpointRecord> = {
      expires_at: b.ttl_seconds === null ? undefined : new Date(Date.now() + b.ttl_seconds * 1000).toISOString(),
    };
    await state.storage.updateCheckpoint(runId, kind, name, patch);
    return { status: 204 };
  }
  if (action === 'archive' && method === 'GET') {
    const expires = Date.now() + 15 * 60_000;
    const target = `${encodeURIComponent(runId)}/${kind}/${encodeURIComponent(name)}`;
    const sig = sign(state, `${target}:${expires}`);
    return {
      status: 302,
      headers: {
        Location: `/api/v1/_download/${target}?expires=${expires}&sig=${sig}`,
        Expires: new Date(expires).toUTCString(),
      },
    };
  }
  return undefined;
}

/** Serves a signed archive URL: a tar of the checkpoint's PEFT adapter plus a `checkpoint_complete` marker. */
export async function download(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  // The signature covers the whole path after `_download/`: extra or missing segments make it a different URL.
  const target = req.path.slice('/api/v1/_download/'.length);
  const [runEnc, kind, nameEnc] = target.split('/');
  const expires = Number(req.query.get('expires'));
  const sig = req.query.get('sig') ?? '';
  const want = sign(state, `${target}:${expires}`);
  if (sig.length !== want.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(want))) {
    throw new HttpError(403, 'invalid download signature');
  }
  if (!(expires > Date.now())) throw new HttpError(403, 'this download URL has expired; ask for a new one');
  if (kind !== 'weights' && kind !== 'sampler_weights') throw new HttpError(404, 'no such checkpoint');
  const runId = decodeSegment(runEnc ?? '');
  const name = decodeSegment(nameEnc ?? '');
  const record = await state.storage.readCheckpoint(runId, kind, name);
  if (!record) throw new HttpError(404, `checkpoint tinker://${runId}/${kind}/${name} does not exist`);
  let bytes: Buffer;
  try {
    bytes = await tarDirectory(join(state.storage.checkpointDir(runId, kind, name), 'adapter'), [
      // The marker's time is the checkpoint's, so the archive's bytes are the same on every request: a download
      // resumed with a Range request continues the same file.
      { name: 'checkpoint_complete', data: new Uint8Array(0), mtime: Date.parse(record.time) || 0 },
    ]);
  } catch (err) {
    // The record exists but its files were removed from the service root (by hand or a crash mid-delete).
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new HttpError(404, `the files of checkpoint tinker://${runId}/${kind}/${name} are missing on the service`);
    }
    throw err;
  }
  const headers = { 'Content-Disposition': `attachment; filename="${name}.tar"`, 'Accept-Ranges': 'bytes' };
  const range = rangeStart(req.headers.range, bytes.length);
  if (range === 'unsatisfiable') {
    return {
      status: 416,
      bytes: new Uint8Array(0),
      headers: { ...headers, 'Content-Range': `bytes */${bytes.length}` },
    };
  }
  if (range !== undefined) {
    return {
      status: 206,
      bytes: bytes.subarray(range),
      contentType: 'application/x-tar',
      headers: { ...headers, 'Content-Range': `bytes ${range}-${bytes.length - 1}/${bytes.length}` },
    };
  }
  return { status: 200, bytes, contentType: 'application/x-tar', headers };
}

/**
 * The start of a `Range: bytes=<start>-` request (the form a resumed download sends); undefined for no or another
 * form of Range (answered with the whole archive, as RFC 9110 allows), 'unsatisfiable' past the end.
 */
function rangeStart(header: string | string[] | undefined, length: number): number | 'unsatisfiable' | undefined {
  const m = typeof header === 'string' ? /^bytes=(\d{1,15})-$/.exec(header.trim()) : null;
  if (!m) return undefined;
  const start = Number(m[1]);
  return start < length ? start : 'unsatisfiable';
}
