// Pure-TS single-precision GEMM (BLAS sgemm semantics, row-major): the always-available numerical reference.
// Blocked i-k-j loops for the plain case, dot products for B transposed; A transposed is packed first when needed.

let packBuf = new Float32Array(0);

function packBuffer(n: number): Float32Array {
  if (packBuf.length < n) packBuf = new Float32Array(Math.max(n, packBuf.length * 2));
  return packBuf;
}

const KB = 256;
const NB = 512;

/**
 * C = alpha·op(A)·op(B) + beta·C with row-major storage; op(A) is M×K, op(B) is K×N, C is M×N.
 * `lda`/`ldb`/`ldc` are the row strides of the stored matrices.
 */
export function sgemmJs(
  transA: boolean,
  transB: boolean,
  M: number,
  N: number,
  K: number,
  alpha: number,
  A: Float32Array,
  lda: number,
  B: Float32Array,
  ldb: number,
  beta: number,
  C: Float32Array,
  ldc: number,
): void {
  if (beta !== 1) {
    for (let i = 0; i < M; i++) {
      const row = i * ldc;
      if (beta === 0) C.fill(0, row, row + N);
      else for (let j = 0; j < N; j++) C[row + j]! *= beta;
    }
  }
  if (K === 0 || alpha === 0 || M === 0 || N === 0) return;

  let a = A;
  let aStride = lda;
  let aT = transA;
  if (transA && transB) {
    // Pack A^T (M×K, contiguous) so the dot-product loop reads both operands contiguously.
    a = packBuffer(M * K);
    for (let k = 0; k < K; k++) {
      const src = k * lda;
      for (let i = 0; i < M; i++) a[i * K + k] = A[src + i]!;
    }
    aStride = K;
    aT = false;
  }

  if (transB) {
    // C[i,j] += alpha · Σ_k a[i,k]·B[j,k]
    for (let j0 = 0; j0 < N; j0 += 64) {
      const j1 = Math.min(N, j0 + 64);
      for (let i = 0; i < M; i++) {
        const ai = i * aStride;
        const ci = i * ldc;
        for (let j = j0; j < j1; j++) {
          const bj = j * ldb;
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          let k = 0;
          for (; k + 3 < K; k += 4) {
            s0 += a[ai + k]! * B[bj + k]!;
            s1 += a[ai + k + 1]! * B[bj + k + 1]!;
            s2 += a[ai + k + 2]! * B[bj + k + 2]!;
            s3 += a[ai + k + 3]! * B[bj + k + 3]!;
          }
          for (; k < K; k++) s0 += a[ai + k]! * B[bj + k]!;
          C[ci + j]! += alpha * (s0 + s1 + s2 + s3);
        }
      }
    }
    return;
  }

  // C[i,:] += alpha·a[i,k]·B[k,:], blocked over k and j so the B block stays in cache.
  for (let k0 = 0; k0 < K; k0 += KB) {
    const k1 = Math.min(K, k0 + KB);
    for (let j0 = 0; j0 < N; j0 += NB) {
      const j1 = Math.min(N, j0 + NB);
      for (let i = 0; i < M; i++) {
        const ci = i * ldc;
        for (let k = k0; k < k1; k++) {
          const aik = alpha * (aT ? a[k * aStride + i]! : a[i * aStride + k]!);
          if (aik === 0) continue;
          const bk = k * ldb;
          let j = j0;
          for (; j + 3 < j1; j += 4) {
            C[ci + j]! += aik * B[bk + j]!;
            C[ci + j + 1]! += aik * B[bk + j + 1]!;
            C[ci + j + 2]! += aik * B[bk + j + 2]!;
            C[ci + j + 3]! += aik * B[bk + j + 3]!;
          }
          for (; j < j1; j++) C[ci + j]! += aik * B[bk + j]!;
        }
      }
    }
  }
}
