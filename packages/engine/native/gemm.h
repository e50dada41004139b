// Built-in row-major SGEMM used when no system BLAS is linked.
#pragma once
#include <cstddef>

namespace cookbook {

// Up to this many rows of C (with A not transposed) gemm() uses its unpacked small-M path, also preferred over a
// BLAS (whose sgemm packs all of B even for one row).
constexpr int SMALL_M = 8;

void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
          int ldb, float beta, float* C, int ldc, int threads);

// "avx2" when the CPU supports AVX2+FMA (runtime check), else "scalar".
const char* gemm_simd();

}  // namespace cookbook
