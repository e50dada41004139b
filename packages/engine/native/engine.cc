// N-API entry points of the engine's native kernel: sgemm (cblas when linked, else the built-in kernel; few-row
// products always use the built-in unpacked path), the row-wise ops of ops.h, setThreads and info.
// Context-aware (NAPI_MODULE_INIT), so it loads in worker threads too. Every array extent is checked here.
#include <node_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gemm.h"
#include "ops.h"

#if defined(COOKBOOK_OPENBLAS)
#include <cblas.h>
#define COOKBOOK_BLAS_NAME "openblas"
#elif defined(COOKBOOK_ACCELERATE)
#include <Accelerate/Accelerate.h>
#define COOKBOOK_BLAS_NAME "accelerate"
#endif

namespace {

std::atomic<int> g_threads{0};

int threads() {
  int t = g_threads.load();
  if (t <= 0) {
    t = (int)std::thread::hardware_concurrency();
    if (t <= 0) t = 1;
  }
  return t;
}

napi_value throw_error(napi_env env, const char* msg) {
  napi_throw_type_error(env, nullptr, msg);
  return nullptr;
}

bool get_f32(napi_env env, napi_value v, float** data, size_t* len) {
  bool is_ta = false;
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta) return false;
  napi_typedarray_type type;
  void* ptr = nullptr;
  napi_value ab;
  size_t offset = 0;
  if (napi_get_typedarray_info(env, v, &type, len, &ptr, &ab, &offset) != napi_ok) return false;
  if (type != napi_float32_array) return false;
  *data = static_cast<float*>(ptr);
  return true;
}

template <typename T>
bool get_typed(napi_env env, napi_value v, napi_typedarray_type want, T** data, size_t* len) {
  bool is_ta = false;
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta) return false;
  napi_typedarray_type type;
  void* ptr = nullptr;
  napi_value ab;
  size_t offset = 0;
  if (napi_get_typedarray_info(env, v, &type, len, &ptr, &ab, &offset) != napi_ok) return false;
  if (type != want) return false;
  *data = static_cast<T*>(ptr);
  return true;
}

bool get_int(napi_env env, napi_value v, int* out) {
  int32_t x;
  if (napi_get_value_int32(env, v, &x) != napi_ok) return false;
  *out = x;
  return true;
}

bool get_num(napi_env env, napi_value v, double* out) { return napi_get_value_double(env, v, out) == napi_ok; }

// sgemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc); bounds are checked by the JS wrapper and
// again here.
napi_value Sgemm(napi_env env, napi_callback_info info) {
  size_t argc = 13;
  napi_value argv[13];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc != 13) return throw_error(env, "sgemm expects 13 arguments");
  bool tA = false, tB = false;
  if (napi_get_value_bool(env, argv[0], &tA) != napi_ok || napi_get_value_bool(env, argv[1], &tB) != napi_ok)
    return throw_error(env, "sgemm: transA/transB must be booleans");
  int M, N, K, lda, ldb, ldc;
  double alpha, beta;
  float *A, *B, *C;
  size_t la, lb, lc;
  if (!get_int(env, argv[2], &M) || !get_int(env, argv[3], &N) || !get_int(env, argv[4], &K) ||
      !get_num(env, argv[5], &alpha) || !get_int(env, argv[7], &lda) || !get_int(env, argv[9], &ldb) ||
      !get_num(env, argv[10], &beta) || !get_int(env, argv[12], &ldc))
    return throw_error(env, "sgemm: sizes must be numbers");
  if (!get_f32(env, argv[6], &A, &la) || !get_f32(env, argv[8], &B, &lb) || !get_f32(env, argv[11], &C, &lc))
    return throw_error(env, "sgemm: A, B and C must be Float32Arrays");
  if (M < 0 || N < 0 || K < 0) return throw_error(env, "sgemm: negative size");
  auto need = [](int rows, int cols, int ld) -> size_t {
    return rows == 0 || cols == 0 ? 0 : (size_t)(rows - 1) * ld + cols;
  };
  if (need(tA ? K : M, tA ? M : K, lda) > la || need(tB ? N : K, tB ? K : N, ldb) > lb || need(M, N, ldc) > lc)
    return throw_error(env, "sgemm: array too small for the given sizes");
  if (M == 0 || N == 0) return nullptr;
#ifdef COOKBOOK_BLAS_NAME
  if (K == 0 || cookbook::small_m_path(tA, tB, M)) {
    cookbook::gemm(tA, tB, M, N, K, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc, threads());
    return nullptr;
  }
  cblas_sgemm(CblasRowMajor, tA ? CblasTrans : CblasNoTrans, tB ? CblasTrans : CblasNoTrans, M, N, K, (float)alpha, A,
              lda, B, ldb, (float)beta, C, ldc);
#else
  cookbook::gemm(tA, tB, M, N, K, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc, threads());
#endif
  return nullptr;
}


// Blocks of W rows widened at a time for a half product with more rows than the small-M path takes (prefill).
constexpr size_t HALF_BLOCK_FLOATS = (size_t)1 << 20;
thread_local std::vector<float> g_half_block;

// hgemmNT(format, M, N, K, alpha, A, lda, W, ldw, beta, C, ldc): C = alpha * A * W^T + beta * C with W (N x K) a
// Uint16Array of bf16 (format 0) or fp16 (format 1) values. Up to SMALL_M_NT rows: the small-M path on widened
// blocks (row-independent, like sgemm's); more rows: blocks of W widened to float and multiplied like sgemm does.
napi_value HgemmNT(napi_env env, napi_callback_info info) {
  size_t argc = 12;
  napi_value argv[12];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc != 12) return throw_error(env, "hgemmNT expects 12 arguments");
  int fmt, M, N, K, lda, ldw, ldc;
  double alpha, beta;
  float *A, *C;
  uint16_t* W;
  size_t la, lw, lc;
  if (!get_int(env, argv[0], &fmt) || !get_int(env, argv[1], &M) || !get_int(env, argv[2], &N) ||
      !get_int(env, argv[3], &K) || !get_num(env, argv[4], &alpha) || !get_int(env, argv[6], &lda) ||
      !get_int(env, argv[8], &ldw) || !get_num(env, argv[9], &beta) || !get_int(env, argv[11], &ldc))
    return throw_error(env, "hgemmNT: sizes must be numbers");
  if (fmt != 0 && fmt != 1) return throw_error(env, "hgemmNT: format must be 0 (bf16) or 1 (fp16)");
  if (!get_f32(env, argv[5], &A, &la) || !get_typed(env, argv[7], napi_uint16_array, &W, &lw) ||
      !get_f32(env, argv[10], &C, &lc))
    return throw_error(env, "hgemmNT: A and C must be Float32Arrays, W a Uint16Array");
  if (M < 0 || N < 0 || K < 0 || lda < K || ldw < K || ldc < N) return throw_error(env, "hgemmNT: bad sizes");
  auto need = [](int rows, int cols, int ld) -> size_t {
    return rows == 0 || cols == 0 ? 0 : (size_t)(rows - 1) * ld + cols;
  };
  if (need(M, K, lda) > la || need(N, K, ldw) > lw || need(M, N, ldc) > lc)
    return throw_error(env, "hgemmNT: array too small for the given sizes");
  if (M == 0 || N == 0) return nullptr;
  const cookbook::Half f = fmt == 0 ? cookbook::Half::BF16 : cookbook::Half::FP16;
  if (M <= cookbook::SMALL_M_NT || K == 0) {
    cookbook::gemm(false, true, M, N, 0, 1.0f, A, lda, nullptr, K, (float)beta, C, ldc, 1);  // applies beta
    cookbook::gemm_half_nt_small(f, M, N, K, (float)alpha, A, lda, W, ldw, C, ldc, threads());
    return nullptr;
  }
  const int jb = (int)std::max<size_t>(64, HALF_BLOCK_FLOATS / (size_t)K);
  std::vector<float>& buf = g_half_block;
  if (buf.size() < (size_t)jb * K) buf.resize((size_t)jb * K);
  for (int j = 0; j < N; j += jb) {
    const int n = std::min(jb, N - j);
    for (int r = 0; r < n; r++) cookbook::widen_half(f, W + (size_t)(j + r) * ldw, buf.data() + (size_t)r * K, K);
#ifdef COOKBOOK_BLAS_NAME
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, n, K, (float)alpha, A, lda, buf.data(), K, (float)beta,
                C + j, ldc);
#else
    cookbook::gemm(false, true, M, n, K, (float)alpha, A, lda, buf.data(), K, (float)beta, C + j, ldc, threads());
#endif
  }
  return nullptr;
}

// ---- row-wise ops. Argument readers that record the first failure; checks run before any memory is touched.
struct Args {
  napi_env env;
  napi_value argv[16];
  size_t argc = 16;
  bool ok = true;
  Args(napi_env e, napi_callback_info info, size_t want) : env(e) {
    napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
    if (argc != want) ok = false;
  }
  int i(size_t k) {
    int v = 0;
    if (ok && (!get_int(env, argv[k], &v))) ok = false;
    return v;
  }
  double d(size_t k) {
    double v = 0;
    if (ok && !get_num(env, argv[k], &v)) ok = false;
    return v;
  }
  bool b(size_t k) {
    bool v = false;
    if (ok && napi_get_value_bool(env, argv[k], &v) != napi_ok) ok = false;
    return v;
  }
  template <typename T>
  T* arr(size_t k, napi_typedarray_type type, size_t* len) {
    T* p = nullptr;
    *len = 0;
    if (ok && !get_typed(env, argv[k], type, &p, len)) ok = false;
    return p;
  }
  float* f32(size_t k, size_t* len) { return arr<float>(k, napi_float32_array, len); }
  double* f64(size_t k, size_t* len) { return arr<double>(k, napi_float64_array, len); }
  int32_t* i32(size_t k, size_t* len) { return arr<int32_t>(k, napi_int32_array, len); }
};

// Elements a rows x cols matrix with row stride ld spans.
bool fits(size_t len, int rows, int cols, int ld) {
  if (rows < 0 || cols < 0 || ld < cols) return false;
  return rows == 0 || cols == 0 || (size_t)(rows - 1) * ld + cols <= len;
}

// softmaxCausal(att, ld, T, width, off)
napi_value SoftmaxCausal(napi_env env, napi_callback_info info) {
  Args a(env, info, 5);
  size_t n;
  float* att = a.f32(0, &n);
  const int ld = a.i(1), T = a.i(2), width = a.i(3), off = a.i(4);
  if (!a.ok) return throw_error(env, "softmaxCausal: bad arguments");
  if (!fits(n, T, width, ld)) return throw_error(env, "softmaxCausal: array too small for the given sizes");
  cookbook::softmax_causal(att, ld, T, width, off);
  return nullptr;
}

// softmaxCausalBackward(att, datt, ld, T, width, off)
napi_value SoftmaxCausalBackward(napi_env env, napi_callback_info info) {
  Args a(env, info, 6);
  size_t n1, n2;
  float* att = a.f32(0, &n1);
  float* datt = a.f32(1, &n2);
  const int ld = a.i(2), T = a.i(3), width = a.i(4), off = a.i(5);
  if (!a.ok) return throw_error(env, "softmaxCausalBackward: bad arguments");
  if (!fits(n1, T, width, ld) || !fits(n2, T, width, ld))
    return throw_error(env, "softmaxCausalBackward: array too small for the given sizes");
  cookbook::softmax_causal_backward(att, datt, ld, T, width, off);
  return nullptr;
}

// logSumExpRows(lse, x, T, V)
napi_value LogSumExpRows(napi_env env, napi_callback_info info) {
  Args a(env, info, 4);
  size_t nl, nx;
  double* lse = a.f64(0, &nl);
  float* x = a.f32(1, &nx);
  const int T = a.i(2), V = a.i(3);
  if (!a.ok) return throw_error(env, "logSumExpRows: bad arguments");
  if (V < 1 || !fits(nx, T, V, V) || (size_t)std::max(T, 0) > nl)
    return throw_error(env, "logSumExpRows: array too small for the given sizes");
  cookbook::logsumexp_rows(lse, x, T, V);
  return nullptr;
}

// softmaxRowsUnnormalized(lse, invSum, x, T, V)
napi_value SoftmaxRowsUnnormalized(napi_env env, napi_callback_info info) {
  Args a(env, info, 5);
  size_t nl, ns, nx;
  double* lse = a.f64(0, &nl);
  double* inv = a.f64(1, &ns);
  float* x = a.f32(2, &nx);
  const int T = a.i(3), V = a.i(4);
  if (!a.ok) return throw_error(env, "softmaxRowsUnnormalized: bad arguments");
  if (V < 1 || !fits(nx, T, V, V) || (size_t)std::max(T, 0) > nl || (size_t)std::max(T, 0) > ns)
    return throw_error(env, "softmaxRowsUnnormalized: array too small for the given sizes");
  cookbook::softmax_rows_unnormalized(lse, inv, x, T, V);
  return nullptr;
}

// softmaxGradRows(e, invSum, targets, g, T, V, K)
napi_value SoftmaxGradRows(napi_env env, napi_callback_info info) {
  Args a(env, info, 7);
  size_t ne, ns, nt, ng;
  float* e = a.f32(0, &ne);
  double* inv = a.f64(1, &ns);
  int32_t* tg = a.i32(2, &nt);
  double* g = a.f64(3, &ng);
  const int T = a.i(4), V = a.i(5), K = a.i(6);
  if (!a.ok) return throw_error(env, "softmaxGradRows: bad arguments");
  if (V < 1 || K < 0 || !fits(ne, T, V, V) || (size_t)std::max(T, 0) > ns || (size_t)T * K > nt ||
      (size_t)T * K > ng)
    return throw_error(env, "softmaxGradRows: array too small for the given sizes");
  for (size_t i = 0; i < (size_t)T * K; i++)
    if (tg[i] < 0 || tg[i] >= V) return throw_error(env, "softmaxGradRows: target outside [0, V)");
  cookbook::softmax_grad_rows(e, inv, tg, g, T, V, K);
  return nullptr;
}

// swigluForward(act, gu, T, I)
napi_value SwigluForward(napi_env env, napi_callback_info info) {
  Args a(env, info, 4);
  size_t na, ng;
  float* act = a.f32(0, &na);
  float* gu = a.f32(1, &ng);
  const int T = a.i(2), I = a.i(3);
  if (!a.ok) return throw_error(env, "swigluForward: bad arguments");
  if (I < 0 || !fits(na, T, I, I) || !fits(ng, T, 2 * I, 2 * I))
    return throw_error(env, "swigluForward: array too small for the given sizes");
  cookbook::swiglu_forward(act, gu, T, I);
  return nullptr;
}

// swigluBackward(dgu, dact, gu, T, I)
napi_value SwigluBackward(napi_env env, napi_callback_info info) {
  Args a(env, info, 5);
  size_t nd, na, ng;
  float* dgu = a.f32(0, &nd);
  float* dact = a.f32(1, &na);
  float* gu = a.f32(2, &ng);
  const int T = a.i(3), I = a.i(4);
  if (!a.ok) return throw_error(env, "swigluBackward: bad arguments");
  if (I < 0 || !fits(nd, T, 2 * I, 2 * I) || !fits(na, T, I, I) || !fits(ng, T, 2 * I, 2 * I))
    return throw_error(env, "swigluBackward: array too small for the given sizes");
  cookbook::swiglu_backward(dgu, dact, gu, T, I);
  return nullptr;
}

// rmsnormForward(y, ldy, rstd, x, ldx, w, R, C, eps)
napi_value RmsnormForward(napi_env env, napi_callback_info info) {
  Args a(env, info, 9);
  size_t ny, nr, nx, nw;
  float* y = a.f32(0, &ny);
  const int ldy = a.i(1);
  float* rstd = a.f32(2, &nr);
  float* x = a.f32(3, &nx);
  const int ldx = a.i(4);
  float* w = a.f32(5, &nw);
  const int R = a.i(6), C = a.i(7);
  const double eps = a.d(8);
  if (!a.ok) return throw_error(env, "rmsnormForward: bad arguments");
  if (C < 1 || !fits(ny, R, C, ldy) || !fits(nx, R, C, ldx) || (size_t)C > nw || (size_t)std::max(R, 0) > nr)
    return throw_error(env, "rmsnormForward: array too small for the given sizes");
  cookbook::rmsnorm_forward(y, ldy, rstd, x, ldx, w, R, C, (float)eps);
  return nullptr;
}

// rmsnormBackward(dx, lddx, dy, lddy, x, ldx, rstd, w, R, C, accumulate)
napi_value RmsnormBackward(napi_env env, napi_callback_info info) {
  Args a(env, info, 11);
  size_t ndx, ndy, nx, nr, nw;
  float* dx = a.f32(0, &ndx);
  const int lddx = a.i(1);
  float* dy = a.f32(2, &ndy);
  const int lddy = a.i(3);
  float* x = a.f32(4, &nx);
  const int ldx = a.i(5);
  float* rstd = a.f32(6, &nr);
  float* w = a.f32(7, &nw);
  const int R = a.i(8), C = a.i(9);
  const bool acc = a.b(10);
  if (!a.ok) return throw_error(env, "rmsnormBackward: bad arguments");
  if (C < 1 || !fits(ndx, R, C, lddx) || !fits(ndy, R, C, lddy) || !fits(nx, R, C, ldx) || (size_t)C > nw ||
      (size_t)std::max(R, 0) > nr)
    return throw_error(env, "rmsnormBackward: array too small for the given sizes");
  cookbook::rmsnorm_backward(dx, lddx, dy, lddy, x, ldx, rstd, w, R, C, acc);
  return nullptr;
}

// sampleRow(x, V, invT, u) -> token
napi_value SampleRow(napi_env env, napi_callback_info info) {
  Args a(env, info, 4);
  size_t nx;
  float* x = a.f32(0, &nx);
  const int V = a.i(1);
  const double inv_t = a.d(2), u = a.d(3);
  if (!a.ok) return throw_error(env, "sampleRow: bad arguments");
  if (V < 1 || (size_t)V > nx) return throw_error(env, "sampleRow: array too small for the given sizes");
  if (!(inv_t > 0) || !(u >= 0 && u < 1)) return throw_error(env, "sampleRow: invT must be > 0 and u in [0, 1)");
  napi_value out;
  napi_create_int32(env, cookbook::sample_row(x, V, (float)inv_t, u), &out);
  return out;
}

// attentionDecode(o, q, k, ldk, v, ldv, S, H, KV, D)
napi_value AttentionDecode(napi_env env, napi_callback_info info) {
  Args a(env, info, 10);
  size_t no, nq, nk, nv;
  float* o = a.f32(0, &no);
  float* q = a.f32(1, &nq);
  float* k = a.f32(2, &nk);
  const int ldk = a.i(3);
  float* v = a.f32(4, &nv);
  const int ldv = a.i(5), S = a.i(6), H = a.i(7), KV = a.i(8), D = a.i(9);
  if (!a.ok) return throw_error(env, "attentionDecode: bad arguments");
  if (S < 1 || H < 1 || KV < 1 || D < 1 || H % KV != 0 || (size_t)H * D > no || (size_t)H * D > nq ||
      !fits(nk, S, KV * D, ldk) || !fits(nv, S, KV * D, ldv))
    return throw_error(env, "attentionDecode: array too small for the given sizes");
  cookbook::attention_decode(o, q, k, ldk, v, ldv, S, H, KV, D);
  return nullptr;
}

// ropeRows(x, ld, pos, T, H, D, cos, sin, inverse)
napi_value RopeRows(napi_env env, napi_callback_info info) {
  Args a(env, info, 9);
  size_t nx, np, nc, ns;
  float* x = a.f32(0, &nx);
  const int ld = a.i(1);
  int32_t* pos = a.i32(2, &np);
  const int T = a.i(3), H = a.i(4), D = a.i(5);
  float* cos = a.f32(6, &nc);
  float* sin = a.f32(7, &ns);
  const bool inverse = a.b(8);
  if (!a.ok) return throw_error(env, "ropeRows: bad arguments");
  if (T < 0 || H < 1 || D < 2 || D % 2 != 0 || (int64_t)H * D > ld || (size_t)T > np || !fits(nx, T, H * D, ld) ||
      nc != ns)
    return throw_error(env, "ropeRows: array too small for the given sizes");
  const size_t half = (size_t)D / 2;
  for (int t = 0; t < T; t++)
    if (pos[t] < 0 || ((size_t)pos[t] + 1) * half > nc)
      return throw_error(env, "ropeRows: a position lies outside the cos/sin tables");
  cookbook::rope_rows(x, ld, pos, T, H, D, cos, sin, inverse);
  return nullptr;
}

// attentionDecodeBatch(o, q, k, v, ld, first, lens, B, H, KV, D)
napi_value AttentionDecodeBatch(napi_env env, napi_callback_info info) {
  Args a(env, info, 11);
  size_t no, nq, nk, nv, nf, nl;
  float* o = a.f32(0, &no);
  float* q = a.f32(1, &nq);
  float* k = a.f32(2, &nk);
  float* v = a.f32(3, &nv);
  const int ld = a.i(4);
  int32_t* first = a.i32(5, &nf);
  int32_t* lens = a.i32(6, &nl);
  const int B = a.i(7), H = a.i(8), KV = a.i(9), D = a.i(10);
  if (!a.ok) return throw_error(env, "attentionDecodeBatch: bad arguments");
  if (B < 0 || H < 1 || KV < 1 || D < 1 || H % KV != 0 || ld < KV * D || (size_t)B > nf || (size_t)B > nl ||
      (size_t)B * H * D > no || (size_t)B * H * D > nq)
    return throw_error(env, "attentionDecodeBatch: array too small for the given sizes");
  for (int b = 0; b < B; b++) {
    const int64_t rows = (int64_t)first[b] + lens[b];
    if (first[b] < 0 || lens[b] < 1 || rows > INT32_MAX || !fits(nk, (int)rows, KV * D, ld) ||
        !fits(nv, (int)rows, KV * D, ld))
      return throw_error(env, "attentionDecodeBatch: a sequence's rows lie outside the cache");
  }
  cookbook::attention_decode_batch(o, q, k, v, ld, first, lens, B, H, KV, D, threads());
  return nullptr;
}

napi_value SetThreads(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  int n = 0;
  if (argc != 1 || !get_int(env, argv[0], &n) || n < 1) return throw_error(env, "setThreads expects a positive integer");
  g_threads.store(n);
#ifdef COOKBOOK_OPENBLAS
  openblas_set_num_threads(n);
#endif
  return nullptr;
}

napi_value Info(napi_env env, napi_callback_info) {
  napi_value obj, blas, simd, th, rows;
  napi_create_object(env, &obj);
#ifdef COOKBOOK_BLAS_NAME
  napi_create_string_utf8(env, COOKBOOK_BLAS_NAME, NAPI_AUTO_LENGTH, &blas);
#else
  napi_get_null(env, &blas);
#endif
  napi_create_string_utf8(env, cookbook::gemm_simd(), NAPI_AUTO_LENGTH, &simd);
  napi_create_int32(env, threads(), &th);
  napi_set_named_property(env, obj, "blas", blas);
  napi_set_named_property(env, obj, "simd", simd);
  napi_set_named_property(env, obj, "threads", th);
  napi_create_int32(env, cookbook::SMALL_M_NT, &rows);
  napi_set_named_property(env, obj, "rowIndependentRows", rows);
  return obj;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"sgemm", nullptr, Sgemm, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"setThreads", nullptr, SetThreads, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"hgemmNT", nullptr, HgemmNT, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"info", nullptr, Info, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"softmaxCausal", nullptr, SoftmaxCausal, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"softmaxCausalBackward", nullptr, SoftmaxCausalBackward, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"logSumExpRows", nullptr, LogSumExpRows, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"softmaxRowsUnnormalized", nullptr, SoftmaxRowsUnnormalized, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"softmaxGradRows", nullptr, SoftmaxGradRows, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"swigluForward", nullptr, SwigluForward, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"swigluBackward", nullptr, SwigluBackward, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"rmsnormForward", nullptr, RmsnormForward, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"rmsnormBackward", nullptr, RmsnormBackward, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"sampleRow", nullptr, SampleRow, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"attentionDecode", nullptr, AttentionDecode, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"attentionDecodeBatch", nullptr, AttentionDecodeBatch, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"ropeRows", nullptr, RopeRows, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}
