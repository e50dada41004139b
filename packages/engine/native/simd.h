// Helpers the engine's native kernels share: a run-time AVX2+FMA check (every kernel file), and the row max and
// exp-sum (defined in ops.cc) that every softmax of the engine uses, so attention (attention.cc) and the row-wise ops
// round alike.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define COOKBOOK_X86 1
#define AVX2 __attribute__((target("avx2,fma")))
#endif

namespace cookbook::simd {

// True when the CPU runs AVX2 and FMA (checked once).
inline bool has_avx2() {
#ifdef COOKBOOK_X86
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
#else
  return false;
#endif
}

// max of x[0, n) (-inf for n = 0).
float row_max(const float* x, int n);
// sum_j exp(x[j] - m) for j < n, each exp within a few ulp of the exact value; the exps go to out (may alias x) when
// out is not null. Partial float sums are flushed into a double every 512 values.
double exp_sum(const float* x, float* out, int n, float m);

}  // namespace cookbook::simd
