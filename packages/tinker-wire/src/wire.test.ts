/**
 * The wire schemas on their own: per route, a body as the official SDK 0.25.0 builds it parses (and one that leaves
 * the defaulted fields out gets the SDK's defaults); a body that breaks a rule is refused with an issue whose path
 * names the field. The contract (`checkRequest`, the client-side rules) agrees on the same bodies and names the
 * field in its message.
 */
import { describe, expect, it } from 'vitest';
import { checkRequest, ROUTE_CONTRACTS } from './contract.js';
import {
  CreateModelRequestSchema,
  CreateSamplingSessionRequestSchema,
  CreateSessionRequestSchema,
  ForwardBackwardRequestSchema,
  FutureRetrieveRequestSchema,
  LoadWeightsRequestSchema,
  OptimStepRequestSchema,
  SampleRequestSchema,
  SampleResponseSchema,
  SaveWeightsForSamplerRequestSchema,
  SaveWeightsRequestSchema,
  SessionHeartbeatRequestSchema,
  TryAgainResponseSchema,
} from './wire.js';

type Schema = { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: Issue[] } } };
type Issue = { path: PropertyKey[]; message: string };
type Body = Record<string, unknown>;

const prompt = { chunks: [{ type: 'encoded_text', tokens: [1, 2, 3] }] };
const adam = { learning_rate: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0, grad_clip_norm: 0 };

/** One route: its schema, a body as the SDK sends it, and breaks → the field the refusal must name. */
interface Case {
  route: string;
  schema: Schema;
  sdk: Body;
  minimal?: { body: Body; defaults: Body };
  breaks: { why: string; body: Body; field: string }[];
}

const without = (b: Body, key: string): Body => Object.fromEntries(Object.entries(b).filter(([k]) => k !== key));

const CASES: Case[] = [
  {
    route: 'POST /api/v1/create_session',
    schema: CreateSessionRequestSchema,
    sdk: { tags: [], user_metadata: {}, sdk_version: '0.25.0', type: 'create_session' },
    minimal: { body: {}, defaults: { tags: [], sdk_version: 'unknown', type: 'create_session' } },
    breaks: [
      { why: 'tags not a list', body: { tags: 'a' }, field: 'tags' },
      { why: 'another type', body: { type: 'create_model' }, field: 'type' },
    ],
  },
  {
    route: 'POST /api/v1/session_heartbeat',
    schema: SessionHeartbeatRequestSchema,
    sdk: { session_id: 's1', type: 'session_heartbeat' },
    breaks: [{ why: 'no session_id', body: { type: 'session_heartbeat' }, field: 'session_id' }],
  },
  {
    route: 'POST /api/v1/create_sampling_session',
    schema: CreateSamplingSessionRequestSchema,
    sdk: { session_id: 's1', sampling_session_seq_id: 0, base_model: 'm', type: 'create_sampling_session' },
    breaks: [
      {
        why: 'negative seq id',
        body: { session_id: 's1', sampling_session_seq_id: -1 },
        field: 'sampling_session_seq_id',
      },
      {
        why: 'a model_path that is not tinker://',
        body: { session_id: 's1', sampling_session_seq_id: 0, model_path: '/tmp/x' },
        field: 'model_path',
      },
    ],
  },
  {
    route: 'POST /api/v1/create_model',
    schema: CreateModelRequestSchema,
    sdk: {
      session_id: 's1',
      model_seq_id: 0,
      base_model: 'Qwen/Qwen3-8B',
      user_metadata: {},
      lora_config: { rank: 32, train_unembed: true, train_mlp: true, train_attn: true },
      type: 'create_model',
    },
    breaks: [
      { why: 'empty base_model', body: { session_id: 's1', model_seq_id: 0, base_model: '' }, field: 'base_model' },
      {
        why: 'rank 0',
        body: { session_id: 's1', model_seq_id: 0, base_model: 'm', lora_config: { rank: 0 } },
        field: 'lora_config.rank',
      },
      {
        why: 'fractional seq id',
        body: { session_id: 's1', model_seq_id: 1.5, base_model: 'm' },
        field: 'model_seq_id',
      },
    ],
  },
  {
    route: 'POST /api/v1/forward_backward',
    schema: ForwardBackwardRequestSchema,
    sdk: {
      forward_backward_input: {
        data: [
          {
            model_input: prompt,
            loss_fn_inputs: { target_tokens: { data: [2, 3, 4], dtype: 'int64', shape: [3] } },
          },
        ],
        loss_fn: 'cross_entropy',
      },
      model_id: 'm1',
      seq_id: 1,
    },
    breaks: [
      {
        why: 'an unknown loss',
        body: { forward_backward_input: { data: [], loss_fn: 'mse' }, model_id: 'm1' },
        field: 'forward_backward_input.loss_fn',
      },
      {
        why: 'seq_id 0 (the SDK sends request_id + 1)',
        body: { forward_backward_input: { data: [], loss_fn: 'cross_entropy' }, model_id: 'm1', seq_id: 0 },
        field: 'seq_id',
      },
    ],
  },
  {
    route: 'POST /api/v1/optim_step',
    schema: OptimStepRequestSchema,
    sdk: { adam_params: adam, model_id: 'm1', seq_id: 2, type: 'optim_step' },
    breaks: [
      { why: 'no adam_params', body: { model_id: 'm1' }, field: 'adam_params' },
      {
        why: 'a negative learning rate',
        body: { adam_params: { ...adam, learning_rate: -1 }, model_id: 'm1' },
        field: 'adam_params.learning_rate',
      },
    ],
  },
  {
    route: 'POST /api/v1/save_weights',
    schema: SaveWeightsRequestSchema,
    sdk: { model_id: 'm1', path: 'step-10', seq_id: 3, overwrite: false, type: 'save_weights' },
    minimal: { body: { model_id: 'm1' }, defaults: { overwrite: false, type: 'save_weights' } },
    breaks: [
      { why: 'a name with a slash', body: { model_id: 'm1', path: '../x' }, field: 'path' },
      { why: 'a TTL of 0', body: { model_id: 'm1', ttl_seconds: 0 }, field: 'ttl_seconds' },
    ],
  },
  {
    route: 'POST /api/v1/save_weights_for_sampler',
    schema: SaveWeightsForSamplerRequestSchema,
    sdk: { model_id: 'm1', path: 'sampler-1', seq_id: 4, type: 'save_weights_for_sampler' },
    breaks: [{ why: 'a name starting with a dot', body: { model_id: 'm1', path: '.hidden' }, field: 'path' }],
  },
  {
    route: 'POST /api/v1/load_weights',
    schema: LoadWeightsRequestSchema,
    sdk: { path: 'tinker://run/weights/x', optimizer: true, model_id: 'm1', seq_id: 5, type: 'load_weights' },
    minimal: { body: { path: 'tinker://run/weights/x' }, defaults: { optimizer: false, type: 'load_weights' } },
    breaks: [{ why: 'a path that is not tinker://', body: { path: '/home/x' }, field: 'path' }],
  },
  {
    route: 'POST /api/v1/asample',
    schema: SampleRequestSchema,
    sdk: {
      num_samples: 4,
      prompt,
      sampling_params: { max_tokens: 16, seed: 7, stop: [13], temperature: 1, top_k: -1, top_p: 1 },
      prompt_logprobs: false,
      topk_prompt_logprobs: 0,
      sampling_session_id: 'ss1',
      seq_id: 0,
      type: 'sample',
    },
    minimal: {
      body: { prompt, sampling_params: {} },
      defaults: { num_samples: 1, topk_prompt_logprobs: 0, type: 'sample' },
    },
    breaks: [
      { why: 'num_samples 0', body: { num_samples: 0, prompt, sampling_params: {} }, field: 'num_samples' },
      { why: 'top_p 0', body: { prompt, sampling_params: { top_p: 0 } }, field: 'sampling_params.top_p' },
      {
        why: 'a negative temperature',
        body: { prompt, sampling_params: { temperature: -0.5 } },
        field: 'sampling_params.temperature',
      },
      { why: 'no prompt', body: { sampling_params: {} }, field: 'prompt' },
    ],
  },
  {
    route: 'POST /api/v1/retrieve_future',
    schema: FutureRetrieveRequestSchema,
    sdk: { request_id: 'r1', allow_metadata_only: false },
    minimal: { body: { request_id: 'r1' }, defaults: { allow_metadata_only: false } },
    breaks: [{ why: 'a numeric request_id', body: { request_id: 1 }, field: 'request_id' }],
  },
];

const issuesOf = (schema: Schema, body: unknown): Issue[] => {
  const r = schema.safeParse(body);
  return r.success ? [] : r.error!.issues;
};

describe('the wire request schemas, route by route', () => {
  for (const c of CASES) {
    describe(c.route, () => {
      it('accepts the body the SDK sends', () => {
        expect(issuesOf(c.schema, c.sdk)).toEqual([]);
      });
      if (c.minimal !== undefined) {
        const { body, defaults } = c.minimal;
        it("fills the SDK's defaults for the fields a client leaves out", () => {
          const r = c.schema.safeParse(body);
          expect(r.success).toBe(true);
          expect(r.data).toMatchObject(defaults);
        });
      }
      for (const b of c.breaks) {
        it(`refuses ${b.why}, naming ${b.field}`, () => {
          const issues = issuesOf(c.schema, b.body);
          expect(issues.length, JSON.stringify(b.body)).toBeGreaterThan(0);
          expect(issues.map((i) => i.path.join('.'))).toContain(b.field);
        });
      }
    });
  }
});

describe('the contract agrees on the same bodies', () => {
  const headers = {
    'x-api-key': 'tml-x',
    'x-stainless-retry-count': '0',
    'x-idempotency-key': 'k',
    'content-type': 'application/json',
    // Only retrieve_future's rules read these (a poll for an optim_step result, answered in JSON).
    'x-tinker-request-type': 'OptimStep',
    'x-tinker-request-iteration': '0',
  };
  const request = (route: string, body: unknown) => {
    const [method, path] = route.split(' ') as [string, string];
    return { method, path, query: {}, headers, body: new TextEncoder().encode(JSON.stringify(body)) };
  };
  const jsonRoutes = CASES.filter((c) => ROUTE_CONTRACTS[c.route]?.body !== undefined);

  it('covers the JSON routes above', () => {
    expect(jsonRoutes.map((c) => c.route)).toContain('POST /api/v1/create_model');
    expect(jsonRoutes.length).toBeGreaterThanOrEqual(8);
  });

  for (const c of jsonRoutes) {
    it(`${c.route}: the SDK's body conforms; a dropped required field and an unknown field are named`, () => {
      expect(checkRequest(request(c.route, c.sdk))).toEqual([]);
      const unknown = checkRequest(request(c.route, { ...c.sdk, surprise: 1 }));
      expect(unknown.join('\n')).toMatch(/surprise/);
      const required = Object.keys(c.sdk).find((k) => checkRequest(request(c.route, without(c.sdk, k))).length > 0);
      expect(required, 'some field of the body is required').toBeDefined();
      expect(checkRequest(request(c.route, without(c.sdk, required!))).join('\n')).toContain(required!);
    });
  }
});

describe('response schemas', () => {
  it('ignore fields they do not know (newer servers add some) and fill defaults', () => {
    const r = SampleResponseSchema.parse({
      sequences: [{ stop_reason: 'stop', tokens: [1, 2], logprobs: [-0.1, -0.2], extra: true }],
      new_field: 'x',
    });
    expect(r.prompt_cache_hit_tokens).toBe(0);
    expect(r.sequences[0]!.tokens).toEqual([1, 2]);
  });

  it('refuse a result that breaks the protocol, naming the field', () => {
    expect(
      issuesOf(SampleResponseSchema, { sequences: [{ stop_reason: 'eos', tokens: [] }] }).map((i) => i.path.join('.')),
    ).toEqual(['sequences.0.stop_reason']);
    expect(issuesOf(TryAgainResponseSchema, { type: 'done' }).map((i) => i.path.join('.'))).toEqual(['type']);
  });
});
