#pragma once
// Internal to backends/cuda: the 3xTF32 operands of an f32 product (matmul.cpp, tf32_split.cu). An f32 matrix x
// splits into big = tf32(x) and small = tf32(x - big); its copy holds three pieces along a tripled k: a's
// [big small big] and b's [small; big; big], so that one TF32 product sums big·small + small·big, then big·big.
#include <cstdint>

namespace scorch::backends::cuda::kernels {

/// Where split_tf32x3 reads a column-major matrix (rows × cols, per batch) and writes its pieces: always k-major (the
/// layout TF32 products run fastest on), as a column-major [3k, other] matrix per batch, its three k blocks in order.
struct Tf32x3Layout {
  uint32_t rows = 0, cols = 0, batch = 1;
  int64_t ld = 0, batch_stride = 0;  // the source's
  bool k_is_rows = true;             // else the source is transposed on the way (through shared memory)
  int64_t out_batch_stride = 0;      // the copy's: 0 for a source broadcast over the batch
  unsigned small_pieces = 0;         // bit p set: piece p holds the small part (else the big)
};

/// Writes src's three pieces into out as layout says, on device's stream (elements < 2^32).
void split_tf32x3(const float* src, float* out, const Tf32x3Layout& layout, int device);

}  // namespace scorch::backends::cuda::kernels
