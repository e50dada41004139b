/**
 * An in-memory stand-in for the Tinker service: a two-armed bandit policy with one parameter θ,
 * P(token GOOD) = σ(θ), P(token BAD) = 1 − σ(θ). forward_backward implements the importance-sampling loss
 * exactly (gradient of −Σ exp(lp − q)·A with respect to θ); optim_step is plain gradient descent. Samplers are
 * snapshots of θ with a seeded generator, so runs are deterministic.
 */
import { type Datum, ModelInput, tensorFromFloat32, tensorToNumbers } from '@cookbook/core';
import type { AdamParams, CustomLossFn, ForwardBackwardOutput, LossFnType } from '@cookbook/tinker-client';
import type { RLSamplingClient, RLServiceClient, RLTrainingClient } from '../clients.js';
import { Mulberry32Rng } from '@cookbook/core';

export const GOOD = 1;
export const BAD = 2;

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

function logprob(theta: number, token: number): number | undefined {
  if (token === GOOD) return Math.log(sigmoid(theta));
  if (token === BAD) return Math.log(1 - sigmoid(theta));
  return undefined;
}

/** d lp / d θ of a token. */
function dlogprob(theta: number, token: number): number {
  if (token === GOOD) return 1 - sigmoid(theta);
  if (token === BAD) return -sigmoid(theta);
  return 0;
}

export class FakeSampler implements RLSamplingClient {
  private readonly rng: Mulberry32Rng;
  sampleCalls = 0;

  constructor(
    readonly theta: number,
    seed: number,
    readonly delayMs = 0,
  ) {
    this.rng = new Mulberry32Rng(seed);
  }

  async sample(req: { prompt: ModelInput; numSamples: number; samplingParams: { maxTokens?: number } }) {
    this.sampleCalls++;
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const p = sigmoid(this.theta);
    const sequences = Array.from({ length: req.numSamples }, () => {
      const tok = this.rng.next() < p ? GOOD : BAD;
      return { tokens: [tok], logprobs: [logprob(this.theta, tok)!], stopReason: 'stop' as const };
    });
    return { sequences, promptCacheHitTokens: 0 };
  }

  async computeLogprobs(prompt: ModelInput): Promise<(number | null)[]> {
    const toks = prompt.toInts();
    return toks.map((t, i) => (i === 0 ? null : (logprob(this.theta, t) ?? 0)));
  }
}

/** Shared storage of a fake service: saved states and sampler weights. */
export class FakeService implements RLServiceClient {
  readonly states = new Map<string, { theta: number }>();
  readonly samplerWeights = new Map<string, number>();
  readonly trainers: FakeTrainer[] = [];
  samplerCount = 0;
  /** States saved so far (numbers their paths; deletes do not reuse a number). */
  stateSeq = 0;

  constructor(
    readonly options: {
      sampleDelayMs?: number;
      trainDelayMs?: number;
      initialTheta?: number;
      /**
       * Refuse, as the hosted service does, a policy-loss datum with any input but `target_tokens`, `logprobs` and
       * `advantages` (upstream's tutorials 202 and 301: "accepts only the first three").
       */
      hostedInputsOnly?: boolean;
    } = {},
  ) {}

  /** A sampler over θ, its generator seeded by θ itself, so equal weights sample equally (exact-resume tests). */
  newSampler(theta: number): FakeSampler {
    this.samplerCount++;
    const bits = new Uint32Array(new Float64Array([theta]).buffer);
    const seed = (bits[0]! ^ Math.imul(bits[1]!, 2654435761)) >>> 0;
    return new FakeSampler(theta, seed, this.options.sampleDelayMs ?? 0);
  }

  async createLoraTrainingClient(_args: { baseModel: string; rank?: number }): Promise<FakeTrainer> {
    const t = new FakeTrainer(this, this.options.initialTheta ?? 0);
    this.trainers.push(t);
    return t;
  }

  /** The REST calls checkpoint retention makes: deleting a state, listing a run's (none: paths are not tinker://). */
  async createRestClient() {
    return {
      deleteCheckpoint: async (path: string) => {
        this.states.delete(path);
      },
      listCheckpoints: async (_run: string) => [],
    };
  }

  async createTrainingClientFromState(path: string, _options?: { optimizer?: boolean }): Promise<FakeTrainer> {
    const s = this.states.get(path);
    if (s === undefined) throw new Error(`no state ${path}`);
    const t = new FakeTrainer(this, s.theta);
    this.trainers.push(t);
    return t;
  }

  async createSamplingClient(args: { baseModel?: string; modelPath?: string }): Promise<FakeSampler> {
    if (args.modelPath !== undefined) {
      const theta = this.samplerWeights.get(args.modelPath);
      if (theta === undefined) throw new Error(`no sampler weights ${args.modelPath}`);
      return this.newSampler(theta);
    }
    return this.newSampler(this.options.initialTheta ?? 0);
  }
}

export class FakeTrainer implements RLTrainingClient {
  grad = 0;
  readonly calls: string[] = [];
  readonly lossFns: LossFnType[] = [];
  /** The `weights` of every datum trained by forward_backward (undefined: none sent). */
  readonly weightsSeen: (number[] | undefined)[] = [];
  /** The `advantages` of every datum trained by forward_backward. */
  readonly advantagesSeen: number[][] = [];

  constructor(
    readonly service: FakeService,
    public theta: number,
  ) {}

  /** optim_steps called and not yet done. */
  private optimsInFlight = 0;
  /** forward_backwards called while an earlier optim_step was still in flight (sent ahead of its result). */
  forwardBackwardsSentAhead = 0;
  /** The last call in flight: like the service, a trainer runs its calls in the order they were made. */
  private chain: Promise<unknown> = Promise.resolve();

  private inOrder<T>(call: () => Promise<T>): Promise<T> {
    const result = this.chain.then(call);
    this.chain = result.catch(() => undefined);
    return result;
  }

  private async delay(): Promise<void> {
    const ms = this.service.options.trainDelayMs ?? 0;
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  }

  forwardBackward(data: Datum[], lossFn: LossFnType): Promise<ForwardBackwardOutput> {
    this.calls.push('forward_backward');
    this.lossFns.push(lossFn);
    if (this.optimsInFlight > 0) this.forwardBackwardsSentAhead++;
    return this.inOrder(() => this.runForwardBackward(data, lossFn));
  }

  private async runForwardBackward(data: Datum[], lossFn: LossFnType): Promise<ForwardBackwardOutput> {
    await this.delay();
    let loss = 0;
    const outputs = data.map((d) => {
      if (d.lossFnInputs.mask !== undefined) throw new Error('mask must be stripped before forward_backward');
      const extra = Object.keys(d.lossFnInputs).filter((k) => !['target_tokens', 'logprobs', 'advantages'].includes(k));
      if (this.service.options.hostedInputsOnly && extra.length > 0) {
        throw new Error(`the hosted ${lossFn} takes target_tokens, logprobs and advantages only, got ${extra.join(', ')}`);
      }
      const targets = tensorToNumbers(d.lossFnInputs.target_tokens!);
      const q = tensorToNumbers(d.lossFnInputs.logprobs!);
      const adv = tensorToNumbers(d.lossFnInputs.advantages!);
      this.advantagesSeen.push(adv);
      const w = d.lossFnInputs.weights === undefined ? undefined : tensorToNumbers(d.lossFnInputs.weights);
      this.weightsSeen.push(w);
      const lps = targets.map((t, i) => {
        const lp = logprob(this.theta, t);
        if (lp === undefined) return 0;
        const ratio = Math.exp(lp - q[i]!);
        const wi = w === undefined ? 1 : w[i]!;
        loss -= wi * ratio * adv[i]!;
        // d(−w·r·A)/dθ = −w·A·r·dlp/dθ
        this.grad += -wi * adv[i]! * ratio * dlogprob(this.theta, t);
        return lp;
      });
      return { logprobs: tensorFromFloat32(lps) };
    });
    return { lossFnOutputType: 'fake', lossFnOutputs: outputs, metrics: { 'loss:sum': loss } };
  }

  /** A client-side loss: the learner's logprobs of the targets, the loss's ∂L/∂lp applied through dlp/dθ. */
  forwardBackwardCustom(data: Datum[], lossFn: CustomLossFn): Promise<ForwardBackwardOutput> {
    this.calls.push('forward_backward_custom');
    return this.inOrder(async () => {
      const targets_D = data.map((d) => tensorToNumbers(d.lossFnInputs.target_tokens!));
      const lps_D = targets_D.map((ts) => Float32Array.from(ts, (t) => logprob(this.theta, t) ?? 0));
      const out = await lossFn(data, lps_D);
      targets_D.forEach((ts, i) => {
        ts.forEach((t, j) => {
          if (logprob(this.theta, t) !== undefined) this.grad += out.gradLogprobs[i]![j]! * dlogprob(this.theta, t);
        });
      });
      return {
        lossFnOutputType: 'fake',
        lossFnOutputs: lps_D.map((lp) => ({ logprobs: tensorFromFloat32(Array.from(lp)) })),
        metrics: { ...(out.metrics ?? {}), 'custom_loss:sum': out.loss },
      };
    });
  }

  optimStep(adam: AdamParams = {}): Promise<{ metrics: Record<string, number> }> {
    this.calls.push('optim_step');
    this.optimsInFlight++;
    return this.inOrder(async () => {
      await this.delay();
      // Plain gradient descent with a large step so a few iterations move the policy.
      this.theta -= (adam.learningRate ?? 0) * this.grad;
      this.grad = 0;
      this.optimsInFlight--;
      return { metrics: {} };
    });
  }

  saveState(name: string): Promise<{ path: string }> {
    this.calls.push('save_state');
    return this.inOrder(async () => {
      const path = `fake://state/${name}/${this.service.stateSeq++}`;
      this.service.states.set(path, { theta: this.theta });
      return { path };
    });
  }

  saveWeightsForSampler(name?: string): Promise<{ path?: string; samplingSessionId?: string }> {
    this.calls.push('save_sampler');
    return this.inOrder(async () => {
      const path = `fake://sampler/${name ?? 'ephemeral'}/${this.service.samplerWeights.size}`;
      this.service.samplerWeights.set(path, this.theta);
      return { path };
    });
  }

  saveWeightsAndGetSamplingClient(): Promise<FakeSampler> {
    this.calls.push('save_sampler');
    return this.inOrder(async () => this.service.newSampler(this.theta));
  }
}

/** One-token bandit prompt. */
export const BANDIT_PROMPT = ModelInput.fromInts([10, 11]);
