#pragma once
// The packed GEMM of the Cpu backend: C[m, n] (+)= A[m, k] · B[k, n], cache-blocked as in
// BLIS (A micro-panels in L1, the B block in L2, deep KC so C is revisited rarely), with a register-tiled micro-kernel
// written with GCC vector extensions so it compiles to AVX-512, AVX2, SSE, NEON or WebAssembly SIMD. Operands are
// reached through packers, so convolution packs its im2col matrix on the fly instead of materialising it. The driver is
// single-threaded; callers split work across threads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace scorch::backends::cpu::gemm {

#if defined(__AVX512F__)
inline constexpr size_t kVecBytes = 64;
inline constexpr size_t kRows = 8, kVecs = 3;  // 8 × 48 f32: 24 accumulators of 32 registers
#elif defined(__AVX__)
inline constexpr size_t kVecBytes = 32;
inline constexpr size_t kRows = 6, kVecs = 2;  // 6 × 16 f32: 12 accumulators of 16 registers
#elif defined(__wasm_simd128__)
inline constexpr size_t kVecBytes = 16;
inline constexpr size_t kRows = 4, kVecs = 3;  // 4 × 12 f32: V8 keeps 12 accumulators in registers, 6 × 8 spills
#else
inline constexpr size_t kVecBytes = 16;
inline constexpr size_t kRows = 6, kVecs = 2;  // 6 × 8 f32
#endif

/// Tile and block sizes for element type T.
template <class T> struct Blocking {
  static constexpr size_t kLanes = kVecBytes / sizeof(T);
  static constexpr size_t kMR = kRows, kNR = kVecs * kLanes;
  static constexpr size_t kKC = 256, kMC = kMR * 16, kNC = kNR * 20;
};

/// A matrix in memory with row and column strides (in elements).
template <class T> struct Strided {
  const T* data;
  ptrdiff_t row_stride, col_stride;
  T at(size_t r, size_t c) const {
    return data[static_cast<ptrdiff_t>(r) * row_stride + static_cast<ptrdiff_t>(c) * col_stride];
  }
};

/// Packs rows [r0, r0+mr) × cols [c0, c0+kc) of an A operand into panels of kMR rows: dst[p·kMR + i].
template <class T> struct PackStridedA {
  Strided<T> a;
  void operator()(size_t r0, size_t mr, size_t c0, size_t kc, T* dst) const {
    constexpr size_t MR = Blocking<T>::kMR;
    if (mr == MR && a.col_stride == 1) {  // a full panel of contiguous rows: MR read streams, one write stream
      const T* rows[MR];
      for (size_t i = 0; i < MR; ++i) rows[i] = a.data + static_cast<ptrdiff_t>(r0 + i) * a.row_stride + c0;
      for (size_t p = 0; p < kc; ++p)
#pragma GCC unroll 8
        for (size_t i = 0; i < MR; ++i) dst[p * MR + i] = rows[i][p];
      return;
    }
    for (size_t i = 0; i < MR; ++i) {
      if (i >= mr) {
        for (size_t p = 0; p < kc; ++p) dst[p * MR + i] = T(0);
        continue;
      }
      const T* row = a.data + static_cast<ptrdiff_t>(r0 + i) * a.row_stride + static_cast<ptrdiff_t>(c0) * a.col_stride;
      for (size_t p = 0; p < kc; ++p) dst[p * MR + i] = row[static_cast<ptrdiff_t>(p) * a.col_stride];
    }
  }
};

/// Packs rows [r0, r0+kc) × cols [c0, c0+nc) of a B operand into panels of kNR columns:
/// column j of row p lands at dst[(j / kNR)·kc·kNR + p·kNR + j % kNR]; the last panel is zero-padded.
template <class T> struct PackStridedB {
  Strided<T> b;
  void operator()(size_t r0, size_t kc, size_t c0, size_t nc, T* dst) const;
};

/// Scatters one packed row p of nc contiguous values into the panel layout of PackStridedB.
template <class T> void scatter_row(const T* values, size_t p, size_t kc, size_t nc, T* dst) {
  constexpr size_t NR = Blocking<T>::kNR;
  size_t full = nc / NR * NR;
  for (size_t j0 = 0; j0 < full; j0 += NR) std::memcpy(dst + j0 * kc + p * NR, values + j0, NR * sizeof(T));
  if (full < nc) {
    T* row = dst + full * kc + p * NR;
    std::copy(values + full, values + nc, row);
    std::fill(row + (nc - full), row + NR, T(0));
  }
}

template <class T> void PackStridedB<T>::operator()(size_t r0, size_t kc, size_t c0, size_t nc, T* dst) const {
  constexpr size_t NR = Blocking<T>::kNR;
  if (b.row_stride == 1 && b.col_stride != 1) {  // a transposed operand: columns read contiguously, in square tiles
    constexpr size_t kTile = 16;                 // the tile's reads and writes stay within 16 cache lines each
    for (size_t j0 = 0; j0 < nc; j0 += NR) {
      T* panel = dst + j0 * kc;
      size_t nr = std::min(NR, nc - j0);
      const T* cols = b.data + static_cast<ptrdiff_t>(r0) + static_cast<ptrdiff_t>(c0 + j0) * b.col_stride;
      for (size_t p0 = 0; p0 < kc; p0 += kTile) {
        size_t p1 = std::min(kc, p0 + kTile);
        for (size_t jt = 0; jt < nr; jt += kTile)
          for (size_t j = jt; j < std::min(nr, jt + kTile); ++j) {
            const T* col = cols + static_cast<ptrdiff_t>(j) * b.col_stride;
            for (size_t p = p0; p < p1; ++p) panel[p * NR + j] = col[p];
          }
        for (size_t p = p0; p < p1; ++p)
          for (size_t j = nr; j < NR; ++j) panel[p * NR + j] = T(0);
      }
    }
    return;
  }
  for (size_t p = 0; p < kc; ++p) {
    const T* src = b.data + static_cast<ptrdiff_t>(r0 + p) * b.row_stride + static_cast<ptrdiff_t>(c0) * b.col_stride;
    if (b.col_stride == 1) {
      scatter_row(src, p, kc, nc, dst);
      continue;
    }
    for (size_t j0 = 0; j0 < nc; j0 += NR) {
      T* row = dst + j0 * kc + p * NR;
      size_t nr = std::min(NR, nc - j0);
      for (size_t j = 0; j < nr; ++j) row[j] = src[static_cast<ptrdiff_t>(j0 + j) * b.col_stride];
      std::fill(row + nr, row + NR, T(0));
    }
  }
}

/// v filled with *p, loaded straight from memory (a register broadcast would occupy an FMA port).
template <class Vec, class T> inline Vec broadcast(const T* p) {
#if defined(__AVX__)
  if constexpr (sizeof(Vec) >= 32 && sizeof(T) == 4) {
    Vec v;
    asm("vbroadcastss %1, %0" : "=v"(v) : "m"(*p));
    return v;
  } else if constexpr (sizeof(Vec) >= 32 && sizeof(T) == 8) {
    Vec v;
    asm("vbroadcastsd %1, %0" : "=v"(v) : "m"(*p));
    return v;
  }
#endif
  return Vec{} + *p;
}

/// The register tile: C[MR × NV·lanes] (+)= Apanel · the first NV vectors of Bpanel over kc steps; c has row stride
/// ldc. NV < kVecs serves narrow edge tiles (49 columns are one full tile and a one-vector tile, not two full ones).
template <class T, size_t NV = kVecs> void micro_kernel(size_t kc, const T* __restrict a, const T* __restrict b,
                                                        T* __restrict c, size_t ldc, bool accumulate) {
  using B = Blocking<T>;
  typedef T Vec __attribute__((vector_size(kVecBytes)));
  constexpr size_t MR = B::kMR, L = B::kLanes;
  Vec acc[MR][NV];
#pragma GCC unroll 8
  for (size_t i = 0; i < MR; ++i) {  // the C tile is needed only after the loop: fetch it meanwhile
    __builtin_prefetch(c + i * ldc, 1);
    __builtin_prefetch(c + i * ldc + B::kNR - 1, 1);
  }
#pragma GCC unroll 8
  for (size_t i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) acc[i][v] = Vec{};
  for (size_t p = 0; p < kc; ++p) {
    Vec bv[NV];
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) bv[v] = *reinterpret_cast<const Vec*>(b + p * B::kNR + v * L);
#pragma GCC unroll 8
    for (size_t i = 0; i < MR; ++i) {
      Vec av = broadcast<Vec>(a + p * MR + i);
#pragma GCC unroll 4
      for (size_t v = 0; v < NV; ++v) acc[i][v] += av * bv[v];
    }
  }
#pragma GCC unroll 8
  for (size_t i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) {
      T* dst = c + i * ldc + v * L;
      Vec out = acc[i][v];
      if (accumulate) {
        Vec old;
        std::memcpy(&old, dst, sizeof(Vec));
        out += old;
      }
      std::memcpy(dst, &out, sizeof(Vec));
    }
}

/// An edge tile of W ≤ 4 columns into tile (row stride kNR), vectorized down the kMR rows instead of across columns
/// (a 49-column product's last column costs one multiply-add per row and depth step, not a vector's worth); the
/// depth is split into 4 / W interleaved sums to hide the multiply-add latency.
template <class T, size_t W> void narrow_kernel(size_t kc, const T* a, const T* b, T* tile) {
  constexpr size_t MR = Blocking<T>::kMR, NR = Blocking<T>::kNR, U = W >= 4 ? 1 : 4 / W;
  typedef T Col __attribute__((vector_size(MR * sizeof(T))));
  Col acc[W][U] = {};
  size_t p = 0;
  for (; p + U <= kc; p += U)
#pragma GCC unroll 4
    for (size_t u = 0; u < U; ++u) {
      Col av = *reinterpret_cast<const Col*>(a + (p + u) * MR);
#pragma GCC unroll 4
      for (size_t j = 0; j < W; ++j) acc[j][u] += av * b[(p + u) * NR + j];
    }
  for (; p < kc; ++p) {
    Col av = *reinterpret_cast<const Col*>(a + p * MR);
    for (size_t j = 0; j < W; ++j) acc[j][0] += av * b[p * NR + j];
  }
  for (size_t j = 0; j < W; ++j) {
    Col sum = acc[j][0];
    for (size_t u = 1; u < U; ++u) sum += acc[j][u];
    for (size_t i = 0; i < MR; ++i) tile[i * NR + j] = sum[i];
  }
}

/// An edge tile of nr ≤ kNR columns into tile (row stride kNR), with as few vectors as cover nr.
template <class T> void edge_kernel(size_t kc, const T* a, const T* b, T* tile, size_t nr) {
  constexpr size_t L = Blocking<T>::kLanes, NR = Blocking<T>::kNR, MR = Blocking<T>::kMR;
  if constexpr ((MR & (MR - 1)) == 0 && MR * sizeof(T) >= 16) {  // the rows fill whole vectors
    switch (nr) {
      case 1: return narrow_kernel<T, 1>(kc, a, b, tile);
      case 2: return narrow_kernel<T, 2>(kc, a, b, tile);
      case 3: return narrow_kernel<T, 3>(kc, a, b, tile);
      case 4: return narrow_kernel<T, 4>(kc, a, b, tile);
      default: break;
    }
  }
  size_t vectors = (nr + L - 1) / L;
  if constexpr (kVecs > 2) {
    if (vectors == 1) return micro_kernel<T, 1>(kc, a, b, tile, NR, false);
    if (vectors == 2) return micro_kernel<T, 2>(kc, a, b, tile, NR, false);
  } else {
    if (vectors == 1) return micro_kernel<T, 1>(kc, a, b, tile, NR, false);
  }
  micro_kernel<T>(kc, a, b, tile, NR, false);
}

/// Per-thread packing buffers, kept between calls (bounded by the block sizes).
template <class T> struct Workspace {
  std::vector<T, std::allocator<T>> a, b;
  T tile[Blocking<T>::kMR * Blocking<T>::kNR];
  static Workspace& local() {
    thread_local Workspace w;
    return w;
  }
};

/// How run splits a product's columns and depth into blocks: equal ones (n = 3136 splits 1584 + 1552 rather than
/// 3072 + 64), the column blocks whole panels.
template <class T> struct Blocks {
  size_t n, k, block_n, block_k;
  Blocks(size_t n_, size_t k_) : n(n_), k(k_) {
    using B = Blocking<T>;
    size_t col_blocks = (n + B::kNC - 1) / B::kNC, depth_blocks = (k + B::kKC - 1) / B::kKC;
    block_n = ((n + col_blocks - 1) / col_blocks + B::kNR - 1) / B::kNR * B::kNR;
    block_k = (k + depth_blocks - 1) / depth_blocks;
  }
  /// Where block (jc, pc) of a B packed whole starts: the blocks one after another, column blocks outermost.
  size_t offset(size_t jc, size_t pc) const {
    size_t nc = std::min(block_n, n - jc);
    return jc * k + pc * ((nc + Blocking<T>::kNR - 1) / Blocking<T>::kNR * Blocking<T>::kNR);
  }
  /// Values of a B packed whole.
  size_t packed_size() const { return (n + Blocking<T>::kNR - 1) / Blocking<T>::kNR * Blocking<T>::kNR * k; }
};

/// A B operand packed whole by pack_whole_b, which run reads in place (threads splitting A's rows share it).
template <class T> struct PackedB { const T* data; };

/// Packs B [k, n] whole into dst (Blocks::packed_size values), one block per call of for_blocks(count, body).
template <class T, class PackB, class ForBlocks>
void pack_whole_b(size_t n, size_t k, const PackB& pack_b, T* dst, ForBlocks for_blocks) {
  Blocks<T> blk(n, k);
  size_t depth_blocks = (k + blk.block_k - 1) / blk.block_k, col_blocks = (n + blk.block_n - 1) / blk.block_n;
  for_blocks(depth_blocks * col_blocks, [&](size_t i) {
    size_t jc = i / depth_blocks * blk.block_n, pc = i % depth_blocks * blk.block_k;
    pack_b(pc, std::min(blk.block_k, k - pc), jc, std::min(blk.block_n, n - jc), dst + blk.offset(jc, pc));
  });
}

/// C[m, n] = A·B (or += when accumulate) on the calling thread; c has row stride ldc.
template <class T, class PackA, class PackB>
void run(size_t m, size_t n, size_t k, const PackA& pack_a, const PackB& pack_b, T* c, size_t ldc, bool accumulate) {
  using B = Blocking<T>;
  constexpr size_t MR = B::kMR, NR = B::kNR;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate)
      for (size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  constexpr bool prepacked = std::is_same_v<PackB, PackedB<T>>;
  auto& ws = Workspace<T>::local();
  ws.a.resize(B::kMC * B::kKC + 16);
  if (!prepacked) ws.b.resize(B::kNC * B::kKC + 16);
  T* abuf = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(ws.a.data()) + 63) & ~uintptr_t(63));
  T* bbuf = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(ws.b.data()) + 63) & ~uintptr_t(63));
  Blocks<T> blk(n, k);
  const size_t block_n = blk.block_n, block_k = blk.block_k;
  for (size_t jc = 0; jc < n; jc += block_n) {
    size_t nc = std::min(block_n, n - jc);
    for (size_t pc = 0; pc < k; pc += block_k) {
      size_t kc = std::min(block_k, k - pc);
      bool acc = accumulate || pc > 0;
      if constexpr (prepacked) bbuf = const_cast<T*>(pack_b.data) + blk.offset(jc, pc);
      else pack_b(pc, kc, jc, nc, bbuf);
      for (size_t ic = 0; ic < m; ic += B::kMC) {
        size_t mc = std::min(B::kMC, m - ic);
        for (size_t ir = 0; ir < mc; ir += MR) pack_a(ic + ir, std::min(MR, mc - ir), pc, kc, abuf + ir * kc);
        for (size_t ir = 0; ir < mc; ir += MR) {  // the A panel stays in L1, B panels stream from L2
          size_t mr = std::min(MR, mc - ir);
          for (size_t jr = 0; jr < nc; jr += NR) {
            size_t nr = std::min(NR, nc - jr);
            T* cp = c + (ic + ir) * ldc + jc + jr;
            if (mr == MR && nr == NR) {
              micro_kernel<T>(kc, abuf + ir * kc, bbuf + jr * kc, cp, ldc, acc);
            } else {
              edge_kernel<T>(kc, abuf + ir * kc, bbuf + jr * kc, ws.tile, nr);
              for (size_t i = 0; i < mr; ++i)
                for (size_t j = 0; j < nr; ++j)
                  cp[i * ldc + j] = acc ? cp[i * ldc + j] + ws.tile[i * NR + j] : ws.tile[i * NR + j];
            }
          }
        }
      }
    }
  }
}

/// C = A·B for strided A and B (the common case of matmul).
template <class T>
void strided(size_t m, size_t n, size_t k, Strided<T> a, Strided<T> b, T* c, size_t ldc, bool accumulate) {
  run<T>(m, n, k, PackStridedA<T>{a}, PackStridedB<T>{b}, c, ldc, accumulate);
}

}  // namespace scorch::backends::cpu::gemm
