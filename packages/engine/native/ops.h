// Element-wise / row-wise kernels of the engine (softmax, log-sum-exp, SwiGLU, RMSNorm), AVX2+FMA when the CPU
// has it (run-time check), scalar otherwise. Both paths use the same float exp (Cephes polynomial, <= 2 ulp), so
// a result never depends on where a row starts. The pure-TS versions in src/layers are the references.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cookbook {

// Causal softmax in place: T rows of stride ld; row i keeps columns [0, off + i] and zeroes (off + i, width).
void softmax_causal(float* att, int ld, int T, int width, int off);
// Backward of softmax_causal: datt <- P * (dP - rowsum(P * dP)) on the same causal pattern (zeroes the rest).
void softmax_causal_backward(const float* att, float* datt, int ld, int T, int width, int off);
// lse[t] = log sum_v exp(x[t, v]) (rows of V, stride V); x unchanged.
void logsumexp_rows(double* lse, const float* x, int T, int V);
// Like logsumexp_rows but overwrites x with exp(x - max) and writes inv_sum[t] = 1 / sum_v exp(x - max).
void softmax_rows_unnormalized(double* lse, double* inv_sum, float* x, int T, int V);
// e (from softmax_rows_unnormalized) -> dlogits = sum_k g_k [v = target_k] - (sum_k g_k) * e * inv_sum.
void softmax_grad_rows(float* e, const double* inv_sum, const int32_t* targets, const double* g, int T, int V, int K);
// act = silu(gu[:, :I]) * gu[:, I:]
void swiglu_forward(float* act, const float* gu, int T, int I);
void swiglu_backward(float* dgu, const float* dact, const float* gu, int T, int I);
void rmsnorm_forward(float* y, int ldy, float* rstd, const float* x, int ldx, const float* w, int R, int C, float eps);
void rmsnorm_backward(float* dx, int lddx, const float* dy, int lddy, const float* x, int ldx, const float* rstd,
                      const float* w, int R, int C, bool accumulate);
// Rotary position embedding in place ("rotate half"): in each of the H heads (D wide) of row t of x (stride ld), the
// pair (x[i], x[i + D/2]) turns by the angle whose cos / sin are row pos[t] of the tables (D/2 wide); `inverse`
// turns the other way (the backward). Computed in double and rounded once, as the pure-TS ropeForward does.
void rope_rows(float* x, int ld, const int32_t* pos, int T, int H, int D, const float* cos, const float* sin,
               bool inverse);
// Draws a token from softmax(x / T) (inv_t = 1 / T) with u in [0, 1): the first j whose cumulative probability
// exceeds u, without keeping the probabilities (block sums of SAMPLE_BLOCK exps, then the one block recomputed).
int sample_row(const float* x, int V, float inv_t, double u);
// One query row of causal GQA attention over S keys: o_h = softmax(q_h . k_g^T / sqrt(D)) . v_g for every head h
// (g = h / (H / KV)); k and v rows have strides ldk / ldv, head g at column g * D.
void attention_decode(float* o, const float* q, const float* k, int ldk, const float* v, int ldv, int S, int H, int KV,
                      int D);
// attention_decode for B sequences at once, each over its own rows of one cache: sequence b's query (H * D) is at
// q + b * H * D, its output at o + b * H * D, and its S = lens[b] keys / values are rows first[b], ... of k / v
// (row stride ld). The B * H (sequence, head) pairs are split across up to `threads` threads; each pair computes
// exactly what attention_decode computes for it.
void attention_decode_batch(float* o, const float* q, const float* k, const float* v, int ld, const int32_t* first,
                            const int32_t* lens, int B, int H, int KV, int D, int threads);

}  // namespace cookbook
