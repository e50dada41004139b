// Attention of decode rows and rotary position embedding (see ops.h): a decode step's attention for all its
// sequences, split across the kernel's thread pool by (sequence, head), and rope in place. AVX2+FMA at run time,
// scalar otherwise; the softmax uses the shared row max / exp sum of simd.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gemm.h"
#include "ops.h"
#include "simd.h"

namespace cookbook {
namespace {

using simd::exp_sum;
using simd::has_avx2;
using simd::row_max;

#ifdef COOKBOOK_X86
AVX2 float dot_f_avx2(const float* a, const float* b, int n) {
  __m256 s0 = _mm256_setzero_ps();
  int j = 0;
  for (; j + 8 <= n; j += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j), s0);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  float t = _mm_cvtss_f32(h);
  for (; j < n; j++) t += a[j] * b[j];
  return t;
}

// o[0, D) = sum_j p[j] * v[j * ldv + (0, D)], D a multiple of 8, 64 columns at a time in registers.
AVX2 void weighted_rows_avx2(float* o, const float* p, const float* v, int ldv, int S, int D) {
  for (int c0 = 0; c0 < D; c0 += 64) {
    const int nv = std::min(8, (D - c0) / 8);
    __m256 acc[8];
    for (int t = 0; t < 8; t++) acc[t] = _mm256_setzero_ps();
    for (int j = 0; j < S; j++) {
      const __m256 pj = _mm256_set1_ps(p[j]);
      const float* vj = v + (size_t)j * ldv + c0;
      for (int t = 0; t < nv; t++) acc[t] = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj + 8 * t), acc[t]);
    }
    for (int t = 0; t < nv; t++) _mm256_storeu_ps(o + c0 + 8 * t, acc[t]);
  }
}

// dot_f_avx2's horizontal sum of one accumulator (D a multiple of 8: no tail).
AVX2 inline float hsum_f(__m256 s0) {
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  return _mm_cvtss_f32(h);
}

// sc[j] = dot_f(q, k_j, D) * scale for the keys j < S in groups of four (four independent accumulators instead of
// one dependent chain); returns how many keys it did (0 when D is not a multiple of 8).
AVX2 int scores4_avx2(float* sc, const float* q, const float* k, int ldk, int S, int D, float scale) {
  if (D % 8 != 0) return 0;
  int j = 0;
  for (; j + 4 <= S; j += 4) {
    const float* k0 = k + (size_t)j * ldk;
    const float *k1 = k0 + ldk, *k2 = k1 + ldk, *k3 = k2 + ldk;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int c = 0; c < D; c += 8) {
      const __m256 qv = _mm256_loadu_ps(q + c);
      a0 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k0 + c), a0);
      a1 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k1 + c), a1);
      a2 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k2 + c), a2);
      a3 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k3 + c), a3);
    }
    sc[j] = hsum_f(a0) * scale;
    sc[j + 1] = hsum_f(a1) * scale;
    sc[j + 2] = hsum_f(a2) * scale;
    sc[j + 3] = hsum_f(a3) * scale;
  }
  return j;
}

// Four pairs at a time of rope_rows: a[i], b[i] <- a c - b s, b c + a s in double (s negated for the inverse), each
// rounded once to float, as the scalar loop; returns how many pairs it did.
AVX2 int rope_pairs_avx2(float* a, float* b, const float* c, const float* s, int half, double sgn) {
  const __m256d g = _mm256_set1_pd(sgn);
  int i = 0;
  for (; i + 4 <= half; i += 4) {
    const __m256d x1 = _mm256_cvtps_pd(_mm_loadu_ps(a + i)), x2 = _mm256_cvtps_pd(_mm_loadu_ps(b + i));
    const __m256d ci = _mm256_cvtps_pd(_mm_loadu_ps(c + i));
    const __m256d si = _mm256_mul_pd(g, _mm256_cvtps_pd(_mm_loadu_ps(s + i)));
    // x1 c − x2 s as the scalar code computes it: products of two floats are exact in double, so only the
    // difference rounds (fused or not), then the conversion to float
    _mm_storeu_ps(a + i, _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_mul_pd(x1, ci), _mm256_mul_pd(x2, si))));
    _mm_storeu_ps(b + i, _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(x2, ci), _mm256_mul_pd(x1, si))));
  }
  return i;
}
#endif

float dot_f(const float* a, const float* b, int n) {
#ifdef COOKBOOK_X86
  if (has_avx2()) return dot_f_avx2(a, b, n);
#endif
  float t = 0;
  for (int j = 0; j < n; j++) t += a[j] * b[j];
  return t;
}

void weighted_rows(float* o, const float* p, const float* v, int ldv, int S, int D) {
#ifdef COOKBOOK_X86
  if (has_avx2() && D % 8 == 0) return weighted_rows_avx2(o, p, v, ldv, S, D);
#endif
  std::memset(o, 0, sizeof(float) * D);
  for (int j = 0; j < S; j++)
    for (int c = 0; c < D; c++) o[c] += p[j] * v[(size_t)j * ldv + c];
}

// One head of one decode row: o_h = softmax(q_h . k_g^T * scale) . v_g over S keys (k_g, v_g: the kv head's columns,
// row strides ldk / ldv); sc holds S scores. Four keys at a time on AVX2, each key's dot product accumulated exactly
// as dot_f does (one 8-lane accumulator over D, then the same horizontal sum), so the scores equal dot_f's.
void attend_head(float* o, const float* qh, const float* kg, int ldk, const float* vg, int ldv, int S, int D,
                 float scale, float* sc) {
  int j = 0;
#ifdef COOKBOOK_X86
  if (has_avx2()) j = scores4_avx2(sc, qh, kg, ldk, S, D, scale);
#endif
  for (; j < S; j++) sc[j] = dot_f(qh, kg + (size_t)j * ldk, D) * scale;
  const float mx = row_max(sc, S);
  const float inv = (float)(1.0 / exp_sum(sc, sc, S, mx));
  for (int i = 0; i < S; i++) sc[i] *= inv;
  weighted_rows(o, sc, vg, ldv, S, D);
}

}  // namespace

void attention_decode(float* o, const float* q, const float* k, int ldk, const float* v, int ldv, int S, int H, int KV,
                      int D) {
  thread_local std::vector<float> sc;
  if ((int)sc.size() < S) sc.resize(S);
  const int rep = H / KV;
  const float scale = 1.0f / std::sqrt((float)D);
  for (int h = 0; h < H; h++) {
    const int g = h / rep;
    attend_head(o + (size_t)h * D, q + (size_t)h * D, k + (size_t)g * D, ldk, v + (size_t)g * D, ldv, S, D, scale,
                sc.data());
  }
}

void attention_decode_batch(float* o, const float* q, const float* k, const float* v, int ld, const int32_t* first,
                            const int32_t* lens, int B, int H, int KV, int D, int threads) {
  struct Ctx {
    float* o;
    const float *q, *k, *v;
    const int32_t *first, *lens;
    int ld, H, KV, D, pairs, chunks;
  } ctx{o, q, k, v, first, lens, ld, H, KV, D, B * H, 0};
  // A few (sequence, head) pairs per chunk; one sequence's heads alone are not worth waking the pool for.
  ctx.chunks = B < 2 ? 1 : std::min(ctx.pairs, 4 * std::max(1, threads));
  parallel_for(
      threads, ctx.chunks,
      [](void* p, int c) {
        const Ctx& x = *static_cast<Ctx*>(p);
        thread_local std::vector<float> sc;
        const int rep = x.H / x.KV;
        const float scale = 1.0f / std::sqrt((float)x.D);
        const int a = (int)((int64_t)x.pairs * c / x.chunks), z = (int)((int64_t)x.pairs * (c + 1) / x.chunks);
        for (int i = a; i < z; i++) {
          const int b = i / x.H, h = i % x.H, g = h / rep, S = x.lens[b];
          if ((int)sc.size() < S) sc.resize(S);
          const size_t row0 = (size_t)x.first[b] * x.ld + (size_t)g * x.D;
          attend_head(x.o + ((size_t)b * x.H + h) * x.D, x.q + ((size_t)b * x.H + h) * x.D, x.k + row0, x.ld,
                      x.v + row0, x.ld, S, x.D, scale, sc.data());
        }
      },
      &ctx);
}

void rope_rows(float* x, int ld, const int32_t* pos, int T, int H, int D, const float* cos, const float* sin,
               bool inverse) {
  const int half = D / 2;
  const double sgn = inverse ? -1.0 : 1.0;
  for (int t = 0; t < T; t++) {
    const float* c = cos + (size_t)pos[t] * half;
    const float* s = sin + (size_t)pos[t] * half;
    for (int h = 0; h < H; h++) {
      float* a = x + (size_t)t * ld + (size_t)h * D;
      float* b = a + half;
      int i = 0;
#ifdef COOKBOOK_X86
      if (has_avx2()) i = rope_pairs_avx2(a, b, c, s, half, sgn);
#endif
      for (; i < half; i++) {
        const double x1 = a[i], x2 = b[i], ci = c[i], si = sgn * s[i];
        a[i] = (float)(x1 * ci - x2 * si);
        b[i] = (float)(x2 * ci + x1 * si);
      }
    }
  }
}

}  // namespace cookbook
