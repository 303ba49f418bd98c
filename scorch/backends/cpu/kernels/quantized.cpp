// quantized_linear on the Cpu: the input quantized to uint8 (its own scale and offset, or the given ones), the int8
// weight multiplied in integers (qgemm.h), the offsets' cross terms removed with row and column sums, then scaled.
#include <algorithm>
#include <cmath>
#include <vector>

#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/kernels/qgemm.h"
#include "scorch/backends/cpu/thread_pool.h"
#include "scorch/gen/kind_ops.h"

namespace scorch::backends::cpu::kernels {
namespace {

using qgemm::Isa;
using XElem = Isa::XElem;

size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

// x's min and max (NaN skipped), over threads.
std::pair<float, float> min_max(const float* x, size_t count) {
  size_t chunks = std::max<size_t>(1, std::min(num_threads(), count / 65536 + 1));
  std::vector<float> lo(chunks, 0.0f), hi(chunks, 0.0f);
  parallel_for(chunks, 1, [&](size_t cb, size_t ce) {
    for (size_t c = cb; c < ce; ++c) {
      size_t b = count * c / chunks, e = count * (c + 1) / chunks;
      float l = 0.0f, h = 0.0f;  // the range always includes 0
      for (size_t i = b; i < e; ++i) {
        float v = std::isnan(x[i]) ? 0.0f : x[i];
        l = std::min(l, v);
        h = std::max(h, v);
      }
      lo[c] = l, hi[c] = h;
    }
  });
  return {*std::min_element(lo.begin(), lo.end()), *std::max_element(hi.begin(), hi.end())};
}

// The input quantized (uint8 values, offset shifted by 128 for an int8 input) into blocks of qgemm::kBlockRows rows,
// with each row's sum of quantized values.
struct PackedInput {
  std::vector<XElem> blocks;
  std::vector<int32_t> row_sums;
  int64_t offset = 0;
};

// plain: rows of kp values one after another (dot_rows' layout) instead of the blocks.
PackedInput pack_input(const float* x, size_t m, size_t k, size_t kp, QuantParams p, const InputQuant& input,
                       bool plain) {
  QuantRange r = quant_range(input.value);
  int64_t shift = input.value == QuantValue::Int8 ? 128 : 0;  // int8 q + 128 is the uint8 the kernel multiplies
  size_t blocks = (m + qgemm::kBlockRows - 1) / qgemm::kBlockRows, block_size = qgemm::kBlockRows * kp;
  PackedInput out{std::vector<XElem>(blocks * block_size, XElem(0)), std::vector<int32_t>(m, 0), p.offset + shift};
  float inverse = 1.0f / p.scale;
  auto lo = static_cast<float>(r.qmin), hi = static_cast<float>(r.qmax), zero = static_cast<float>(p.offset);
  parallel_for(m, std::max<size_t>(1, 16384 / (k + 1)), [&](size_t rb, size_t re) {
    for (size_t row = rb; row < re; ++row) {
      XElem* block = out.blocks.data() + (plain ? row * kp : (row / qgemm::kBlockRows) * block_size);
      size_t in_block = row % qgemm::kBlockRows;
      int32_t sum = 0;
      for (size_t j = 0; j < k; ++j) {
        float v = x[row * k + j];
        float q = quantize_affine(v, inverse, zero, lo, hi);
        auto u = static_cast<int32_t>(q) + static_cast<int32_t>(shift);
        block[plain ? j : qgemm::packed_index(in_block, j)] = static_cast<XElem>(u);
        sum += u;
      }
      out.row_sums[row] = sum;
    }
  });
  return out;
}

// The weight [k, n] (a view) as n rows of kp contiguous int8 (in place when its k are contiguous and kp == k), and
// each row's sum.
struct WeightRows {
  std::vector<int8_t> copy;
  std::vector<const int8_t*> rows;
  std::vector<int32_t> sums;
};

WeightRows weight_rows(const T& w, size_t k, size_t n, size_t kp) {
  WeightRows out{{}, std::vector<const int8_t*>(n), std::vector<int32_t>(n, 0)};
  const int8_t* base = w.data<int8_t>();
  int64_t sk = w.strides()[0], sn = w.strides()[1];
  bool in_place = sk == 1 && kp == k;
  if (!in_place) out.copy.assign(n * kp, 0);
  parallel_for(n, std::max<size_t>(1, 65536 / (k + 1)), [&](size_t nb, size_t ne) {
    for (size_t j = nb; j < ne; ++j) {
      const int8_t* src = base + static_cast<int64_t>(j) * sn;
      if (!in_place) {
        int8_t* dst = out.copy.data() + j * kp;
        for (size_t p = 0; p < k; ++p) dst[p] = src[static_cast<int64_t>(p) * sk];
        src = dst;
      }
      out.rows[j] = src;
      int32_t sum = 0;
      for (size_t p = 0; p < k; ++p) sum += src[p];  // contiguous: vectorized
      out.sums[j] = sum;
    }
  });
  return out;
}

// One value per output column (scales as f32, offsets as i32, bias) from params of shape [1, 1] or [1, n] (or [n]).
template <class E> std::vector<E> per_column(const T& t, size_t n) {
  T v = to_dtype(contiguous(t), dtype_of<E>());
  const E* p = v.data<E>();
  std::vector<E> out(n);
  for (size_t j = 0; j < n; ++j) out[j] = p[v.shape().num_elements() == 1 ? 0 : j];
  return out;
}

struct Epilogue {
  size_t k, n;
  float x_scale;
  int64_t x_offset;
  const int32_t *row_sums, *col_sums, *w_offsets;
  const float *w_scales, *bias;
  bool relu;
  // y = (acc − zx·Σw − zw·Σx + k·zx·zw)·sx·sw + bias.
  float operator()(int32_t acc, size_t row, size_t col) const {
    int64_t zw = w_offsets[col];
    int64_t v = int64_t(acc) - x_offset * col_sums[col] - zw * row_sums[row] + int64_t(k) * x_offset * zw;
    float y = static_cast<float>(v) * (x_scale * w_scales[col]) + (bias ? bias[col] : 0.0f);
    return relu ? std::max(y, 0.0f) : y;
  }
  // A tile's sums acc[i·stride + r] (weight row i < cn from c0, input row r < rn from r0) into y, row by row: the
  // columns' constants first, each output row written once (down a column, rows n floats apart share cache sets).
  void tile(const int32_t* acc, size_t stride, size_t r0, size_t rn, size_t c0, size_t cn, float* y) const {
    constexpr size_t R = Isa::kRows;
    int64_t base[R], zw[R];
    float scale[R], shift[R];
    for (size_t i = 0; i < cn; ++i) {
      zw[i] = w_offsets[c0 + i];
      base[i] = int64_t(k) * x_offset * zw[i] - x_offset * col_sums[c0 + i];
      scale[i] = x_scale * w_scales[c0 + i];
      shift[i] = bias ? bias[c0 + i] : 0.0f;
    }
    for (size_t r = 0; r < rn; ++r) {
      float* out = y + (r0 + r) * n + c0;
      int64_t rs = row_sums[r0 + r];
      for (size_t i = 0; i < cn; ++i) {
        float v = static_cast<float>(int64_t(acc[i * stride + r]) + base[i] - zw[i] * rs) * scale[i] + shift[i];
        out[i] = relu ? std::max(v, 0.0f) : v;
      }
    }
  }
};

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
// A few rows (qgemm::kDotRows at most): one dot product per weight row along k, no block to fill.
void run_rows(const PackedInput& in, const WeightRows& w, size_t m, size_t n, size_t k, size_t kp, const Epilogue& e,
              float* y) {
  parallel_for(n, 64, [&](size_t jb, size_t je) {
    int32_t acc[qgemm::kDotRows];
    for (size_t j = jb; j < je; ++j) {
      qgemm::dot_rows(m, k, kp, in.blocks.data(), w.rows[j], acc);
      for (size_t r = 0; r < m; ++r) y[r * n + j] = e(acc[r], r, j);
    }
  });
}
constexpr size_t kDotRows = qgemm::kDotRows;
#else
constexpr size_t kDotRows = 0;
#endif

void run_tiles(const PackedInput& in, const WeightRows& w, size_t m, size_t n, size_t kp, const Epilogue& e, float* y) {
  constexpr size_t R = Isa::kRows, BR = qgemm::kBlockRows;
  size_t row_blocks = (m + BR - 1) / BR, col_tiles = (n + R - 1) / R;
  std::vector<int8_t> zeros(kp, 0);
  parallel_for(row_blocks * col_tiles, 1, [&](size_t tb, size_t te) {
    int32_t acc[R * BR];
    const int8_t* rows[R];
    for (size_t t = tb; t < te; ++t) {
      size_t cb = t / row_blocks, rbk = t % row_blocks, c0 = cb * R, r0 = rbk * BR;
      for (size_t i = 0; i < R; ++i) rows[i] = c0 + i < n ? w.rows[c0 + i] : zeros.data();
      qgemm::tile(kp / Isa::kGroup, rows, in.blocks.data() + rbk * BR * kp, acc);
      size_t rn = std::min(BR, m - r0), cn = std::min(R, n - c0);
      e.tile(acc, BR, r0, rn, c0, cn, y);
    }
  });
}

}  // namespace

bool quantized_linear_fits(const T& x, const T& weight, const T& scales, const QuantScheme& scheme,
                           const InputQuant& input) {
  if (x.shape().rank() == 2 && weight.shape().rank() == 2 && x.shape()[1] != weight.shape()[0]) return false;
  if (x.shape().rank() != 2 || weight.shape().rank() != 2 || !is_float(x.dtype()) || weight.dtype() != DType::I8)
    return false;
  if (scheme.value != QuantValue::Int8 || input.value == QuantValue::Q4 || input.weight_only) return false;
  size_t n = weight.shape()[1];
  bool per_tensor = scales.shape().num_elements() == 1;
  bool by_column = scheme.level == QuantLevel::Channel && scheme.axis == 1 && scales.shape() == Shape{1, n};
  return (scheme.level == QuantLevel::Tensor && per_tensor) || by_column;
}

T quantized_linear(const T& x, const T& weight, const T& scales, const T& offsets, const std::optional<T>& bias,
                   const InputQuant& input, bool relu) {
  size_t m = x.shape()[0], k = x.shape()[1], n = weight.shape()[1];
  T out(Shape{m, n}, DType::F32);
  float* y = out.data<float>();
  std::vector<float> b;
  if (bias) b = per_column<float>(*bias, n);
  if (m == 0 || n == 0) return out;
  T xf = to_dtype(contiguous(x), DType::F32);
  const float* xp = xf.data<float>();
  QuantParams p{static_cast<float>(input.scale), input.offset};
  if (input.dynamic) {
    auto [lo, hi] = min_max(xp, m * k);
    p = choose_quant_params(lo, hi, quant_range(input.value, input.reduce_range));
  }
  size_t kp = round_up(k, Isa::kGroup);
  bool few_rows = m <= kDotRows;
  PackedInput packed = pack_input(xp, m, k, kp, p, input, few_rows);
  WeightRows w = weight_rows(weight, k, n, few_rows ? k : kp);
  std::vector<float> w_scales = per_column<float>(scales, n);
  std::vector<int32_t> w_offsets = per_column<int32_t>(offsets, n);
  Epilogue e{k,
             n,
             p.scale,
             packed.offset,
             packed.row_sums.data(),
             w.sums.data(),
             w_offsets.data(),
             w_scales.data(),
             bias ? b.data() : nullptr,
             relu};
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
  if (few_rows) {
    run_rows(packed, w, m, n, k, kp, e, y);
    return out;
  }
#endif
  run_tiles(packed, w, m, n, kp, e, y);
  return out;
}

}  // namespace scorch::backends::cpu::kernels

namespace scorch::backends::cpu {

CpuTensor Cpu::module_quantized_linear(CpuTensor x, CpuTensor weight, CpuTensor scales, CpuTensor offsets,
                                       const std::optional<CpuTensor>& bias, const QuantScheme& scheme,
                                       const InputQuant& input, bool relu) {
  provided::check_quantized_linear(x, weight, scales, offsets, bias, scheme);
  if (kernels::quantized_linear_fits(x, weight, scales, scheme, input))
    return kernels::quantized_linear(x, weight, scales, offsets, bias, input, relu);
  return provided::module_quantized_linear<Cpu>(x, weight, scales, offsets, bias, scheme, input, relu);
}

}  // namespace scorch::backends::cpu
