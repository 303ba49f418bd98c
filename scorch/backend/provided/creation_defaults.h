#pragma once
// Provided creation ops: zeros, ones, arange, a random seed.
#include <cstdint>
#include <string>
#include <vector>

#include "scorch/core/distribution.h"
#include "scorch/core/error.h"
#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"
#include "scorch/core/tensor_data.h"

namespace scorch {
template <class B, class K> struct KindOps;
struct Float;
struct Int;
struct Bool;

namespace provided {

template <class B, class K> auto zeros_of(const Shape& shape, const typename B::Device& device, DType dtype) {
  return KindOps<B, K>::full(shape, Scalar(0), device, dtype);
}
template <class B, class K> auto ones_of(const Shape& shape, const typename B::Device& device, DType dtype) {
  return KindOps<B, K>::full(shape, Scalar(1), device, dtype);
}

/// A seed (for attention dropout) from B's random stream: two draws read back to the host.
template <class B> uint64_t float_random_seed(const typename B::Device& device) {
  auto draws = KindOps<B, Float>::random(Shape{2}, Distribution::uniform(0.0, 4294967296.0), device, DType::F64);
  auto words = KindOps<B, Float>::into_data(std::move(draws)).template to_vector<double>();
  return (static_cast<uint64_t>(words.at(0)) << 32) ^ static_cast<uint64_t>(words.at(1));
}

/// A tensor of zeros.
template <class B> auto float_zeros(const Shape& s, const typename B::Device& d, DType t) {
  return zeros_of<B, Float>(s, d, t);
}
template <class B> auto int_zeros(const Shape& s, const typename B::Device& d, DType t) {
  return zeros_of<B, Int>(s, d, t);
}
template <class B> auto bool_zeros(const Shape& s, const typename B::Device& d, DType t) {
  return zeros_of<B, Bool>(s, d, t);
}
/// A tensor of ones.
template <class B> auto float_ones(const Shape& s, const typename B::Device& d, DType t) {
  return ones_of<B, Float>(s, d, t);
}
template <class B> auto int_ones(const Shape& s, const typename B::Device& d, DType t) {
  return ones_of<B, Int>(s, d, t);
}
template <class B> auto bool_ones(const Shape& s, const typename B::Device& d, DType t) {
  return ones_of<B, Bool>(s, d, t);
}

/// start, start+step, ... strictly before end (step may be negative, never 0: checked by callers).
template <class B>
auto int_arange(int64_t start, int64_t end, int64_t step, const typename B::Device& device, DType dtype) {
  std::vector<int64_t> values;
  // Counted in 128 bits: start + k·step never overflows, however far apart start and end are.
  if (step == 0) throw ValueError("arange", "step is 0");
  __int128 span = step > 0 ? __int128(end) - start : __int128(start) - end;
  __int128 stride = step > 0 ? __int128(step) : -__int128(step);
  __int128 count = span <= 0 ? 0 : (span + stride - 1) / stride;
  if (count > __int128(1) << 40)
    throw ValueError("arange", "[" + std::to_string(start) + ", " + std::to_string(end) + ") by " +
                                   std::to_string(step) + " is too long");
  values.reserve(static_cast<size_t>(count));
  for (__int128 k = 0; k < count; ++k) values.push_back(static_cast<int64_t>(start + k * step));
  Shape shape{values.size()};
  return KindOps<B, Int>::from_data(TensorData(values, shape).convert(dtype), device);
}

}  // namespace provided
}  // namespace scorch
