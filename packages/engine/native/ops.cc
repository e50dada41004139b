// Element-wise / row-wise kernels (see ops.h). AVX2+FMA versions are selected at run time; the scalar versions
// run the same float exp polynomial so both give the same values.
#include "ops.h"

#include "simd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace cookbook {
namespace {

using simd::has_avx2;

// Cephes expf: n = round(x / ln2), r = x - n ln2 (two-part ln2), exp(r) by a degree-6 polynomial, times 2^n.
// Max relative error about 2 ulp over the float range; x < EXP_LO gives 0, x > EXP_HI gives +inf, NaN stays NaN.
constexpr float EXP_HI = 88.3762626647949f;
constexpr float EXP_LO = -87.3365447504f;
constexpr float LOG2E = 1.44269504088896341f;
constexpr float LN2_HI = 0.693359375f;
constexpr float LN2_LO = -2.12194440e-4f;
constexpr float P0 = 1.9875691500e-4f;
constexpr float P1 = 1.3981999507e-3f;
constexpr float P2 = 8.3334519073e-3f;
constexpr float P3 = 4.1665795894e-2f;
constexpr float P4 = 1.6666665459e-1f;
constexpr float P5 = 5.0000001201e-1f;

inline float exp_scalar(float x) {
  if (std::isnan(x)) return x;
  if (x < EXP_LO) return 0.0f;
  if (x > EXP_HI) return std::numeric_limits<float>::infinity();
  const float fx = std::floor(std::fmaf(x, LOG2E, 0.5f));
  float r = std::fmaf(-fx, LN2_HI, x);
  r = std::fmaf(-fx, LN2_LO, r);
  const float z = r * r;
  float y = P0;
  y = std::fmaf(y, r, P1);
  y = std::fmaf(y, r, P2);
  y = std::fmaf(y, r, P3);
  y = std::fmaf(y, r, P4);
  y = std::fmaf(y, r, P5);
  y = std::fmaf(y, z, r);
  y = y + 1.0f;
  return std::ldexp(y, (int)fx);
}


#ifdef COOKBOOK_X86

AVX2 inline __m256 exp8(__m256 x) {
  const __m256 hi = _mm256_set1_ps(EXP_HI);
  const __m256 lo = _mm256_set1_ps(EXP_LO);
  const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
  const __m256 fx = _mm256_floor_ps(_mm256_fmadd_ps(xc, _mm256_set1_ps(LOG2E), _mm256_set1_ps(0.5f)));
  __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(LN2_HI), xc);
  r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(LN2_LO), r);
  const __m256 z = _mm256_mul_ps(r, r);
  __m256 y = _mm256_set1_ps(P0);
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(P1));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(P2));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(P3));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(P4));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(P5));
  y = _mm256_fmadd_ps(y, z, r);
  y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
  const __m256i n = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(fx), _mm256_set1_epi32(127)), 23);
  y = _mm256_mul_ps(y, _mm256_castsi256_ps(n));
  y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
  y = _mm256_blendv_ps(y, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// exp(x − m) for float x, m although x − m is not exact in float: TwoSum gives s + err = x − m exactly, and
// exp(s + err) ≈ exp(s)·(1 + err) (|err| ≤ half an ulp of s), so the result stays within a few ulp of the exact
// value (as Math.exp over the double difference) instead of losing up to |x − m|·2⁻²⁴ relative accuracy.
AVX2 inline __m256 exp_diff8(__m256 x, __m256 nm) {
  const __m256 s = _mm256_add_ps(x, nm);
  const __m256 bb = _mm256_sub_ps(s, x);
  const __m256 err = _mm256_add_ps(_mm256_sub_ps(x, _mm256_sub_ps(s, bb)), _mm256_sub_ps(nm, bb));
  const __m256 e = exp8(s);
  // keep exact zeros / infinities / NaN from the plain exp (err may be NaN when s is infinite)
  const __m256 fin = _mm256_cmp_ps(_mm256_and_ps(err, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))),
                                   _mm256_set1_ps(1.0f), _CMP_LT_OQ);
  return _mm256_blendv_ps(e, _mm256_fmadd_ps(e, err, e), fin);
}

// Loads / stores the first n (< 8) floats of p (rest of the register: fill).
AVX2 inline __m256 load_part(const float* p, int n, float fill) {
  alignas(32) float t[8];
  for (int i = 0; i < 8; i++) t[i] = i < n ? p[i] : fill;
  return _mm256_load_ps(t);
}
AVX2 inline void store_part(float* p, int n, __m256 v) {
  alignas(32) float t[8];
  _mm256_store_ps(t, v);
  for (int i = 0; i < n; i++) p[i] = t[i];
}
AVX2 inline double hsum_d(__m256 v) {
  const __m256d a = _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
  h = _mm_add_sd(h, _mm_unpackhi_pd(h, h));
  return _mm_cvtsd_f64(h);
}
AVX2 inline float hmax(__m256 v) {
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
  return _mm_cvtss_f32(h);
}

AVX2 float row_max_avx2(const float* x, int n) {
  const float ninf = -std::numeric_limits<float>::infinity();
  __m256 m0 = _mm256_set1_ps(ninf), m1 = m0;
  int j = 0;
  for (; j + 16 <= n; j += 16) {
    m0 = _mm256_max_ps(m0, _mm256_loadu_ps(x + j));
    m1 = _mm256_max_ps(m1, _mm256_loadu_ps(x + j + 8));
  }
  for (; j + 8 <= n; j += 8) m0 = _mm256_max_ps(m0, _mm256_loadu_ps(x + j));
  if (j < n) m1 = _mm256_max_ps(m1, load_part(x + j, n - j, ninf));
  return hmax(_mm256_max_ps(m0, m1));
}

// sum_j exp(x[j] - m), optionally storing the exps into out (may alias x). Partial float sums are flushed into a
// double every 512 values.
AVX2 double exp_sum_avx2(const float* x, float* out, int n, float m) {
  const __m256 mv = _mm256_set1_ps(-m);
  double total = 0;
  int j = 0;
  while (j + 8 <= n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    const int end = std::min(n, j + 512);
    for (; j + 16 <= end; j += 16) {
      const __m256 e0 = exp_diff8(_mm256_loadu_ps(x + j), mv);
      const __m256 e1 = exp_diff8(_mm256_loadu_ps(x + j + 8), mv);
      if (out) {
        _mm256_storeu_ps(out + j, e0);
        _mm256_storeu_ps(out + j + 8, e1);
      }
      s0 = _mm256_add_ps(s0, e0);
      s1 = _mm256_add_ps(s1, e1);
    }
    for (; j + 8 <= end; j += 8) {
      const __m256 e0 = exp_diff8(_mm256_loadu_ps(x + j), mv);
      if (out) _mm256_storeu_ps(out + j, e0);
      s0 = _mm256_add_ps(s0, e0);
    }
    total += hsum_d(_mm256_add_ps(s0, s1));
  }
  if (j < n) {
    const int r = n - j;
    // padding lanes hold -inf so they contribute exp(-inf) = 0
    const __m256 e = exp_diff8(load_part(x + j, r, -std::numeric_limits<float>::infinity()), mv);
    if (out) store_part(out + j, r, e);
    total += hsum_d(e);
  }
  return total;
}

AVX2 void scale_avx2(float* x, int n, float s) {
  const __m256 sv = _mm256_set1_ps(s);
  int j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(x + j, _mm256_mul_ps(_mm256_loadu_ps(x + j), sv));
  for (; j < n; j++) x[j] *= s;
}

AVX2 double dot_d_avx2(const float* a, const float* b, int n) {
  double total = 0;
  int j = 0;
  while (j + 8 <= n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    const int end = std::min(n, j + 512);
    for (; j + 16 <= end; j += 16) {
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j), s0);
      s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + j + 8), _mm256_loadu_ps(b + j + 8), s1);
    }
    for (; j + 8 <= end; j += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j), s0);
    total += hsum_d(_mm256_add_ps(s0, s1));
  }
  for (; j < n; j++) total += (double)a[j] * b[j];
  return total;
}

AVX2 void softmax_bwd_row_avx2(const float* p, float* d, int n, float dot) {
  const __m256 dv = _mm256_set1_ps(dot);
  int j = 0;
  for (; j + 8 <= n; j += 8)
    _mm256_storeu_ps(d + j, _mm256_mul_ps(_mm256_loadu_ps(p + j), _mm256_sub_ps(_mm256_loadu_ps(d + j), dv)));
  for (; j < n; j++) d[j] = p[j] * (d[j] - dot);
}

AVX2 void swiglu_forward_avx2(float* act, const float* g, const float* u, int n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 zero = _mm256_setzero_ps();
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 gv = _mm256_loadu_ps(g + j);
    const __m256 s = _mm256_div_ps(gv, _mm256_add_ps(one, exp8(_mm256_sub_ps(zero, gv))));
    _mm256_storeu_ps(act + j, _mm256_mul_ps(s, _mm256_loadu_ps(u + j)));
  }
  if (j < n) {
    const int r = n - j;
    const __m256 gv = load_part(g + j, r, 0.0f);
    const __m256 s = _mm256_div_ps(gv, _mm256_add_ps(one, exp8(_mm256_sub_ps(zero, gv))));
    store_part(act + j, r, _mm256_mul_ps(s, load_part(u + j, r, 0.0f)));
  }
}

AVX2 inline void swiglu_bwd8(__m256 gv, __m256 uv, __m256 d, __m256* dg, __m256* du) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 sig = _mm256_div_ps(one, _mm256_add_ps(one, exp8(_mm256_sub_ps(_mm256_setzero_ps(), gv))));
  // dgate = d·u·sig·(1 + g·(1 − sig)), dup = d·g·sig
  *dg = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(d, uv), sig), _mm256_fmadd_ps(gv, _mm256_sub_ps(one, sig), one));
  *du = _mm256_mul_ps(_mm256_mul_ps(d, gv), sig);
}

AVX2 void swiglu_backward_avx2(float* dg, float* du, const float* dact, const float* g, const float* u, int n) {
  int j = 0;
  __m256 a, b;
  for (; j + 8 <= n; j += 8) {
    swiglu_bwd8(_mm256_loadu_ps(g + j), _mm256_loadu_ps(u + j), _mm256_loadu_ps(dact + j), &a, &b);
    _mm256_storeu_ps(dg + j, a);
    _mm256_storeu_ps(du + j, b);
  }
  if (j < n) {
    const int r = n - j;
    swiglu_bwd8(load_part(g + j, r, 0.0f), load_part(u + j, r, 0.0f), load_part(dact + j, r, 0.0f), &a, &b);
    store_part(dg + j, r, a);
    store_part(du + j, r, b);
  }
}

AVX2 void rmsnorm_row_avx2(float* y, const float* x, const float* w, int C, float s) {
  const __m256 sv = _mm256_set1_ps(s);
  int c = 0;
  for (; c + 8 <= C; c += 8)
    _mm256_storeu_ps(y + c, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(x + c), sv), _mm256_loadu_ps(w + c)));
  for (; c < C; c++) y[c] = x[c] * s * w[c];
}

AVX2 double rms_dot_avx2(const float* dy, const float* w, const float* x, int C) {
  __m256 s0 = _mm256_setzero_ps();
  int c = 0;
  for (; c + 8 <= C; c += 8)
    s0 = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_loadu_ps(dy + c), _mm256_loadu_ps(w + c)), _mm256_loadu_ps(x + c), s0);
  double t = hsum_d(s0);
  for (; c < C; c++) t += (double)dy[c] * w[c] * x[c];
  return t;
}

AVX2 void rmsnorm_bwd_row_avx2(float* dx, const float* dy, const float* x, const float* w, int C, float s, float k,
                               bool acc) {
  const __m256 sv = _mm256_set1_ps(s);
  const __m256 kv = _mm256_set1_ps(k);
  int c = 0;
  for (; c + 8 <= C; c += 8) {
    __m256 v = _mm256_fnmadd_ps(kv, _mm256_loadu_ps(x + c),
                                _mm256_mul_ps(_mm256_mul_ps(sv, _mm256_loadu_ps(dy + c)), _mm256_loadu_ps(w + c)));
    if (acc) v = _mm256_add_ps(v, _mm256_loadu_ps(dx + c));
    _mm256_storeu_ps(dx + c, v);
  }
  for (; c < C; c++) {
    const float v = s * dy[c] * w[c] - k * x[c];
    dx[c] = acc ? dx[c] + v : v;
  }
}
#endif

// ---- scalar versions (CPUs without AVX2)
float row_max_scalar(const float* x, int n) {
  float m = -std::numeric_limits<float>::infinity();
  for (int j = 0; j < n; j++) m = std::max(m, x[j]);
  return m;
}
// Scalar twin of exp_diff8.
float exp_diff_scalar(float x, float nm) {
  const float s = x + nm;
  const float bb = s - x;
  const float err = (x - (s - bb)) + (nm - bb);
  const float e = exp_scalar(s);
  return std::fabs(err) < 1.0f ? std::fmaf(e, err, e) : e;
}

double exp_sum_scalar(const float* x, float* out, int n, float m) {
  double s = 0;
  for (int j = 0; j < n; j++) {
    const float e = exp_diff_scalar(x[j], -m);
    if (out) out[j] = e;
    s += e;
  }
  return s;
}
double dot_d_scalar(const float* a, const float* b, int n) {
  double s = 0;
  for (int j = 0; j < n; j++) s += (double)a[j] * b[j];
  return s;
}

}  // namespace

float simd::row_max(const float* x, int n) {
#ifdef COOKBOOK_X86
  if (has_avx2()) return row_max_avx2(x, n);
#endif
  return row_max_scalar(x, n);
}
double simd::exp_sum(const float* x, float* out, int n, float m) {
#ifdef COOKBOOK_X86
  if (has_avx2()) return exp_sum_avx2(x, out, n, m);
#endif
  return exp_sum_scalar(x, out, n, m);
}

namespace {

using simd::exp_sum;
using simd::row_max;

void scale(float* x, int n, float s) {
#ifdef COOKBOOK_X86
  if (has_avx2()) return scale_avx2(x, n, s);
#endif
  for (int j = 0; j < n; j++) x[j] *= s;
}
double dot_d(const float* a, const float* b, int n) {
#ifdef COOKBOOK_X86
  if (has_avx2()) return dot_d_avx2(a, b, n);
#endif
  return dot_d_scalar(a, b, n);
}




constexpr int SAMPLE_BLOCK = 512;

// exp((x[j] - m) * inv_t) for j < n into out (n <= SAMPLE_BLOCK), returns their sum. inv_t = 1: the exact-difference
// exp of exp_sum; otherwise the scaled differences are rounded to float first.
double block_exps(const float* x, int n, float m, float inv_t, float* out) {
  if (inv_t == 1.0f) return exp_sum(x, out, n, m);
  for (int j = 0; j < n; j++) out[j] = (x[j] - m) * inv_t;
  return exp_sum(out, out, n, 0.0f);
}

}  // namespace

void softmax_causal(float* att, int ld, int T, int width, int off) {
  for (int i = 0; i < T; i++) {
    float* row = att + (size_t)i * ld;
    const int n = std::max(0, std::min(width, off + i + 1));
    if (n > 0) {
      const float m = row_max(row, n);
      const double sum = exp_sum(row, row, n, m);
      scale(row, n, (float)(1.0 / sum));
    }
    if (n < width) std::memset(row + n, 0, sizeof(float) * (width - n));
  }
}

void softmax_causal_backward(const float* att, float* datt, int ld, int T, int width, int off) {
  for (int i = 0; i < T; i++) {
    const float* p = att + (size_t)i * ld;
    float* d = datt + (size_t)i * ld;
    const int n = std::max(0, std::min(width, off + i + 1));
    const float dot = (float)dot_d(p, d, n);
#ifdef COOKBOOK_X86
    if (has_avx2())
      softmax_bwd_row_avx2(p, d, n, dot);
    else
#endif
      for (int j = 0; j < n; j++) d[j] = p[j] * (d[j] - dot);
    if (n < width) std::memset(d + n, 0, sizeof(float) * (width - n));
  }
}

void logsumexp_rows(double* lse, const float* x, int T, int V) {
  for (int t = 0; t < T; t++) {
    const float* row = x + (size_t)t * V;
    const float m = row_max(row, V);
    lse[t] = (double)m + std::log(exp_sum(row, nullptr, V, m));
  }
}

void softmax_rows_unnormalized(double* lse, double* inv_sum, float* x, int T, int V) {
  for (int t = 0; t < T; t++) {
    float* row = x + (size_t)t * V;
    const float m = row_max(row, V);
    const double s = exp_sum(row, row, V, m);
    lse[t] = (double)m + std::log(s);
    inv_sum[t] = 1.0 / s;
  }
}

void softmax_grad_rows(float* e, const double* inv_sum, const int32_t* targets, const double* g, int T, int V, int K) {
  for (int t = 0; t < T; t++) {
    float* row = e + (size_t)t * V;
    double G = 0;
    for (int k = 0; k < K; k++) G += g[(size_t)t * K + k];
    if (G == 0)
      std::memset(row, 0, sizeof(float) * V);
    else
      scale(row, V, (float)(-G * inv_sum[t]));
    for (int k = 0; k < K; k++) row[targets[(size_t)t * K + k]] += (float)g[(size_t)t * K + k];
  }
}

void swiglu_forward(float* act, const float* gu, int T, int I) {
  for (int t = 0; t < T; t++) {
    const float* g = gu + (size_t)t * 2 * I;
    const float* u = g + I;
    float* a = act + (size_t)t * I;
#ifdef COOKBOOK_X86
    if (has_avx2()) {
      swiglu_forward_avx2(a, g, u, I);
      continue;
    }
#endif
    for (int i = 0; i < I; i++) a[i] = (g[i] / (1.0f + exp_scalar(-g[i]))) * u[i];
  }
}

void swiglu_backward(float* dgu, const float* dact, const float* gu, int T, int I) {
  for (int t = 0; t < T; t++) {
    const float* g = gu + (size_t)t * 2 * I;
    const float* u = g + I;
    const float* d = dact + (size_t)t * I;
    float* dg = dgu + (size_t)t * 2 * I;
    float* du = dg + I;
#ifdef COOKBOOK_X86
    if (has_avx2()) {
      swiglu_backward_avx2(dg, du, d, g, u, I);
      continue;
    }
#endif
    for (int i = 0; i < I; i++) {
      const float sig = 1.0f / (1.0f + exp_scalar(-g[i]));
      dg[i] = d[i] * u[i] * sig * std::fmaf(g[i], 1.0f - sig, 1.0f);
      du[i] = d[i] * g[i] * sig;
    }
  }
}

void rmsnorm_forward(float* y, int ldy, float* rstd, const float* x, int ldx, const float* w, int R, int C, float eps) {
  for (int r = 0; r < R; r++) {
    const float* xr = x + (size_t)r * ldx;
    float* yr = y + (size_t)r * ldy;
    const double ss = dot_d(xr, xr, C);
    const float s = (float)(1.0 / std::sqrt(ss / C + (double)eps));
    rstd[r] = s;
#ifdef COOKBOOK_X86
    if (has_avx2()) {
      rmsnorm_row_avx2(yr, xr, w, C, s);
      continue;
    }
#endif
    for (int c = 0; c < C; c++) yr[c] = xr[c] * s * w[c];
  }
}

void rmsnorm_backward(float* dx, int lddx, const float* dy, int lddy, const float* x, int ldx, const float* rstd,
                      const float* w, int R, int C, bool accumulate) {
  for (int r = 0; r < R; r++) {
    const float* xr = x + (size_t)r * ldx;
    const float* dyr = dy + (size_t)r * lddy;
    float* dxr = dx + (size_t)r * lddx;
    const double s = rstd[r];
    double dot;
#ifdef COOKBOOK_X86
    if (has_avx2())
      dot = rms_dot_avx2(dyr, w, xr, C);
    else
#endif
    {
      dot = 0;
      for (int c = 0; c < C; c++) dot += (double)dyr[c] * w[c] * xr[c];
    }
    const float k = (float)((s * s * s * dot) / C);
    const float sf = (float)s;
#ifdef COOKBOOK_X86
    if (has_avx2()) {
      rmsnorm_bwd_row_avx2(dxr, dyr, xr, w, C, sf, k, accumulate);
      continue;
    }
#endif
    for (int c = 0; c < C; c++) {
      const float v = sf * dyr[c] * w[c] - k * xr[c];
      dxr[c] = accumulate ? dxr[c] + v : v;
    }
  }
}


int sample_row(const float* x, int V, float inv_t, double u) {
  const float m = row_max(x, V);
  const int nb = (V + SAMPLE_BLOCK - 1) / SAMPLE_BLOCK;
  thread_local std::vector<double> block_sum;
  thread_local std::vector<float> buf(SAMPLE_BLOCK);
  block_sum.resize(nb);
  double total = 0;
  for (int b = 0; b < nb; b++) {
    const int j0 = b * SAMPLE_BLOCK;
    block_sum[b] = block_exps(x + j0, std::min(SAMPLE_BLOCK, V - j0), m, inv_t, buf.data());
    total += block_sum[b];
  }
  const double target = u * total;
  double cum = 0;
  int b = 0;
  for (; b < nb - 1 && cum + block_sum[b] <= target; b++) cum += block_sum[b];
  while (b > 0 && block_sum[b] == 0) cum -= block_sum[--b];  // rounding went past the last tokens with any mass
  const int j0 = b * SAMPLE_BLOCK, n = std::min(SAMPLE_BLOCK, V - j0);
  block_exps(x + j0, n, m, inv_t, buf.data());
  int last = -1;
  for (int j = 0; j < n; j++) {
    if (buf[j] <= 0) continue;
    last = j0 + j;
    cum += buf[j];
    if (cum > target) return j0 + j;
  }
  return last >= 0 ? last : 0;
}


}  // namespace cookbook
