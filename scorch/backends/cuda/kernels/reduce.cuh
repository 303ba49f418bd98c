#pragma once
// Reductions along one dim of a contiguous tensor seen as [outer, n, inner] (nvcc only). A reducer
// R gives the accumulator type Acc, identity(), make(value, index), combine(a, b) and finish(acc, n).
#include <algorithm>

#include "scorch/backends/cuda/kernels/device.cuh"

namespace scorch::backends::cuda {

/// The [outer, n, inner] split of a shape around dim.
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
  Lanes(const Shape& s, size_t dim) {
    for (size_t i = 0; i < dim; ++i) outer *= static_cast<int64_t>(s[i]);
    n = static_cast<int64_t>(s[dim]);
    for (size_t i = dim + 1; i < s.rank(); ++i) inner *= static_cast<int64_t>(s[i]);
  }
};

/// shape with dim set to 1.
inline Shape keep_dim(Shape s, size_t dim) {
  s[dim] = 1;
  return s;
}

// Rows (inner == 1): block (row, split) folds x[row, split*chunk ..) and writes the result, or the
// partial accumulator when partial is set. kPartial: x holds accumulators already.
template <class In, class Out, class R, bool kPartial>
__global__ void reduce_rows_kernel(const In* x, Out* out, typename R::Acc* partial, int64_t n, int64_t chunk,
                                   int64_t count, R r) {
  using Acc = typename R::Acc;
  __shared__ Acc buf[kThreads];
  int64_t row = blockIdx.x, begin = static_cast<int64_t>(blockIdx.y) * chunk;
  int64_t end = begin + chunk < n ? begin + chunk : n;
  const In* p = x + row * n;
  auto value = [&](int64_t k) {
    if constexpr (kPartial) return p[k];
    else return r.make(load(p + k), k);
  };
  // Four accumulators, so four loads are in flight per thread (the folds are associative; a sum's rounding differs
  // only in the accumulator's last bits).
  Acc acc[4] = {r.identity(), r.identity(), r.identity(), r.identity()};
  int64_t k = begin + threadIdx.x, step = blockDim.x;
  for (; k + 3 * step < end; k += 4 * step) {
#pragma unroll
    for (int u = 0; u < 4; ++u) acc[u] = r.combine(acc[u], value(k + u * step));
  }
  for (; k < end; k += step) acc[0] = r.combine(acc[0], value(k));
  buf[threadIdx.x] = r.combine(r.combine(acc[0], acc[1]), r.combine(acc[2], acc[3]));
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = r.combine(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  if (partial) partial[row * gridDim.y + blockIdx.y] = buf[0];
  else store(out + row, r.finish(buf[0], count));
}

/// v from the lane delta above, for any 4-byte-multiple accumulator (warp shuffles move words).
template <class A> __device__ __forceinline__ A shfl_down(A v, int delta) {
  static_assert(sizeof(A) % 4 == 0, "accumulators are whole words");
  A out;
  auto* src = reinterpret_cast<int*>(&v);
  auto* dst = reinterpret_cast<int*>(&out);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(A) / 4); ++i) dst[i] = __shfl_down_sync(0xffffffffu, src[i], delta);
  return out;
}

// Short rows (inner == 1, n up to kWarpRowMax): one warp per row, reduced with shuffles.
template <class In, class Out, class R>
__global__ void reduce_rows_warp_kernel(const In* x, Out* out, int64_t rows, int64_t n, R r) {
  int64_t row = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;  // the whole warp leaves together
  const In* p = x + row * n;
  auto acc = r.identity();
  for (int64_t k = lane; k < n; k += 32) acc = r.combine(acc, r.make(load(p + k), k));
  for (int d = 16; d > 0; d >>= 1) acc = r.combine(acc, shfl_down(acc, d));
  if (lane == 0) store(out + row, r.finish(acc, n));
}
inline constexpr int64_t kWarpRowMax = 4096;

/// f-reduction of v over a block of kThreads threads, returned to every thread (scratch: kThreads / 32 values).
template <class C, class F> __device__ C block_reduce(C v, C* scratch, F f) {
  for (int s = 16; s > 0; s >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, s));
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < kThreads / 32; ++w) v = f(v, scratch[w]);
  return v;
}

// Columns (inner > 1): thread (o, i) of split y folds x[o, y*chunk.., i] in order, and writes the
// result, or (partial set) its accumulator to partial[y, lane]. kPartial: x holds accumulators.
template <class In, class Out, class R, bool kPartial>
__global__ void reduce_cols_kernel(const In* x, Out* out, typename R::Acc* partial, int64_t lanes, int64_t n,
                                   int64_t inner, int64_t chunk, int64_t count, R r) {
  int64_t lane = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (lane >= lanes) return;
  int64_t o = lane / inner, i = lane - o * inner;
  const In* p = x + o * n * inner + i;
  int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk, end = begin + chunk < n ? begin + chunk : n;
  auto acc = r.identity();
  for (int64_t k = begin; k < end; ++k) {
    if constexpr (kPartial) acc = r.combine(acc, p[k * inner]);
    else acc = r.combine(acc, r.make(load(p + k * inner), k));
  }
  if (partial) partial[static_cast<int64_t>(blockIdx.y) * lanes + lane] = acc;
  else store(out + lane, r.finish(acc, count));
}

/// Splits of the reduced dim so that about 4 waves of blocks cover the GPU (1 when lanes already do).
inline int64_t split_count(int64_t lanes_or_rows, int64_t per_unit, int64_t n, int device) {
  int64_t target = 4LL * multiprocessors(device) * per_unit;
  if (lanes_or_rows >= target) return 1;
  return std::max<int64_t>(1, std::min<int64_t>({(target + lanes_or_rows - 1) / lanes_or_rows, n / 64, 1024}));
}

/// Reduces contiguous x along dim with R into out (shape keep_dim, dtype Out).
template <class In, class Out, class R>
void reduce_dim(const char* op, const CudaTensor& x, CudaTensor& out, size_t dim, R r) {
  Lanes g(x.shape(), dim);
  if (g.n == 0) throw ShapeError(op, "cannot reduce an empty dim of " + x.shape().to_string());
  int64_t lanes = g.outer * g.inner;
  if (lanes == 0) return;
  int device = x.device().index;
  cudaStream_t s = stream(device);
  const In* src = x.data<In>();
  Out* dst = out.data<Out>();
  using Acc = typename R::Acc;
  if (g.inner > 1) {
    int64_t splits = split_count(lanes, kThreads, g.n, device);
    if (splits <= 1) {
      reduce_cols_kernel<In, Out, R, false>
          <<<blocks_for(lanes), kThreads, 0, s>>>(src, dst, nullptr, lanes, g.n, g.inner, g.n, g.n, r);
      check_launch(op);
      return;
    }
    int64_t chunk = (g.n + splits - 1) / splits;
    splits = (g.n + chunk - 1) / chunk;
    CudaTensor scratch(Shape{static_cast<size_t>(lanes * splits * static_cast<int64_t>(sizeof(Acc)))}, DType::U8,
                       x.device());
    auto* partial = reinterpret_cast<Acc*>(scratch.raw());
    dim3 grid(blocks_for(lanes), static_cast<unsigned>(splits));
    reduce_cols_kernel<In, Out, R, false>
        <<<grid, kThreads, 0, s>>>(src, dst, partial, lanes, g.n, g.inner, chunk, g.n, r);
    // The partials form [splits, lanes]: fold them down the split dim (one outer, inner = lanes).
    reduce_cols_kernel<Acc, Out, R, true>
        <<<blocks_for(lanes), kThreads, 0, s>>>(partial, dst, nullptr, lanes, splits, lanes, splits, g.n, r);
    check_launch(op);
    return;
  }
  int64_t splits = split_count(g.outer, 1, g.n / kThreads, device);
  if (splits <= 1 && g.n <= kWarpRowMax) {
    auto blocks = static_cast<unsigned>((g.outer + kThreads / 32 - 1) / (kThreads / 32));
    reduce_rows_warp_kernel<In, Out, R><<<blocks, kThreads, 0, s>>>(src, dst, g.outer, g.n, r);
    check_launch(op);
    return;
  }
  if (splits <= 1) {
    reduce_rows_kernel<In, Out, R, false>
        <<<dim3(static_cast<unsigned>(g.outer), 1), kThreads, 0, s>>>(src, dst, nullptr, g.n, g.n, g.n, r);
    check_launch(op);
    return;
  }
  int64_t chunk = (g.n + splits - 1) / splits;
  splits = (g.n + chunk - 1) / chunk;
  CudaTensor scratch(Shape{static_cast<size_t>(g.outer * splits * static_cast<int64_t>(sizeof(Acc)))}, DType::U8,
                     x.device());
  auto* partial = reinterpret_cast<Acc*>(scratch.raw());
  reduce_rows_kernel<In, Out, R, false>
      <<<dim3(static_cast<unsigned>(g.outer), static_cast<unsigned>(splits)), kThreads, 0, s>>>(src, dst, partial, g.n,
                                                                                                chunk, g.n, r);
  reduce_rows_kernel<Acc, Out, R, true>
      <<<dim3(static_cast<unsigned>(g.outer), 1), kThreads, 0, s>>>(partial, dst, nullptr, splits, splits, g.n, r);
  check_launch(op);
}

}  // namespace scorch::backends::cuda
