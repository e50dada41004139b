/**
 * A deterministic in-process stand-in for the Tinker service, for loop tests: a tiny model whose logprob of a target
 * token t is −(θ[t mod K] − 1)² − 0.1, trained by Adam; states saved as JSON (in memory or in a folder, so a killed
 * process's checkpoints survive). It records every call in order.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Datum, tensorFromFloat32, tensorToNumbers } from '@cookbook/core';
import type { AdamParams, ForwardBackwardOutput } from '@cookbook/tinker-client';
import type { SupervisedServiceClient, SupervisedTrainingClient } from '../types.js';

const K = 16;

interface ModelState {
  theta: number[];
  m: number[];
  v: number[];
  t: number;
}

export interface FakeEvent {
  op: 'forward_backward' | 'forward' | 'optim_step' | 'save_state' | 'save_sampler';
  id: number;
  phase: 'submit' | 'resolve';
}

function initState(seed: number): ModelState {
  const theta = Array.from({ length: K }, (_, i) => Math.sin(seed * 7.1 + i * 1.3) * 2);
  return { theta, m: new Array(K).fill(0), v: new Array(K).fill(0), t: 0 };
}

export class FakeService implements SupervisedServiceClient {
  readonly events: FakeEvent[] = [];
  readonly states = new Map<string, ModelState>();
  /** Milliseconds before a future resolves (so requests really overlap). */
  delayMs: number;
  private readonly root: string | undefined;
  private runCounter = 0;
  private idCounter = 0;

  constructor(options: { root?: string; delayMs?: number } = {}) {
    this.root = options.root;
    this.delayMs = options.delayMs ?? 1;
    if (this.root !== undefined) mkdirSync(this.root, { recursive: true });
  }

  private saveStateFile(path: string, state: ModelState): void {
    if (this.root === undefined) {
      this.states.set(path, structuredClone(state));
      return;
    }
    const file = join(this.root, encodeURIComponent(path));
    writeFileSync(`${file}.tmp`, JSON.stringify(state));
    renameSync(`${file}.tmp`, file);
  }

  private loadStateFile(path: string): ModelState {
    if (this.root === undefined) {
      const s = this.states.get(path);
      if (s === undefined) throw new Error(`no such checkpoint ${path}`);
      return structuredClone(s);
    }
    const file = join(this.root, encodeURIComponent(path));
    if (!existsSync(file)) throw new Error(`no such checkpoint ${path}`);
    return JSON.parse(readFileSync(file, 'utf8')) as ModelState;
  }

  private run(): string {
    // Runs are numbered per process; a folder-backed service keeps names unique with the pid.
    return `run${process.pid}-${++this.runCounter}`;
  }

  async createLoraTrainingClient(args: { baseModel: string; rank?: number }): Promise<SupervisedTrainingClient> {
    return new FakeTrainingClient(this, this.run(), initState(args.baseModel.length + (args.rank ?? 32)));
  }

  async createTrainingClientFromState(
    path: string,
    options: { optimizer?: boolean } = {},
  ): Promise<SupervisedTrainingClient> {
    const state = this.loadStateFile(path);
    if (!options.optimizer) {
      state.m.fill(0);
      state.v.fill(0);
      state.t = 0;
    }
    return new FakeTrainingClient(this, this.run(), state);
  }

  /** @internal */
  submit<T>(op: FakeEvent['op'], work: () => T): PromiseLike<T> {
    const id = ++this.idCounter;
    this.events.push({ op, id, phase: 'submit' });
    // Work runs now (in submission order, like the service's per-model queue); the result arrives later.
    const result = work();
    return new Promise<T>((resolve) =>
      setTimeout(() => {
        this.events.push({ op, id, phase: 'resolve' });
        resolve(result);
      }, this.delayMs),
    );
  }

  /** @internal */
  persist(path: string, state: ModelState): void {
    this.saveStateFile(path, state);
  }
}

function logprobsOf(theta: number[], targets: number[]): number[] {
  return targets.map((t) => -((theta[t % K]! - 1) ** 2) - 0.1);
}

class FakeTrainingClient implements SupervisedTrainingClient {
  private grad = new Array<number>(K).fill(0);
  constructor(
    private readonly service: FakeService,
    private readonly runId: string,
    private state: ModelState,
  ) {}

  private pass(data: Datum[], backward: boolean): ForwardBackwardOutput {
    let loss = 0;
    const outputs = data.map((d) => {
      const targets = tensorToNumbers(d.lossFnInputs.target_tokens!);
      const weights = tensorToNumbers(d.lossFnInputs.weights!);
      const lp = logprobsOf(this.state.theta, targets);
      for (const [j, t] of targets.entries()) {
        const w = weights[j] ?? 0;
        loss -= w * lp[j]!;
        if (backward) this.grad[t % K]! += w * 2 * (this.state.theta[t % K]! - 1);
      }
      return {
        logprobs: tensorFromFloat32(lp),
        elementwise_loss: tensorFromFloat32(lp.map((x, j) => -x * (weights[j] ?? 0))),
      };
    });
    return { lossFnOutputType: 'cross_entropy', lossFnOutputs: outputs, metrics: { 'loss:sum': loss } };
  }

  forwardBackward(data: Datum[]): PromiseLike<ForwardBackwardOutput> {
    return this.service.submit('forward_backward', () => this.pass(data, true));
  }

  forward(data: Datum[]): PromiseLike<ForwardBackwardOutput> {
    return this.service.submit('forward', () => this.pass(data, false));
  }

  optimStep(p: AdamParams): PromiseLike<{ metrics: Record<string, number> }> {
    return this.service.submit('optim_step', () => {
      const s = this.state;
      const lr = p.learningRate ?? 1e-4;
      const b1 = p.beta1 ?? 0.9;
      const b2 = p.beta2 ?? 0.95;
      const eps = p.eps ?? 1e-8;
      s.t += 1;
      let norm = 0;
      for (let k = 0; k < K; k++) {
        const g = this.grad[k]!;
        norm += g * g;
        s.m[k] = b1 * s.m[k]! + (1 - b1) * g;
        s.v[k] = b2 * s.v[k]! + (1 - b2) * g * g;
        const mh = s.m[k]! / (1 - b1 ** s.t);
        const vh = s.v[k]! / (1 - b2 ** s.t);
        s.theta[k] = s.theta[k]! - (lr * mh) / (Math.sqrt(vh) + eps);
      }
      this.grad.fill(0);
      return { metrics: { 'optimizer/grad_norm': Math.sqrt(norm) } };
    });
  }

  saveState(name: string): PromiseLike<{ path: string }> {
    const path = `tinker://${this.runId}/weights/${name}`;
    return this.service.submit('save_state', () => {
      this.service.persist(path, this.state);
      return { path };
    });
  }

  saveWeightsForSampler(name?: string): PromiseLike<{ path?: string }> {
    const path = `tinker://${this.runId}/sampler_weights/${name ?? 'ephemeral'}`;
    return this.service.submit('save_sampler', () => ({ path }));
  }
}
