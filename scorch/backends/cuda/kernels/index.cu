// Indexing kernels: gather/select copy through an index tensor, scatter_add/select_add accumulate
// with atomics in a widened dtype, mask_where/mask_fill pick per element, argwhere lists true places.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace {

constexpr unsigned long long kNoBadIndex = ~0ull;

// Guarantees out[i] = in[i] resolved against n (negative counts from the end); the smallest i that is
// out of [-n, n) is recorded in *bad (atomicMin) and its out[i] set to 0.
__global__ void normalize_kernel(const int64_t* in, int64_t* out, int64_t count, int64_t n, unsigned long long* bad) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int64_t v = in[i];
  if (v < -n || v >= n) {
    atomicMin(bad, static_cast<unsigned long long>(i));
    v = 0;
  }
  out[i] = v < 0 ? v + n : v;
}

// Maps element i (row-major over shape) to its offset in a contiguous base tensor whose coordinate
// dim is replaced by an index: idx[i] when per_element (gather, scatter_add), else idx[coord[dim]].
struct Indexed {
  int rank = 0, dim = 0;
  bool per_element = true;
  int64_t shape[kMaxRank] = {}, base_strides[kMaxRank] = {};

  __device__ __forceinline__ int64_t offset(int64_t i, const int64_t* idx) const {
    int64_t off = 0, rem = i;
    for (int d = rank - 1; d >= 0; --d) {
      int64_t q = rem / shape[d], c = rem - q * shape[d];
      rem = q;
      off += (d == dim ? idx[per_element ? i : c] : c) * base_strides[d];
    }
    return off;
  }
};

// The Indexed map of elements of shape into a contiguous tensor of base shape.
Indexed make_indexed(const Shape& shape, const Shape& base, size_t dim, bool per_element) {
  Indexed g;
  g.rank = static_cast<int>(shape.rank());
  g.dim = static_cast<int>(dim);
  g.per_element = per_element;
  Strides bs = contiguous_strides(base);
  for (size_t d = 0; d < shape.rank(); ++d) {
    g.shape[d] = static_cast<int64_t>(shape[d]);
    g.base_strides[d] = bs[d];
  }
  return g;
}

// shape with dim's size set to count.
Shape with_dim(Shape shape, size_t dim, size_t count) {
  shape[dim] = count;
  return shape;
}

// out[i] = x[offset(i)]: one thread per output element.
template <class W> __global__ void take_kernel(const W* x, W* out, const int64_t* idx, int64_t count, Indexed g) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = x[g.offset(i, idx)];
}

__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int64_t* p, int64_t v) {  // two's complement wraps like int64
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

// out[offset(i)] += values[i] atomically: one thread per value.
template <class A> __global__ void add_kernel(A* out, const A* values, const int64_t* idx, int64_t count, Indexed g) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) atomic_add(out + g.offset(i, idx), values[i]);
}

// Elements of out_shape copied from x through indices along dim (gather when per_element, else select).
T take(const char* op, T x, const T& indices, size_t dim, bool per_element) {
  x = contiguous(std::move(x));
  T idx = read_indices(op, indices, x.shape()[dim], x.device());
  Shape shape = per_element ? indices.shape() : with_dim(x.shape(), dim, idx.numel());
  T out(shape, x.dtype(), x.device());
  auto count = static_cast<int64_t>(out.numel());
  if (count == 0) return out;
  Indexed g = make_indexed(shape, x.shape(), dim, per_element);
  cudaStream_t s = stream(x.device().index);
  visit_word(dtype_size(x.dtype()), [&]<class W>() {
    take_kernel<W><<<blocks_for(count), kThreads, 0, s>>>(x.data<W>(), out.data<W>(), idx.data<int64_t>(), count, g);
  });
  check_launch(op);
  return out;
}

// The accumulation dtype of d: F64 for F64, F32 for the other floats, I64 for ints; Bool is rejected.
DType wide_dtype(const char* op, DType d) {
  if (d == DType::Bool) unsupported_dtype(op, d);
  if (d == DType::F64) return d;
  return is_float(d) ? DType::F32 : DType::I64;
}

// x's values in dtype, in a dense buffer no other handle sees (so it may be written in place).
T writable_copy(T x, DType dtype) {
  if (x.dtype() != dtype) return to_dtype(x, dtype);
  if (x.can_mut() && x.is_dense()) return x;
  T out(x.shape(), dtype, x.device());
  if (out.numel()) assign_view(out, x);
  return out;
}

// x with values added through indices along dim (scatter_add when per_element, else select_add);
// sums in the widened dtype, rounded back to x's dtype once at the end.
T accumulate(const char* op, T x, const T& indices, T values, size_t dim, bool per_element) {
  DType d = x.dtype(), w = wide_dtype(op, d);
  T out = writable_copy(std::move(x), w);
  T idx = read_indices(op, indices, out.shape()[dim], out.device());
  values = contiguous(cast(std::move(values), w));
  Shape shape = per_element ? indices.shape() : with_dim(out.shape(), dim, idx.numel());
  auto count = static_cast<int64_t>(shape.num_elements());
  if (count > 0) {
    Indexed g = make_indexed(shape, out.shape(), dim, per_element);
    cudaStream_t s = stream(out.device().index);
    const int64_t* pi = idx.data<int64_t>();
    unsigned blocks = blocks_for(count);
    if (w == DType::F64)
      add_kernel<double><<<blocks, kThreads, 0, s>>>(out.data<double>(), values.data<double>(), pi, count, g);
    else if (w == DType::F32)
      add_kernel<float><<<blocks, kThreads, 0, s>>>(out.data<float>(), values.data<float>(), pi, count, g);
    else add_kernel<int64_t><<<blocks, kThreads, 0, s>>>(out.data<int64_t>(), values.data<int64_t>(), pi, count, g);
    check_launch(op);
  }
  return cast(std::move(out), d);
}

// out[i] = mask ? values : x at the broadcast position of out's row-major element i.
template <class W>
__global__ void where_kernel(const W* x, const bool* mask, const W* values, W* out, int64_t n, Geometry<3> g) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t off[3];
  g.offsets(i, off);
  out[i] = mask[off[1]] ? values[off[2]] : x[off[0]];
}

// out[i] = mask[i] ? *value : x[i] for x and mask dense in out's shape, 4 elements per thread.
template <class W> __global__ void fill_where_kernel(const W* x, const bool* mask, const W* value, W* out, int64_t n) {
  int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  if (base >= n) return;
  W v = *value;
  if (base + 4 <= n) {
    Pack<W, 4> px = *reinterpret_cast<const Pack<W, 4>*>(x + base);
    Pack<bool, 4> pm = *reinterpret_cast<const Pack<bool, 4>*>(mask + base);
#pragma unroll
    for (int j = 0; j < 4; ++j) px.v[j] = pm.v[j] ? v : px.v[j];
    *reinterpret_cast<Pack<W, 4>*>(out + base) = px;
    return;
  }
  for (int64_t i = base; i < n; ++i) out[i] = mask[i] ? v : x[i];
}

// True when p is aligned to bytes.
bool aligned_to(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// mask_where on a precomputed broadcast shape; mask is made Bool and values x's dtype if they are not.
T where_shaped(const char* op, const Shape& shape, T x, T mask, T values) {
  check_same_device(op, x, mask);
  check_same_device(op, x, values);
  if (mask.dtype() != DType::Bool) mask = cast(std::move(mask), DType::Bool);
  if (values.dtype() != x.dtype()) values = cast(std::move(values), x.dtype());
  bool dense =
      x.is_contiguous() && mask.is_contiguous() && x.shape() == shape && mask.shape() == shape && values.numel() == 1;
  T out = dense ? reuse_or_alloc(x, shape, x.dtype()) : T(shape, x.dtype(), x.device());
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return out;
  size_t word = dtype_size(x.dtype());
  if (dense && aligned_to(x.raw(), 4 * word) && aligned_to(out.raw(), 4 * word) && aligned_to(mask.raw(), 4)) {
    visit_word(word, [&]<class W>() {
      fill_where_kernel<W><<<blocks_for(n, 4), kThreads, 0, stream(x.device().index)>>>(
          x.data<W>(), mask.data<bool>(), values.data<W>(), out.data<W>(), n);
    });
    check_launch(op);
    return out;
  }
  Strides sx = broadcast_strides(x, shape), sm = broadcast_strides(mask, shape), sv = broadcast_strides(values, shape);
  const Strides* operands[3] = {&sx, &sm, &sv};
  Geometry<3> g(shape, operands);
  cudaStream_t s = stream(x.device().index);
  visit_word(dtype_size(x.dtype()), [&]<class W>() {
    where_kernel<W>
        <<<blocks_for(n), kThreads, 0, s>>>(x.data<W>(), mask.data<bool>(), values.data<W>(), out.data<W>(), n, g);
  });
  check_launch(op);
  return out;
}

}  // namespace

T read_indices(const char* op, const T& indices, size_t dim_size, Device device) {
  T idx = contiguous(cast(indices, DType::I64));
  T out(idx.shape(), DType::I64, device);
  auto count = static_cast<int64_t>(idx.numel());
  if (count == 0) return out;
  cudaStream_t s = stream(device.index);
  T bad(Shape{1}, DType::I64, device);
  auto* pbad = bad.data<unsigned long long>();
  check(cudaMemsetAsync(pbad, 0xFF, sizeof(unsigned long long), s), op);
  auto n = static_cast<int64_t>(dim_size);
  normalize_kernel<<<blocks_for(count), kThreads, 0, s>>>(idx.data<int64_t>(), out.data<int64_t>(), count, n, pbad);
  check_launch(op);
  if (is_capturing(s)) return out;
  unsigned long long first = kNoBadIndex;
  check(cudaMemcpyAsync(&first, pbad, sizeof first, cudaMemcpyDeviceToHost, s), op);
  check(cudaStreamSynchronize(s), op);
  if (first == kNoBadIndex) return out;
  int64_t v = 0;
  check(cudaMemcpyAsync(&v, idx.data<int64_t>() + first, sizeof v, cudaMemcpyDeviceToHost, s), op);
  check(cudaStreamSynchronize(s), op);
  throw ShapeError(op, "index " + std::to_string(v) + " is out of range for a dim of size " + std::to_string(dim_size));
}

T gather(size_t dim, T x, T indices) { return take("gather", std::move(x), indices, dim, true); }

T select(T x, size_t dim, T indices) { return take("select", std::move(x), indices, dim, false); }

T scatter_add(size_t dim, T x, T indices, T values) {
  return accumulate("scatter_add", std::move(x), indices, std::move(values), dim, true);
}

T select_add(T x, size_t dim, T indices, T values) {
  return accumulate("select_add", std::move(x), indices, std::move(values), dim, false);
}

T mask_where(T x, T mask, T values) {
  const char* op = "mask_where";
  Shape shape = broadcast_shapes(op, broadcast_shapes(op, x.shape(), mask.shape()), values.shape());
  return where_shaped(op, shape, std::move(x), std::move(mask), std::move(values));
}

T mask_fill(T x, T mask, Scalar value) {
  const char* op = "mask_fill";
  Shape shape = broadcast_shapes(op, x.shape(), mask.shape());
  Shape ones = shape;
  for (size_t d = 0; d < ones.rank(); ++d) ones[d] = 1;
  T fill = full(ones, value, x.device(), x.dtype());
  return where_shaped(op, shape, std::move(x), std::move(mask), std::move(fill));
}

T argwhere(T mask) {
  Device device = mask.device();
  if (mask.dtype() != DType::Bool) mask = cast(std::move(mask), DType::Bool);
  TensorData data = into_data(std::move(mask));
  const Shape& shape = data.shape();
  size_t rank = shape.rank();
  auto flags = data.bytes();
  std::vector<int64_t> coords;
  std::array<size_t, kMaxRank> coord{};
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] != std::byte{0})
      for (size_t d = 0; d < rank; ++d) coords.push_back(static_cast<int64_t>(coord[d]));
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  std::vector<std::byte> bytes(coords.size() * sizeof(int64_t));
  if (!coords.empty()) std::memcpy(bytes.data(), coords.data(), bytes.size());
  Shape out_shape{coords.size() / std::max<size_t>(rank, 1), rank};
  return from_data(TensorData::from_bytes(std::move(bytes), out_shape, DType::I64), device);
}

}  // namespace scorch::backends::cuda::kernels
