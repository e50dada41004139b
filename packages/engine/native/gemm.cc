// Built-in SGEMM: BLIS-style packing (A in 6-row panels, B in 16-column panels), a 6x16 AVX2/FMA micro-kernel
// selected at run time (scalar otherwise), threads splitting the columns (or rows) of C.
#include "gemm.h"

#include "simd.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace cookbook {
namespace {

using simd::has_avx2;

constexpr int MR = 6;
constexpr int NR = 16;
constexpr int KC = 256;
constexpr int MC = 120;
constexpr int NC = 2048;

// c (6x16 tile, row stride ldc) += alpha * packedA(6 x kc) * packedB(kc x 16)
void kernel_scalar(int kc, const float* a, const float* b, float* c, int ldc, float alpha) {
  float acc[MR][NR] = {};
  for (int k = 0; k < kc; k++) {
    for (int i = 0; i < MR; i++) {
      const float ai = a[k * MR + i];
      for (int j = 0; j < NR; j++) acc[i][j] += ai * b[k * NR + j];
    }
  }
  for (int i = 0; i < MR; i++)
    for (int j = 0; j < NR; j++) c[i * ldc + j] += alpha * acc[i][j];
}

#ifdef COOKBOOK_X86
__attribute__((target("avx2,fma"))) void kernel_avx2(int kc, const float* a, const float* b, float* c, int ldc,
                                                     float alpha) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int k = 0; k < kc; k++) {
    const __m256 b0 = _mm256_load_ps(b);
    const __m256 b1 = _mm256_load_ps(b + 8);
    __m256 av = _mm256_broadcast_ss(a + 0);
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(av, b0, c40);
    c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(av, b0, c50);
    c51 = _mm256_fmadd_ps(av, b1, c51);
    a += MR;
    b += NR;
  }
  const __m256 al = _mm256_set1_ps(alpha);
#define COOKBOOK_STORE(r, x0, x1)                                                                  \
  _mm256_storeu_ps(c + r * ldc, _mm256_fmadd_ps(al, x0, _mm256_loadu_ps(c + r * ldc)));         \
  _mm256_storeu_ps(c + r * ldc + 8, _mm256_fmadd_ps(al, x1, _mm256_loadu_ps(c + r * ldc + 8)));
  COOKBOOK_STORE(0, c00, c01)
  COOKBOOK_STORE(1, c10, c11)
  COOKBOOK_STORE(2, c20, c21)
  COOKBOOK_STORE(3, c30, c31)
  COOKBOOK_STORE(4, c40, c41)
  COOKBOOK_STORE(5, c50, c51)
#undef COOKBOOK_STORE
}

__attribute__((target("avx2,fma"))) float dot_avx2(const float* x, const float* y, int n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int k = 0;
  for (; k + 16 <= n; k += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(y + k), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 8), _mm256_loadu_ps(y + k + 8), s1);
  }
  for (; k + 8 <= n; k += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(y + k), s0);
  s0 = _mm256_add_ps(s0, s1);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
  h = _mm_hadd_ps(h, h);
  h = _mm_hadd_ps(h, h);
  float s = _mm_cvtss_f32(h);
  for (; k < n; k++) s += x[k] * y[k];
  return s;
}

__attribute__((target("avx2,fma"))) void axpy_avx2(float a, const float* x, float* y, int n) {
  const __m256 av = _mm256_set1_ps(a);
  int j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + j), _mm256_loadu_ps(y + j)));
  for (; j < n; j++) y[j] += a * x[j];
}
#endif

float dot(const float* x, const float* y, int n) {
#ifdef COOKBOOK_X86
  if (has_avx2()) return dot_avx2(x, y, n);
#endif
  float s = 0;
  for (int k = 0; k < n; k++) s += x[k] * y[k];
  return s;
}

void axpy(float a, const float* x, float* y, int n) {
#ifdef COOKBOOK_X86
  if (has_avx2()) return axpy_avx2(a, x, y, n);
#endif
  for (int j = 0; j < n; j++) y[j] += a * x[j];
}

struct Problem {
  bool tA, tB;
  int M, N, K;
  float alpha;
  const float* A;
  int lda;
  const float* B;
  int ldb;
  float* C;
  int ldc;
};

inline float opA(const Problem& p, int i, int k) { return p.tA ? p.A[(size_t)k * p.lda + i] : p.A[(size_t)i * p.lda + k]; }
inline float opB(const Problem& p, int k, int j) { return p.tB ? p.B[(size_t)j * p.ldb + k] : p.B[(size_t)k * p.ldb + j]; }

// Serial blocked GEMM on C += alpha * op(A) op(B) (beta already applied).
struct PackBuffers {
  float* a = nullptr;
  float* b = nullptr;
  ~PackBuffers() {
    std::free(a);
    std::free(b);
  }
  void ensure() {
    if (!a) a = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * MC * KC + 64));
    if (!b) b = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * KC * NC + 64));
  }
};

// Buffers of the calling (JS) thread for serial calls; shared worker buffers under a lock for threaded calls.
thread_local PackBuffers local_buffers;
std::mutex pool_mutex;
PackBuffers pool_buffers[64];

void gemm_serial(const Problem& p, PackBuffers& buf) {
  const bool avx = has_avx2();
  buf.ensure();
  float* bufA = buf.a;
  float* bufB = buf.b;
  alignas(64) float tile[MR * NR];
  for (int jc = 0; jc < p.N; jc += NC) {
    const int nc = std::min(NC, p.N - jc);
    for (int pc = 0; pc < p.K; pc += KC) {
      const int kc = std::min(KC, p.K - pc);
      // pack B: panels of NR columns, k-major inside a panel, zero padded
      for (int jp = 0; jp < nc; jp += NR) {
        float* dst = bufB + (size_t)jp * kc;
        const int nr = std::min(NR, nc - jp);
        if (!p.tB && nr == NR) {
          for (int k = 0; k < kc; k++) std::memcpy(dst + k * NR, p.B + (size_t)(pc + k) * p.ldb + jc + jp, NR * sizeof(float));
        } else {
          for (int k = 0; k < kc; k++) {
            for (int j = 0; j < nr; j++) dst[k * NR + j] = opB(p, pc + k, jc + jp + j);
            for (int j = nr; j < NR; j++) dst[k * NR + j] = 0;
          }
        }
      }
      for (int ic = 0; ic < p.M; ic += MC) {
        const int mc = std::min(MC, p.M - ic);
        for (int ip = 0; ip < mc; ip += MR) {
          float* dst = bufA + (size_t)ip * kc;
          const int mr = std::min(MR, mc - ip);
          if (p.tA && mr == MR) {
            for (int k = 0; k < kc; k++)
              std::memcpy(dst + k * MR, p.A + (size_t)(pc + k) * p.lda + ic + ip, MR * sizeof(float));
          } else {
            for (int k = 0; k < kc; k++) {
              for (int i = 0; i < mr; i++) dst[k * MR + i] = opA(p, ic + ip + i, pc + k);
              for (int i = mr; i < MR; i++) dst[k * MR + i] = 0;
            }
          }
        }
        for (int jp = 0; jp < nc; jp += NR) {
          const int nr = std::min(NR, nc - jp);
          for (int ip = 0; ip < mc; ip += MR) {
            const int mr = std::min(MR, mc - ip);
            float* c = p.C + (size_t)(ic + ip) * p.ldc + jc + jp;
            const float* a = bufA + (size_t)ip * kc;
            const float* b = bufB + (size_t)jp * kc;
            if (mr == MR && nr == NR) {
#ifdef COOKBOOK_X86
              if (avx) {
                kernel_avx2(kc, a, b, c, p.ldc, p.alpha);
                continue;
              }
#endif
              kernel_scalar(kc, a, b, c, p.ldc, p.alpha);
            } else {
              std::memset(tile, 0, sizeof(tile));
#ifdef COOKBOOK_X86
              if (avx)
                kernel_avx2(kc, a, b, tile, NR, p.alpha);
              else
#endif
                kernel_scalar(kc, a, b, tile, NR, p.alpha);
              for (int i = 0; i < mr; i++)
                for (int j = 0; j < nr; j++) c[(size_t)i * p.ldc + j] += tile[i * NR + j];
            }
          }
        }
      }
    }
  }
  (void)avx;
}

#ifdef COOKBOOK_X86
__attribute__((target("avx2,fma"))) inline __m256i tail_mask(int r) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Sums of four vectors: {sum a, sum b, sum c, sum d}.
__attribute__((target("avx2,fma"))) inline __m128 hsum4(__m256 a, __m256 b, __m256 c, __m256 d) {
  const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

// Small M, B transposed (weights W_NK, in float or widened from 16-bit as they are loaded): every group of 4 rows of
// W is read from memory once and dotted with all rows of A (kept in L1) in tiles of 3 rows of A x 4 rows of W (12
// accumulators), then 2 or 1 rows. Every element of C is one 8-lane accumulator over k (8 at a time, then a masked
// tail) reduced in a fixed order (hsum4), whatever the tile: a row's result does not depend on the other rows.
#define COOKBOOK_NT __attribute__((target("avx2,fma,f16c"), always_inline)) inline

struct LoadF32 {
  using T = float;
  COOKBOOK_NT static __m256 full(const float* p) { return _mm256_loadu_ps(p); }
  COOKBOOK_NT static __m256 tail(const float* p, int r) { return _mm256_maskload_ps(p, tail_mask(r)); }
};

struct LoadBf16 {
  using T = uint16_t;
  COOKBOOK_NT static __m256 full(const uint16_t* p) {
    const __m256i x = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(x, 16));
  }
  COOKBOOK_NT static __m256 tail(const uint16_t* p, int r) {
    alignas(16) uint16_t t[8] = {};
    std::memcpy(t, p, sizeof(uint16_t) * r);
    return full(t);
  }
};

struct LoadFp16 {
  using T = uint16_t;
  COOKBOOK_NT static __m256 full(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  COOKBOOK_NT static __m256 tail(const uint16_t* p, int r) {
    alignas(16) uint16_t t[8] = {};
    std::memcpy(t, p, sizeof(uint16_t) * r);
    return full(t);
  }
};

// C[R x CC] += alpha * A[R rows] . W[CC rows]^T over K.
template <class L, int R, int CC>
COOKBOOK_NT void nt_tile(const float* A, int lda, const typename L::T* W, int ldw, int K, float alpha, float* C,
                         int ldc, const typename L::T* pf) {
  const int K8 = K & ~7;
  constexpr int LINE = 64 / sizeof(typename L::T);
  __m256 acc[R][4];
  for (int r = 0; r < R; r++)
    for (int c = 0; c < 4; c++) acc[r][c] = _mm256_setzero_ps();
  for (int k = 0; k < K8; k += 8) {
    if (pf && k % LINE == 0)
      for (int c = 0; c < 4; c++) _mm_prefetch(reinterpret_cast<const char*>(pf + (size_t)c * ldw + k), _MM_HINT_T0);
    __m256 a[R];
    for (int r = 0; r < R; r++) a[r] = _mm256_loadu_ps(A + (size_t)r * lda + k);
    for (int c = 0; c < CC; c++) {
      const __m256 w = L::full(W + (size_t)c * ldw + k);
      for (int r = 0; r < R; r++) acc[r][c] = _mm256_fmadd_ps(a[r], w, acc[r][c]);
    }
  }
  if (K8 < K) {
    const __m256i mask = tail_mask(K - K8);
    __m256 a[R];
    for (int r = 0; r < R; r++) a[r] = _mm256_maskload_ps(A + (size_t)r * lda + K8, mask);
    for (int c = 0; c < CC; c++) {
      const __m256 w = L::tail(W + (size_t)c * ldw + K8, K - K8);
      for (int r = 0; r < R; r++) acc[r][c] = _mm256_fmadd_ps(a[r], w, acc[r][c]);
    }
  }
  const __m128 al = _mm_set1_ps(alpha);
  for (int r = 0; r < R; r++) {
    float* c = C + (size_t)r * ldc;
    const __m128 s = hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
    if (CC == 4) {
      _mm_storeu_ps(c, _mm_fmadd_ps(al, s, _mm_loadu_ps(c)));
    } else {
      alignas(16) float t[4];
      _mm_store_ps(t, s);
      for (int j = 0; j < CC; j++) c[j] = std::fma(alpha, t[j], c[j]);
    }
  }
}

// The first tile prefetches `pf` (the next 4 rows of W, or null) while it streams this group from memory.
template <class L, int CC>
COOKBOOK_NT void nt_rows(const float* A, int lda, const typename L::T* W, int ldw, int M, int K, float alpha, float* C,
                         int ldc, const typename L::T* pf) {
  int i = 0;
  for (; i + 3 <= M; i += 3, pf = nullptr)
    nt_tile<L, 3, CC>(A + (size_t)i * lda, lda, W, ldw, K, alpha, C + (size_t)i * ldc, ldc, pf);
  if (M - i == 2) nt_tile<L, 2, CC>(A + (size_t)i * lda, lda, W, ldw, K, alpha, C + (size_t)i * ldc, ldc, pf);
  if (M - i == 1) nt_tile<L, 1, CC>(A + (size_t)i * lda, lda, W, ldw, K, alpha, C + (size_t)i * ldc, ldc, pf);
}

// Columns [j0, j1) of C += alpha * A (M x K) * W^T.
template <class L>
__attribute__((target("avx2,fma,f16c"))) void small_nt(const float* A, int lda, const typename L::T* W, int ldw, int M,
                                                       int K, float alpha, float* C, int ldc, int j0, int j1) {
  int j = j0;
  for (; j + 4 <= j1; j += 4) {
    const typename L::T* w = W + (size_t)j * ldw;
    nt_rows<L, 4>(A, lda, w, ldw, M, K, alpha, C + j, ldc, j + 8 <= j1 ? w + 4 * (size_t)ldw : nullptr);
  }
  const int rest = j1 - j;
  const typename L::T* w = W + (size_t)j * ldw;
  if (rest == 3) nt_rows<L, 3>(A, lda, w, ldw, M, K, alpha, C + j, ldc, nullptr);
  if (rest == 2) nt_rows<L, 2>(A, lda, w, ldw, M, K, alpha, C + j, ldc, nullptr);
  if (rest == 1) nt_rows<L, 1>(A, lda, w, ldw, M, K, alpha, C + j, ldc, nullptr);
}

void small_nt_avx2(const Problem& p, int j0, int j1) {
  small_nt<LoadF32>(p.A, p.lda, p.B, p.ldb, p.M, p.K, p.alpha, p.C, p.ldc, j0, j1);
}

// Small M, B plain (K x N): rows of C in chunks of 32 columns, c += a[i][k] * B[k][chunk] over k.
__attribute__((target("avx2,fma"))) void small_nn_avx2(const Problem& p, int j0, int j1) {
  const __m256 al = _mm256_set1_ps(p.alpha);
  for (int i = 0; i < p.M; i++) {
    const float* a = p.A + (size_t)i * p.lda;
    float* c = p.C + (size_t)i * p.ldc;
    int j = j0;
    for (; j + 32 <= j1; j += 32) {
      __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
      const float* b = p.B + j;
      for (int k = 0; k < p.K; k++, b += p.ldb) {
        const __m256 x = _mm256_broadcast_ss(a + k);
        c0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b), c0);
        c1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 8), c1);
        c2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 16), c2);
        c3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 24), c3);
      }
      _mm256_storeu_ps(c + j, _mm256_fmadd_ps(al, c0, _mm256_loadu_ps(c + j)));
      _mm256_storeu_ps(c + j + 8, _mm256_fmadd_ps(al, c1, _mm256_loadu_ps(c + j + 8)));
      _mm256_storeu_ps(c + j + 16, _mm256_fmadd_ps(al, c2, _mm256_loadu_ps(c + j + 16)));
      _mm256_storeu_ps(c + j + 24, _mm256_fmadd_ps(al, c3, _mm256_loadu_ps(c + j + 24)));
    }
    for (; j < j1; j += 8) {
      const int r = std::min(8, j1 - j);
      const __m256i mask = tail_mask(r);
      __m256 c0 = _mm256_setzero_ps();
      const float* b = p.B + j;
      for (int k = 0; k < p.K; k++, b += p.ldb)
        c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + k), _mm256_maskload_ps(b, mask), c0);
      _mm256_maskstore_ps(c + j, mask, _mm256_fmadd_ps(al, c0, _mm256_maskload_ps(c + j, mask)));
    }
  }
}
#endif

// Few rows of C with op(A) = A: dot products (B transposed) or row updates (B plain), no packing; columns
// [j0, j1) of C.
void gemm_small_m(const Problem& p, int j0, int j1) {
#ifdef COOKBOOK_X86
  if (has_avx2()) {
    if (p.tB)
      small_nt_avx2(p, j0, j1);
    else
      small_nn_avx2(p, j0, j1);
    return;
  }
#endif
  for (int i = 0; i < p.M; i++) {
    const float* a = p.A + (size_t)i * p.lda;
    float* c = p.C + (size_t)i * p.ldc;
    if (p.tB) {
      for (int j = j0; j < j1; j++) c[j] += p.alpha * dot(a, p.B + (size_t)j * p.ldb, p.K);
    } else {
      for (int k = 0; k < p.K; k++) axpy(p.alpha * a[k], p.B + (size_t)k * p.ldb + j0, c + j0, j1 - j0);
    }
  }
}

inline void cpu_relax() {
#ifdef COOKBOOK_X86
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Persistent workers (spawned on first use, never joined: they die with the process) that claim chunks of the
// current job from one atomic word (generation | chunk count | next chunk), so the caller also works through the
// chunks and never waits for a worker that has not started (on a busy machine a descheduled worker just does
// nothing). After a job a worker spins for SPIN_US, then sleeps on a condition variable: back-to-back small calls
// (decode) skip the wake-up, and an idle pool costs no CPU, in particular none while a BLAS call runs its own
// threads. One job at a time; a caller that finds the pool busy (another JS thread) runs its chunks itself.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool();
    return *pool;
  }

  // Runs f(c) for c in [0, chunks) on the caller and up to threads - 1 workers.
  template <typename F>
  void run(int threads, int chunks, F& f) {
    std::unique_lock<std::mutex> busy(run_mu_, std::try_to_lock);
    chunks = std::min(chunks, 0xffff);
    if (threads <= 1 || chunks <= 1 || !busy.owns_lock()) {
      for (int c = 0; c < chunks; c++) f(c);
      return;
    }
    threads = std::min(threads, 64);
    while ((int)workers_.size() < threads - 1) {
      const uint64_t st = state_.load();
      workers_.emplace_back([this, st] { loop(st); });
      workers_.back().detach();
    }
    fn_ = [](void* ctx, int c) { (*static_cast<F*>(ctx))(c); };
    ctx_ = &f;
    done_.store(0);
    const uint64_t gen = (state_.load() >> 32) + 1;
    state_.store((gen << 32) | ((uint64_t)chunks << 16));
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> lk(mu_);
      cv_.notify_all();
    }
    work();
    for (int spins = 0; done_.load(std::memory_order_acquire) < chunks; spins++) {
      if (spins < 4096)
        cpu_relax();
      else
        std::this_thread::yield();
    }
  }

 private:
  static constexpr int SPIN_US = 200;

  // Claims and runs chunks of the current job until none is left.
  void work() {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      const int n = (int)((s >> 16) & 0xffff), next = (int)(s & 0xffff);
      if (next >= n) return;
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) {
        fn_(ctx_, next);
        done_.fetch_add(1, std::memory_order_release);
        s = state_.load(std::memory_order_acquire);
      }
    }
  }

  void loop(uint64_t seen) {
    for (;;) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int spins = 0; state_.load(std::memory_order_acquire) >> 32 == seen >> 32; spins++) {
        cpu_relax();
        if ((spins & 255) == 255 && std::chrono::steady_clock::now() - t0 > std::chrono::microseconds(SPIN_US)) {
          std::unique_lock<std::mutex> lk(mu_);
          sleepers_.fetch_add(1);
          cv_.wait(lk, [&] { return state_.load() >> 32 != seen >> 32; });
          sleepers_.fetch_sub(1);
          break;
        }
      }
      seen = state_.load();
      work();
    }
  }

  std::mutex run_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> state_{0};
  std::atomic<int> done_{0};
  std::atomic<int> sleepers_{0};
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
};

// f(c) for c in [0, chunks) on up to `threads` threads.
template <typename F>
void parallel(int threads, int chunks, F&& f) {
  Pool::get().run(threads, chunks, f);
}

}  // namespace

const char* gemm_simd() { return has_avx2() ? "avx2" : "scalar"; }

void parallel_for(int threads, int chunks, void (*fn)(void*, int), void* ctx) {
  parallel(threads, chunks, [&](int c) { fn(ctx, c); });
}

void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
          int ldb, float beta, float* C, int ldc, int threads) {
  if (M <= 0 || N <= 0) return;
  if (beta != 1.0f) {
    for (int i = 0; i < M; i++) {
      float* c = C + (size_t)i * ldc;
      if (beta == 0.0f)
        std::memset(c, 0, sizeof(float) * N);
      else
        for (int j = 0; j < N; j++) c[j] *= beta;
    }
  }
  if (K <= 0 || alpha == 0.0f) return;
  const Problem p{transA, transB, M, N, K, alpha, A, lda, B, ldb, C, ldc};
  const double flops = 2.0 * M * N * K;
  const int want = std::max(1, threads);
  int nt = flops < 4e6 ? 1 : want;

  if (small_m_path(transA, transB, M)) {
    // One row is memory-bound (one core streams B nearly as fast as two): split the columns for a large B, or
    // when several rows make it compute-bound.
    const bool split = (double)N * K >= (1 << 20) || flops >= 8e6;
    const int nc = split ? std::min(4 * want, std::max(1, N / 256)) : 1;
    parallel(want, nc, [&](int c) {
      const int j0 = c == 0 ? 0 : (int)((long long)N * c / nc) / 8 * 8;
      const int j1 = c + 1 == nc ? N : (int)((long long)N * (c + 1) / nc) / 8 * 8;
      if (j1 > j0) gemm_small_m(p, j0, j1);
    });
    return;
  }
  if (nt == 1) {
    gemm_serial(p, local_buffers);
    return;
  }
  nt = std::min(nt, 64);
  std::lock_guard<std::mutex> lock(pool_mutex);
  // Split columns when there are enough of them, else rows.
  if (N >= nt * NR * 2 || N >= M) {
    parallel(nt, nt, [&](int t) {
      int j0 = (int)((long long)N * t / nt) / NR * NR, j1 = t + 1 == nt ? N : (int)((long long)N * (t + 1) / nt) / NR * NR;
      if (j1 <= j0) return;
      Problem q = p;
      q.N = j1 - j0;
      q.B = transB ? B + (size_t)j0 * ldb : B + j0;
      q.C = C + j0;
      gemm_serial(q, pool_buffers[t]);
    });
  } else {
    parallel(nt, nt, [&](int t) {
      int i0 = (int)((long long)M * t / nt) / MR * MR, i1 = t + 1 == nt ? M : (int)((long long)M * (t + 1) / nt) / MR * MR;
      if (i1 <= i0) return;
      Problem q = p;
      q.M = i1 - i0;
      q.A = transA ? A + i0 : A + (size_t)i0 * lda;
      q.C = C + (size_t)i0 * ldc;
      gemm_serial(q, pool_buffers[t]);
    });
  }
}


namespace {

inline float fp16_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  const uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
  uint32_t bits;
  if (e == 0) {
    const float f = (float)m * 5.9604644775390625e-8f;  // subnormal (or zero): m * 2^-24
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  } else if (e == 31) {
    bits = sign | 0x7f800000u | (m << 13);
  } else {
    bits = sign | ((e + 112) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline float bf16_to_float(uint16_t h) {
  const uint32_t bits = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool has_f16c() {
#ifdef COOKBOOK_X86
  static const bool ok = __builtin_cpu_supports("f16c");
  return ok;
#else
  return false;
#endif
}

#ifdef COOKBOOK_X86
__attribute__((target("avx2"))) void widen_bf16_avx2(const uint16_t* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i x = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_slli_epi32(x, 16));
  }
  for (; i < n; i++) dst[i] = bf16_to_float(src[i]);
}

__attribute__((target("avx,f16c"))) void widen_fp16_f16c(const uint16_t* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  for (; i < n; i++) dst[i] = fp16_to_float(src[i]);
}
#endif

// W rows widened per block of the small-M half product (fits L1/L2 for the widths of small models).
constexpr int HALF_JB = 8;
thread_local std::vector<float> half_rows;

}  // namespace

void widen_half(Half fmt, const uint16_t* src, float* dst, size_t n) {
#ifdef COOKBOOK_X86
  if (fmt == Half::BF16 && has_avx2()) return widen_bf16_avx2(src, dst, n);
  if (fmt == Half::FP16 && has_f16c()) return widen_fp16_f16c(src, dst, n);
#endif
  if (fmt == Half::BF16)
    for (size_t i = 0; i < n; i++) dst[i] = bf16_to_float(src[i]);
  else
    for (size_t i = 0; i < n; i++) dst[i] = fp16_to_float(src[i]);
}

void gemm_half_nt_small(Half fmt, int M, int N, int K, float alpha, const float* A, int lda, const uint16_t* W,
                        int ldw, float* C, int ldc, int threads) {
  if (M <= 0 || N <= 0 || K <= 0 || alpha == 0.0f) return;
  const int want = std::max(1, threads);
  // The float small-M path's column split.
  const bool split = (double)N * K >= (1 << 20) || 2.0 * M * N * K >= 8e6;
  const int nc = split ? std::min(4 * want, std::max(1, N / 256)) : 1;
#ifdef COOKBOOK_X86
  // Widened as loaded (the same per-element arithmetic as widening first, so the two paths agree exactly).
  if (has_avx2() && (fmt == Half::BF16 || has_f16c())) {
    parallel(want, nc, [&](int c) {
      const int j0 = c == 0 ? 0 : (int)((long long)N * c / nc) / 8 * 8;
      const int j1 = c + 1 == nc ? N : (int)((long long)N * (c + 1) / nc) / 8 * 8;
      if (j1 <= j0) return;
      if (fmt == Half::BF16)
        small_nt<LoadBf16>(A, lda, W, ldw, M, K, alpha, C, ldc, j0, j1);
      else
        small_nt<LoadFp16>(A, lda, W, ldw, M, K, alpha, C, ldc, j0, j1);
    });
    return;
  }
#endif
  // Blocks of HALF_JB rows of W widened into a per-thread buffer, then the float small-M path.
  const int blocks = (N + HALF_JB - 1) / HALF_JB;
  const int nb = std::min(nc, blocks);
  parallel(want, nb, [&](int c) {
    const int b0 = (int)((long long)blocks * c / nb), b1 = (int)((long long)blocks * (c + 1) / nb);
    std::vector<float>& buf = half_rows;
    if (buf.size() < (size_t)HALF_JB * K) buf.resize((size_t)HALF_JB * K);
    for (int b = b0; b < b1; b++) {
      const int j = b * HALF_JB;
      const int jb = std::min(HALF_JB, N - j);
      for (int r = 0; r < jb; r++) widen_half(fmt, W + (size_t)(j + r) * ldw, buf.data() + (size_t)r * K, K);
      const Problem q{false, true, M, jb, K, alpha, A, lda, buf.data(), K, C + j, ldc};
      gemm_small_m(q, 0, jb);
    }
  });
}

}  // namespace cookbook
