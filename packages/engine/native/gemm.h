// Built-in row-major SGEMM used when no system BLAS is linked.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cookbook {

// Up to this many rows of C (with A not transposed) gemm() uses its unpacked small-M path, also preferred over a
// BLAS (whose sgemm packs all of B even for one row).
constexpr int SMALL_M = 8;
// With B transposed (x·Wᵀ, the products of a decode step), up to this many rows also take the small-M path: each
// element of C is then one fixed-order dot product, so a row's result does not depend on the other rows (the
// sampler's batched decode relies on it; `info().rowIndependentRows` reports it).
constexpr int SMALL_M_NT = 32;

// True when gemm() (and the addon's sgemm) computes this product on the unpacked small-M path.
inline bool small_m_path(bool transA, bool transB, int M) {
  return !transA && (M <= SMALL_M || (transB && M <= SMALL_M_NT));
}

void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
          int ldb, float beta, float* C, int ldc, int threads);

// 16-bit weight formats the sampler can store its projections in (widened to float inside the kernels).
enum class Half { BF16 = 0, FP16 = 1 };

// dst[i] = float(src[i]) for i < n (exact: every bf16 / fp16 value is a float).
void widen_half(Half fmt, const uint16_t* src, float* dst, size_t n);

// C (M x N, ldc) += alpha * A (M x K, lda) * W^T for M <= SMALL_M_NT, W (N x K, row stride ldw) in `fmt`, beta
// already applied. Blocks of W rows are widened into a per-thread buffer and run through the small-M x.W^T path, so
// every element of C is the fixed-order dot product the float kernel computes on the widened weights: a row's result
// does not depend on the other rows.
void gemm_half_nt_small(Half fmt, int M, int N, int K, float alpha, const float* A, int lda, const uint16_t* W,
                        int ldw, float* C, int ldc, int threads);

// "avx2" when the CPU supports AVX2+FMA (runtime check), else "scalar".
const char* gemm_simd();

// fn(ctx, c) for c in [0, chunks) on the caller and up to threads - 1 workers of the kernel's own thread pool (the
// one its GEMM and the few-row products use; idle workers sleep). Chunks are claimed in any order, so callers make
// them independent. When the pool is busy (another JS thread), the caller runs every chunk itself.
void parallel_for(int threads, int chunks, void (*fn)(void*, int), void* ctx);

}  // namespace cookbook
