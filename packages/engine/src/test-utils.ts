// Helpers shared by the engine's tests: small random configs and finite differences.

import { Xoshiro128Rng } from '@cookbook/core';
import type { AdamParams } from './adamw.js';
import type { ModelConfig } from './model/config.js';

/** A tiny config (vocab 61, hidden 16) for fast finite-difference checks. */
export function tinyConfig(arch: 'llama' | 'qwen3', tied: boolean): ModelConfig {
  return {
    arch,
    vocabSize: 61,
    hiddenSize: 16,
    intermediateSize: 24,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 8,
    rmsNormEps: 1e-5,
    ropeTheta: 10000,
    ropeScaling:
      arch === 'llama' ? { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 16 } : null,
    tieWordEmbeddings: tied,
    maxPositionEmbeddings: 256,
    bosTokenId: null,
    eosTokenIds: [60],
  };
}

/** Random f32 values N(0, std²). */
export function randn(n: number, seed: number, std = 1): Float32Array {
  return new Xoshiro128Rng(seed).fillNormal(new Float32Array(n), std);
}

/** Σ a·b in f64. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * Central-difference directional derivative of f at x along d: (f(x+εd) − f(x−εd)) / 2ε; restores x.
 */
export function fdDirectional(x: Float32Array, d: Float32Array, f: () => number, eps = 1e-2): number {
  const x0 = x.slice();
  for (let i = 0; i < x.length; i++) x[i] = x0[i]! + eps * d[i]!;
  const fp = f();
  for (let i = 0; i < x.length; i++) x[i] = x0[i]! - eps * d[i]!;
  const fm = f();
  x.set(x0);
  return (fp - fm) / (2 * eps);
}

/**
 * Resolved Adam parameters for tests: `learningRate` with the protocol's defaults for the rest (the wire's
 * ADAM_PARAMS_DEFAULTS, spelled out here since the engine's tests state their inputs).
 */
export function testAdam(learningRate: number): AdamParams {
  return { learningRate, beta1: 0.9, beta2: 0.95, eps: 1e-12, weightDecay: 0, gradClipNorm: 0 };
}
