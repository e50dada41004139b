/**
 * `cookbook serve`: run the embedded Tinker-compatible service in the foreground, so other processes (or the
 * official Python SDK, with TINKER_BASE_URL) can train and sample through it. Every bound the service puts on what
 * clients make it hold (one request, a model's queue, the models' memory), the folders a `base_model` may name, the
 * session timeout and the root's size cap are options here. The same port also speaks the OpenAI API under `/v1`
 * (`@cookbook/openai-server`: models, completions, chat completions over base models and sampler checkpoints), with
 * the same key and body limits; `openai=false` leaves it out. Ctrl-C finishes queued work and stops; SIGTERM (or a
 * second Ctrl-C) stops at once, failing unfinished requests with "the service is stopping", within
 * {@link STOP_DEADLINE_MS}. The engines are text-only: image chunks are answered with a 400 naming the model (images
 * need a vision model on the hosted service).
 */

import { ConfigError } from '@cookbook/core';
import {
  DEFAULT_LIMITS,
  defaultRoot,
  type LocalTinkerOptions,
  type ServiceLimits,
  startLocalTinker,
} from '@cookbook/local-tinker';
import { createOpenAIRoutes } from '@cookbook/openai-server';
import { ServiceClient } from '@cookbook/tinker-client';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';

const MB = 1024 * 1024;

/** How long a stop by SIGTERM may take before the process exits anyway, ms. */
export const STOP_DEADLINE_MS = 5000;
const positiveInt = () => z.number().int().positive();

export const serveSchema = z.object({
  host: z.string().default('127.0.0.1').describe('Address to bind; anything but loopback requires api_key'),
  port: z.number().int().min(0).max(65535).default(8000).describe('TCP port (0 = any free port)'),
  root: z
    .string()
    .default('')
    .describe(
      'Folder for runs and checkpoints (default: COOKBOOK_LOCAL_TINKER_ROOT or ~/.cache/cookbook/local-tinker)',
    ),
  apiKey: z.string().default('').describe('Require this key in X-API-Key (empty = no key; loopback only)'),
  longPollMs: positiveInt().default(20_000).describe('How long retrieve_future holds a pending request, ms'),
  sessionTimeoutS: z
    .number()
    .min(0)
    .default(300)
    .describe('Unload the models and samplers of a session with no heartbeat for this long, s (0 = never)'),
  engineThreads: positiveInt().max(64).default(1).describe('Worker threads running the engine'),
  maxRootGb: z
    .number()
    .min(0)
    .default(0)
    .describe('Keep the root under this size, removing least recently used runs (never a loaded one); 0 = no cap'),
  maxRunAgeDays: z.number().min(0).default(0).describe('Remove runs unused for this many days; 0 = keep'),
  maxBodyMb: z
    .number()
    .positive()
    .default(DEFAULT_LIMITS.maxBodyBytes / MB)
    .describe('Largest request body, after decompression, MB'),
  maxJsonDepth: positiveInt().default(DEFAULT_LIMITS.maxJsonDepth).describe('Deepest JSON nesting of a body'),
  maxJsonNodes: positiveInt()
    .default(DEFAULT_LIMITS.maxJsonNodes)
    .describe('Most objects, arrays and strings in a JSON body (counted before it is parsed)'),
  maxDatums: positiveInt().default(DEFAULT_LIMITS.maxDatums).describe('Most datums in one forward_backward / forward'),
  maxChunks: positiveInt()
    .default(DEFAULT_LIMITS.maxChunks)
    .describe('Most model-input chunks in one request (all its datums)'),
  maxInputTokens: positiveInt()
    .default(DEFAULT_LIMITS.maxInputTokens)
    .describe('Most model-input tokens in one request (all its datums and chunks)'),
  maxMessages: positiveInt()
    .default(DEFAULT_LIMITS.maxMessages)
    .describe('Most messages in one /v1/chat/completions request'),
  maxNumSamples: positiveInt().default(DEFAULT_LIMITS.maxNumSamples).describe('Largest num_samples of a sample'),
  defaultMaxTokens: positiveInt()
    .default(DEFAULT_LIMITS.defaultMaxTokens)
    .describe('max_tokens of a sample request that gives none'),
  maxTokens: positiveInt().default(DEFAULT_LIMITS.maxTokens).describe('Largest max_tokens of a sample'),
  maxTopkPromptLogprobs: z
    .number()
    .int()
    .min(0)
    .default(DEFAULT_LIMITS.maxTopkPromptLogprobs)
    .describe('Largest topk_prompt_logprobs'),
  maxLoraRank: positiveInt().default(DEFAULT_LIMITS.maxLoraRank).describe('Largest LoRA rank'),
  maxLossInputElements: positiveInt()
    .default(DEFAULT_LIMITS.maxLossInputElements)
    .describe('Most loss-input elements (sparse ones densified) in one forward_backward'),
  maxSampleMb: z
    .number()
    .positive()
    .default(DEFAULT_LIMITS.maxSampleBytes / MB)
    .describe('Largest working memory of one sample call (KV cache and logits of all samples), MB'),
  maxLearningRate: z.number().positive().default(DEFAULT_LIMITS.maxLearningRate).describe('Largest Adam learning_rate'),
  maxConcurrentRequests: positiveInt()
    .default(DEFAULT_LIMITS.maxConcurrentRequests)
    .describe('Most sample requests of one client (session) queued or running at once (more: 429)'),
  maxStopSequences: positiveInt()
    .default(DEFAULT_LIMITS.maxStopSequences)
    .describe('Most stop sequences (strings or token ids) of one sample request'),
  maxStopChars: positiveInt()
    .default(DEFAULT_LIMITS.maxStopChars)
    .describe("Largest total length of one sample request's stop strings, characters"),
  maxSeqAhead: positiveInt()
    .default(DEFAULT_LIMITS.maxSeqAhead)
    .describe('How far past the next seq_id to run a request may be (it waits, holding its data, until then)'),
  maxQueuedMbPerModel: z
    .number()
    .positive()
    .default(DEFAULT_LIMITS.maxQueuedBytesPerModel / MB)
    .describe("Largest data of the requests waiting in one model's queue, MB (48 bytes per token / loss element)"),
  maxQueuedMb: z
    .number()
    .positive()
    .default(DEFAULT_LIMITS.maxQueuedBytes / MB)
    .describe("Largest data of the requests waiting in all models' queues together, MB"),
  maxModelMb: z
    .number()
    .min(0)
    .default(0)
    .describe(
      'Memory budget of the training models loaded at once (LoRA weights, gradients, Adam state, workspace), MB; a new model past it is refused after unloading idle ones; 0 = half the machine memory',
    ),
  idleModelUnloadS: z
    .number()
    .min(0)
    .default(DEFAULT_LIMITS.idleModelUnloadMs / 1000)
    .describe('Under the model memory budget, models with no request for this long may be unloaded for a new one, s'),
  modelRoots: z
    .string()
    .default('')
    .describe(
      'Folders (comma-separated) a base_model folder may lie in; "*" = any folder; empty = any on loopback, none when bound beyond it',
    ),
  clockCycleMs: z
    .number()
    .min(0)
    .default(0)
    .describe(
      'Run training in lock-step cycles of this many ms, like the hosted service (a forward_backward, forward or optim_step sent during a cycle runs at the next boundary; training results come out at the end of their cycle; sampling is not clocked); 0 = off',
    ),
  clockCycleLog: z
    .string()
    .default('')
    .describe('With clock_cycle_ms: append one JSON line per cycle (start, duration, operations) to this file'),
  jwtAuth: z
    .boolean()
    .default(false)
    .describe(
      'JWT mode (client/config pjwt_auth_enabled): clients exchange the API key at /api/v1/auth/token and send the JWT',
    ),
  jwtTtlS: positiveInt().default(3600).describe('Lifetime of a JWT minted by /api/v1/auth/token in JWT mode, s'),
  openai: z
    .boolean()
    .default(true)
    .describe(
      'Also serve the OpenAI API on this port: GET /v1/models, POST /v1/completions, POST /v1/chat/completions',
    ),
  rendererName: z
    .string()
    .nullable()
    .default(null)
    .describe("Renderer of every model on the OpenAI routes (null = each model's catalogued renderer)"),
  clientFlags: z
    .string()
    .default('')
    .describe(
      'More client/config flags as a JSON object, e.g. {"proto_compress_fwdbwd":true,"create_model_via_load_weights":true}',
    ),
});

export type ServeConfig = z.infer<typeof serveSchema>;

/** The service options a `cookbook serve` config stands for. */
export function serveOptions(config: ServeConfig, log: (message: string) => void): LocalTinkerOptions {
  const limits: ServiceLimits = {
    maxBodyBytes: Math.round(config.maxBodyMb * MB),
    maxJsonDepth: config.maxJsonDepth,
    maxJsonNodes: config.maxJsonNodes,
    maxDatums: config.maxDatums,
    maxChunks: config.maxChunks,
    maxInputTokens: config.maxInputTokens,
    maxMessages: config.maxMessages,
    maxNumSamples: config.maxNumSamples,
    defaultMaxTokens: config.defaultMaxTokens,
    maxTokens: config.maxTokens,
    maxTopkPromptLogprobs: config.maxTopkPromptLogprobs,
    maxLoraRank: config.maxLoraRank,
    maxLossInputElements: config.maxLossInputElements,
    maxSampleBytes: Math.round(config.maxSampleMb * MB),
    maxLearningRate: config.maxLearningRate,
    maxConcurrentRequests: config.maxConcurrentRequests,
    maxStopSequences: config.maxStopSequences,
    maxStopChars: config.maxStopChars,
    maxSeqAhead: config.maxSeqAhead,
    maxQueuedBytesPerModel: Math.round(config.maxQueuedMbPerModel * MB),
    maxQueuedBytes: Math.round(config.maxQueuedMb * MB),
    maxModelBytes: config.maxModelMb > 0 ? Math.round(config.maxModelMb * MB) : DEFAULT_LIMITS.maxModelBytes,
    idleModelUnloadMs: config.idleModelUnloadS * 1000,
  };
  const roots = config.modelRoots.trim();
  return {
    host: config.host,
    port: config.port,
    root: config.root || defaultRoot(),
    longPollMs: config.longPollMs,
    sessionTimeoutMs: config.sessionTimeoutS * 1000,
    engineThreads: config.engineThreads,
    maxRootBytes: config.maxRootGb > 0 ? config.maxRootGb * 1e9 : null,
    maxRunAgeDays: config.maxRunAgeDays > 0 ? config.maxRunAgeDays : null,
    limits,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(config.clockCycleMs > 0 ? { clockCycleMs: config.clockCycleMs } : {}),
    ...(config.clockCycleLog ? { clockCycleLogPath: config.clockCycleLog } : {}),
    ...(roots === ''
      ? {}
      : {
          modelRoots:
            roots === '*'
              ? ('any' as const)
              : roots
                  .split(',')
                  .map((r) => r.trim())
                  .filter((r) => r !== ''),
        }),
    protocol: {
      clientFlags: { ...parseClientFlags(config.clientFlags), ...(config.jwtAuth ? { pjwt_auth_enabled: true } : {}) },
      jwtTtlS: config.jwtTtlS,
    },
    log,
  };
}

/** `url` with an any-address host (0.0.0.0, ::) replaced by loopback, for this process's own client. */
export function loopbackURL(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

function parseClientFlags(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`client_flags is not JSON: ${err instanceof Error ? err.message : String(err)}`, {
      key: 'client_flags',
    });
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ConfigError('client_flags must be a JSON object of client/config flags', { key: 'client_flags' });
  }
  return v as Record<string, unknown>;
}

export const serve = defineRecipe({
  name: 'serve',
  description: 'Run the embedded Tinker-compatible service (point TINKER_BASE_URL at it)',
  schema: serveSchema,
  async run(config, io) {
    // The OpenAI routes sample through a Tinker client of this very service (the same code path as a hosted one).
    let selfURL = '';
    let client: ServiceClient | undefined;
    const mounts = config.openai
      ? [
          createOpenAIRoutes({
            ...(config.apiKey ? { apiKey: config.apiKey } : {}),
            ...(config.rendererName ? { rendererName: config.rendererName } : {}),
            log: io.err,
            maxMessages: config.maxMessages,
            backend: async () => {
              client = new ServiceClient({
                baseURL: selfURL,
                ...(config.apiKey ? { apiKey: config.apiKey } : {}),
                warn: io.err,
              });
              return client;
            },
          }),
        ]
      : [];
    const service = await startLocalTinker({ ...serveOptions(config, io.err), mounts });
    selfURL = loopbackURL(service.baseURL);
    io.out(`local Tinker service listening on ${service.baseURL} (data in ${service.root}); Ctrl-C stops it`);
    io.out(`use it with: TINKER_BASE_URL=${service.baseURL}${config.apiKey ? ' TINKER_API_KEY=<your key>' : ''}`);
    if (config.openai) {
      io.out(`OpenAI API: base_url ${service.baseURL}/v1${config.apiKey ? ' (api_key = your key)' : ''}`);
    }
    await new Promise<void>((resolve) => {
      let draining = false;
      const onSignal = (signal: NodeJS.Signals) => {
        if (signal === 'SIGINT' && !draining) {
          draining = true;
          io.out('stopping: finishing queued work… (Ctrl-C again, or SIGTERM, stops at once)');
          const closeClient = client?.close() ?? Promise.resolve();
          closeClient.then(() => service.close()).then(resolve, resolve);
          return;
        }
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        io.out(`stopping (${signal}): failing unfinished requests with "the service is stopping"`);
        // Bounded: whatever still runs after the deadline ends with the process.
        const deadline = setTimeout(() => {
          io.err(`cookbook serve: not stopped after ${STOP_DEADLINE_MS / 1000} s; exiting`);
          process.exit(0);
        }, STOP_DEADLINE_MS);
        deadline.unref();
        const stopped = () => {
          clearTimeout(deadline);
          resolve();
        };
        void client?.close();
        service.close({ abort: true, graceMs: 1000 }).then(stopped, stopped);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    });
  },
});
