/**
 * SandboxFusion over HTTP (upstream `sandbox/sandboxfusion.py`), for users who run that server. The request is
 * upstream's: `POST SANDBOX_URL` (default `http://localhost:8080/run_code`) with `{code, language, run_timeout, files}`,
 * `run_timeout` whole seconds, files base64; at most `SANDBOX_MAX_CONCURRENCY` (default 4) requests at once, the rest
 * queued. The success rule is upstream's: only HTTP 200 with `status: "Success"`; a non-200 answer, `SandboxError` or
 * a transport error is a failure with the reason.
 *
 * {@link SandboxFusionSandbox} maps the sandbox interface onto it: files stay in this process and go with every
 * request; a command is sent as `language: "bash"` code. The isolation is the server's.
 */
import { FileStore } from './internal/file-store.js';
import { StoredFilesSandbox } from './internal/stored-files-sandbox.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  failedResult,
  type RunCommandOptions,
  SandboxError,
  type SandboxResult,
} from './sandbox.js';

/** Upstream's default endpoint. */
export const DEFAULT_SANDBOX_URL = 'http://localhost:8080/run_code';
/** Upstream's default concurrency. */
export const DEFAULT_SANDBOX_FUSION_CONCURRENCY = 4;

/** Options of {@link SandboxFusionClient}. */
export interface SandboxFusionClientOptions {
  /** Default: `SANDBOX_URL`, else {@link DEFAULT_SANDBOX_URL}. */
  url?: string;
  /** Default: `SANDBOX_MAX_CONCURRENCY`, else 4. */
  maxConcurrency?: number;
  /** Transport timeout per request, ms (upstream: 6000 s). Default 6 000 000. */
  requestTimeoutMs?: number;
}

/** The server's answer (the fields read). */
export interface SandboxFusionResponse {
  status?: string;
  message?: string;
  run_result?: {
    status?: string;
    return_code?: number | null;
    stdout?: string;
    stderr?: string;
    execution_time?: number;
  };
  compile_result?: { status?: string; return_code?: number | null; stdout?: string; stderr?: string } | null;
  error?: string;
  [key: string]: unknown;
}

/** An HTTP client for SandboxFusion's `run_code`. */
export class SandboxFusionClient {
  readonly url: string;
  readonly maxConcurrency: number;
  private readonly requestTimeoutMs: number;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: SandboxFusionClientOptions = {}) {
    this.url = options.url ?? process.env.SANDBOX_URL ?? DEFAULT_SANDBOX_URL;
    const envConc = process.env.SANDBOX_MAX_CONCURRENCY;
    const conc =
      options.maxConcurrency ?? (envConc === undefined ? DEFAULT_SANDBOX_FUSION_CONCURRENCY : Number(envConc));
    if (!Number.isInteger(conc) || conc < 1 || conc > 1024) {
      throw new SandboxError(
        `SandboxFusion concurrency (SANDBOX_MAX_CONCURRENCY) must be an integer in 1..1024, got ${conc}`,
      );
    }
    try {
      new URL(this.url);
    } catch {
      throw new SandboxError(`SANDBOX_URL is not a URL: ${JSON.stringify(this.url)}`);
    }
    this.maxConcurrency = conc;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 6_000_000;
  }

  /**
   * Runs `code` with `files` beside it; `[success, response]` where success is upstream's rule (`status ===
   * "Success"`). Never throws: a transport or HTTP failure is `[false, { error }]`.
   */
  async run(
    code: string,
    files: Record<string, string | Uint8Array>,
    timeoutSeconds: number,
    language = 'python',
    signal?: AbortSignal,
  ): Promise<[boolean, SandboxFusionResponse]> {
    const encoded: Record<string, string> = {};
    for (const [k, v] of Object.entries(files)) encoded[k] = Buffer.from(v).toString('base64');
    const payload = { code, language, run_timeout: Math.trunc(timeoutSeconds), files: encoded };
    await this.acquire();
    try {
      const signals = [AbortSignal.timeout(this.requestTimeoutMs)];
      if (signal !== undefined) signals.push(signal);
      const resp = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.any(signals),
      });
      if (resp.status !== 200) return [false, { error: `HTTP ${resp.status}: ${await resp.text()}` }];
      const data = (await resp.json()) as SandboxFusionResponse;
      if (data.status === 'SandboxError') return [false, { ...data, error: data.message ?? 'SandboxError' }];
      return [data.status === 'Success', data];
    } catch (e) {
      return [false, { error: e instanceof Error ? e.message : String(e) }];
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.maxConcurrency) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.inFlight++;
        resolve();
      }),
    );
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }
}

let nextId = 0;

/** The sandbox interface over a {@link SandboxFusionClient}. */
export class SandboxFusionSandbox extends StoredFilesSandbox {
  readonly backend = 'sandbox_fusion';
  readonly sandboxId = `sandbox_fusion-${process.pid}-${nextId++}`;

  constructor(readonly client: SandboxFusionClient) {
    super(new FileStore(64 * 1024 * 1024));
  }

  async runCommand(command: string, options: RunCommandOptions = {}): Promise<SandboxResult> {
    if (this.closed) return failedResult(`sandbox ${this.sandboxId} was cleaned up`);
    const started = performance.now();
    const files: Record<string, Uint8Array> = {};
    for (const f of this.files.list()) files[f.path] = f.content;
    let code = command;
    if (options.cwd !== undefined) code = `cd ${shellQuote(options.cwd)} && ${code}`;
    if (options.stdin !== undefined) {
      files['.cookbook-stdin'] = new TextEncoder().encode(options.stdin);
      code = `(${code}) < .cookbook-stdin`;
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const [ok, data] = await this.client.run(
      code,
      files,
      Math.max(1, Math.ceil(timeoutMs / 1000)),
      'bash',
      options.signal,
    );
    const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const metrics = {
      wallMs: performance.now() - started,
      timedOut: data.run_result?.status === 'TimeLimitExceeded',
      outputLimitHit: false,
      cancelled: options.signal?.aborted ?? false,
    };
    const run = data.run_result;
    if (run === undefined || run === null)
      return {
        ...failedResult(`SandboxFusion: ${data.error ?? data.message ?? data.status ?? 'no run_result'}`),
        metrics,
      };
    const stdout = run.stdout ?? '';
    const stderr = run.stderr ?? '';
    metrics.outputLimitHit = Buffer.byteLength(stdout) + Buffer.byteLength(stderr) > cap;
    const exitCode = ok ? 0 : typeof run.return_code === 'number' && run.return_code !== 0 ? run.return_code : -1;
    return {
      stdout: stdout.slice(0, cap),
      stderr: exitCode === -1 && stderr === '' ? `SandboxFusion: ${run.status ?? data.status}` : stderr.slice(0, cap),
      exitCode,
      metrics,
    };
  }
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
