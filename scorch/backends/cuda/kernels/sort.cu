// Sorting along one dim: dim is moved last, every value becomes an order-preserving uint64 key, and
// cub's stable segmented sort (one segment per row) orders (key, position) pairs. Stable, NaN largest.
#include <cub/device/device_segmented_sort.cuh>

#include <cstdint>
#include <utility>

#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;

// Unsigned order of keys = numeric order of values; every NaN is the largest key, -0 equals +0.
__device__ __forceinline__ uint64_t order_key(double v) {
  if (v != v) return ~uint64_t{0};
  if (v == 0.0) v = 0.0;
  auto bits = static_cast<uint64_t>(__double_as_longlong(v));
  return (bits & kSignBit) ? ~bits : bits | kSignBit;
}
__device__ __forceinline__ uint64_t order_key(int64_t v) { return static_cast<uint64_t>(v) ^ kSignBit; }

// keys[i] = order key of x[i] (bitwise-not when descending, via flip); pos[i] = i's position in its row.
template <class E>
__global__ void key_kernel(const E* x, uint64_t* keys, int64_t* pos, int64_t count, int64_t n, uint64_t flip) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  uint64_t key;
  if constexpr (kDeviceFloat<E>) key = order_key(static_cast<double>(load(x + i)));
  else key = order_key(static_cast<int64_t>(load(x + i)));
  keys[i] = key ^ flip;
  pos[i] = i % n;
}

// offsets[r] = r * n for r in [0, rows]: the row boundaries of a [rows, n] buffer.
__global__ void offsets_kernel(int64_t* offsets, int64_t rows, int64_t n) {
  int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r <= rows) offsets[r] = r * n;
}

// out[i] = x[row(i) * n + order[i]]: rows of x permuted by their sorted order (bit-exact copies).
template <class W> __global__ void permute_kernel(const W* x, const int64_t* order, W* out, int64_t count, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = x[(i / n) * n + order[i]];
}

// A fresh contiguous I64 buffer of count elements on device (pooled).
T i64_buffer(int64_t count, Device device) { return T(Shape{static_cast<size_t>(count)}, DType::I64, device); }

// Writes into order (I64, x's shape) each row's stable sorted positions; x is contiguous [rows, n], n > 0.
void sort_rows(const T& x, int64_t n, bool descending, T& order) {
  const char* op = "sort";
  Device device = x.device();
  cudaStream_t s = stream(device.index);
  auto count = static_cast<int64_t>(x.numel()), rows = count / n;
  T keys_in = i64_buffer(count, device), keys_out = i64_buffer(count, device);
  T pos = i64_buffer(count, device), offsets = i64_buffer(rows + 1, device);
  uint64_t flip = descending ? ~uint64_t{0} : 0;
  visit_numeric(op, x.dtype(), [&]<class E>() {
    key_kernel<E><<<blocks_for(count), kThreads, 0, s>>>(x.data<E>(), keys_in.data<uint64_t>(), pos.data<int64_t>(),
                                                         count, n, flip);
  });
  offsets_kernel<<<blocks_for(rows + 1), kThreads, 0, s>>>(offsets.data<int64_t>(), rows, n);
  check_launch(op);
  const int64_t* begin = offsets.data<int64_t>();
  auto run = [&](void* temp, size_t& bytes) {
    return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys_in.data<uint64_t>(), keys_out.data<uint64_t>(),
                                                     pos.data<int64_t>(), order.data<int64_t>(), count, rows, begin,
                                                     begin + 1, s);
  };
  size_t bytes = 0;
  check(run(nullptr, bytes), op);
  T temp(Shape{bytes > 0 ? bytes : 1}, DType::U8, device);
  check(run(temp.raw(), bytes), op);
  check_launch(op);
}

// x's rows (contiguous [rows, n]) permuted by order: the sorted values.
T permute_rows(const T& x, const T& order, int64_t n) {
  T out(x.shape(), x.dtype(), x.device());
  auto count = static_cast<int64_t>(x.numel());
  cudaStream_t s = stream(x.device().index);
  visit_word(dtype_size(x.dtype()), [&]<class W>() {
    permute_kernel<W>
        <<<blocks_for(count), kThreads, 0, s>>>(x.data<W>(), order.data<int64_t>(), out.data<W>(), count, n);
  });
  check_launch("sort");
  return out;
}

// Sorted values (when want_values) and I64 indices along dim, both of x's shape and contiguous.
IndexPair sort_along(T x, size_t dim, bool descending, bool want_values) {
  if (x.dtype() == DType::Bool) unsupported_dtype("sort", x.dtype());
  size_t rank = x.shape().rank();
  bool moved = rank > 1 && dim != rank - 1;
  if (moved) x = swap_dims(std::move(x), dim, rank - 1);
  x = contiguous(std::move(x));
  auto n = rank ? static_cast<int64_t>(x.shape()[rank - 1]) : int64_t{1};
  T indices(x.shape(), DType::I64, x.device()), values;
  if (x.numel() > 0) sort_rows(x, n, descending, indices);
  if (want_values) values = x.numel() > 0 ? permute_rows(x, indices, n) : T(x.shape(), x.dtype(), x.device());
  if (moved) {
    indices = contiguous(swap_dims(std::move(indices), dim, rank - 1));
    if (want_values) values = contiguous(swap_dims(std::move(values), dim, rank - 1));
  }
  return {std::move(values), std::move(indices)};
}

}  // namespace

T sort(T x, size_t dim, bool descending) { return sort_along(std::move(x), dim, descending, true).first; }

IndexPair sort_with_indices(T x, size_t dim, bool descending) {
  return sort_along(std::move(x), dim, descending, true);
}

T argsort(T x, size_t dim, bool descending) { return sort_along(std::move(x), dim, descending, false).second; }

}  // namespace scorch::backends::cuda::kernels
