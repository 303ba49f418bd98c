#include <cmath>
#include <cstring>

#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/core/rng.h"

namespace scorch::backends::cpu::kernels {
namespace {
CounterRng& generator() {
  static CounterRng rng;
  return rng;
}
}  // namespace

T from_data(TensorData data, CpuDevice) {
  T out(data.shape(), data.dtype());
  if (!data.bytes().empty()) std::memcpy(out.raw(), data.bytes().data(), data.bytes().size());
  return out;
}

TensorData into_data(T x) {
  x = contiguous(std::move(x));
  size_t bytes = x.numel() * dtype_size(x.dtype());
  std::vector<std::byte> buffer(bytes);
  if (bytes) std::memcpy(buffer.data(), x.raw(), bytes);
  return TensorData::from_bytes(std::move(buffer), x.shape(), x.dtype());
}

T to_device(T x, CpuDevice) { return x; }

T empty(Shape shape, CpuDevice, DType dtype) {
  T out(shape, dtype);
  // A bool byte must be 0 or 1 before anything reads it as a bool: empty bool tensors start false.
  if (dtype == DType::Bool && out.numel()) std::memset(out.raw(), 0, out.numel());
  return out;
}

T full(Shape shape, Scalar value, CpuDevice, DType dtype) {
  T out(shape, dtype);
  visit_any("full", dtype, [&]<class E>() {
    E v = value.as<E>();
    E* p = out.data<E>();
    parallel_for(out.numel(), kElementwiseGrain, [&](size_t b, size_t e) { std::fill(p + b, p + e, v); });
  });
  return out;
}

T random(Shape shape, Distribution dist, CpuDevice, DType dtype) {
  T out(shape, dtype);
  size_t n = out.numel();
  CounterRng& rng = generator();
  uint64_t key = rng.key(), base = rng.reserve(counters_for(n));
  visit_any("random", dtype, [&]<class E>() {
    E* p = out.data<E>();
    parallel_for(n, kElementwiseGrain, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        double v = sample(dist, key, base, i);
        if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>) v = std::floor(v);
        store(p + i, v);
      }
    });
  });
  return out;
}

uint64_t random_seed(CpuDevice) {
  CounterRng& rng = generator();
  return random_bits(rng.key(), rng.reserve(1));
}

void seed(uint64_t s) { generator().seed_to(s); }

T cast(T x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return to_dtype(x, dtype);
}

}  // namespace scorch::backends::cpu::kernels
