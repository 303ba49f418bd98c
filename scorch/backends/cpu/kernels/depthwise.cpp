// Depthwise convolution: 1-d and 2-d planes run as a few long vectorized sums over a zero-padded copy of the
// plane split into stride phases; 3-d planes run row by row.
#include "scorch/backends/cpu/kernels/depthwise.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

#include "scorch/backends/cpu/kernels/gemm.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::kernels {
// A named namespace, not an anonymous one: depthwise_conv's lambdas (external linkage) capture these types, which
// GCC flags (-Wsubobject-linkage) when this file is part of a unity build.
namespace depthwise_detail {

using window::Geometry;

// ---- 3-d planes: one output row at a time

// Taps that read the zero padding: wv · 0, which is NaN for an infinite or NaN weight (as the im2col GEMM gives).
template <class C> void add_padding_taps(C* orow, int64_t width, int64_t lo, int64_t hi, C wv) {
  C zero_tap = wv * C(0);
  if (zero_tap == zero_tap) return;
  for (int64_t ox = 0; ox < width; ++ox)
    if (ox < lo || ox >= hi) orow[ox] += zero_tap;
}

// out[t] += w · in[t·stride] for t < count; out and in do not overlap (unit stride vectorizes).
template <class C> void add_scaled(C* __restrict out, const C* __restrict in, int64_t stride, int64_t count, C w) {
  if (stride == 1) {
    for (int64_t t = 0; t < count; ++t) out[t] += w * in[t];
  } else {
    for (int64_t t = 0; t < count; ++t) out[t] += w * in[t * stride];
  }
}

// One output row: each tap of one kernel row (taps) adds to every output column at once; row is the input row, or
// null where it lies in the padding.
template <class C> void depthwise_row(const C* row, const C* taps, const Geometry& g, C* orow) {
  const auto s2 = static_cast<int64_t>(g.stride[2]), in2 = static_cast<int64_t>(g.in[2]);
  const auto width = static_cast<int64_t>(g.out[2]);
  for (size_t kx = 0; kx < g.kernel[2]; ++kx) {
    int64_t off = static_cast<int64_t>(kx * g.dilation[2]) - static_cast<int64_t>(g.padding[2]);
    auto [lo, hi] = row ? window::valid_range(off, s2, in2, width) : std::pair<int64_t, int64_t>{0, 0};
    C wv = taps[kx];
    if (hi > lo) add_scaled(orow + lo, row + lo * s2 + off, s2, hi - lo, wv);
    add_padding_taps(orow, width, lo, hi, wv);
  }
}

// One output volume (input volume xp, kernel wk): bias, then every kernel row.
template <class C> void volume(const C* xp, const C* wk, C bias, const Geometry& g, C* op) {
  std::fill(op, op + g.out_size(), bias);
  auto inside = [&](size_t o, size_t k, size_t d) {
    int64_t i = static_cast<int64_t>(o * g.stride[d] + k * g.dilation[d]) - static_cast<int64_t>(g.padding[d]);
    return i >= 0 && i < static_cast<int64_t>(g.in[d]) ? i : int64_t(-1);
  };
  for (size_t oz = 0; oz < g.out[0]; ++oz)
    for (size_t oy = 0; oy < g.out[1]; ++oy)
      for (size_t kz = 0; kz < g.kernel[0]; ++kz)
        for (size_t ky = 0; ky < g.kernel[1]; ++ky) {
          int64_t iz = inside(oz, kz, 0), iy = inside(oy, ky, 1);
          const C* row = iz < 0 || iy < 0 ? nullptr : xp + (size_t(iz) * g.in[1] + size_t(iy)) * g.in[2];
          depthwise_row(row, wk + (kz * g.kernel[1] + ky) * g.kernel[2], g, op + (oz * g.out[1] + oy) * g.out[2]);
        }
}

// ---- 1-d and 2-d planes: the output is computed on a grid as wide as a phase plane, so each tap is one long sum

/// Values in one vector register.
template <class C> inline constexpr size_t kLanes = gemm::kVecBytes / sizeof(C);
/// Vectors of the grid summed together.
inline constexpr size_t kBlock = 4;

// Phase (ry, rx) of the zero-padded plane holds padded[r·sy + ry][c·sx + rx] at r·wq + c; tap (ky, kx) reads phase
// (ky·dy mod sy, kx·dx mod sx) shifted by (ky·dy / sy, kx·dx / sx), so output (y, x) of the grid sums over
// phase[(y + shift_y)·wq + x + shift_x]. Columns x ≥ out[2] of the grid, and cells past out[1]·wq up to a whole
// vector, are discarded.
struct Phases {
  size_t sy, sx, hq, wq, cells;
  std::vector<size_t> used;        // the phases some tap reads
  std::vector<size_t> tap_offset;  // where each tap's sum starts in the phase buffer
  // One phase's values: the plane, then zeros that the discarded cells read.
  size_t plane() const { return hq * wq + wq + kBlock * gemm::kVecBytes / sizeof(float); }
};

// A phase's rows and columns: the output's, plus the widest tap shift.
std::pair<size_t, size_t> phase_dims(const Geometry& g) {
  return {g.out[1] + (g.kernel[1] - 1) * g.dilation[1] / g.stride[1],
          g.out[2] + (g.kernel[2] - 1) * g.dilation[2] / g.stride[2]};
}

template <class C> Phases phases_of(const Geometry& g) {
  Phases p{g.stride[1], g.stride[2], 0, 0, 0, {}, {}};
  std::tie(p.hq, p.wq) = phase_dims(g);
  p.cells = (g.out[1] * p.wq + kBlock * kLanes<C> - 1) / (kBlock * kLanes<C>)*(kBlock * kLanes<C>);
  std::vector<char> used(p.sy * p.sx, 0);
  for (size_t ky = 0; ky < g.kernel[1]; ++ky)
    for (size_t kx = 0; kx < g.kernel[2]; ++kx) {
      size_t dy = ky * g.dilation[1], dx = kx * g.dilation[2], phase = (dy % p.sy) * p.sx + dx % p.sx;
      if (!used[phase]) p.used.push_back(phase);
      used[phase] = 1;
      p.tap_offset.push_back(phase * p.plane() + (dy / p.sy) * p.wq + dx / p.sx);
    }
  return p;
}

// True when the plane is 1-d or 2-d and its phases and grid stay within a small multiple of the input and output.
bool planar(const Geometry& g) {
  if (g.kernel[0] != 1 || g.in[0] != 1 || g.out[0] != 1 || g.padding[0] != 0) return false;
  auto [hq, wq] = phase_dims(g);
  double phase_values = double(g.stride[1]) * double(g.stride[2]) * double(hq + 2) * double(wq);
  return wq <= 2 * g.out[2] + 16 && phase_values <= 4.0 * double(g.in_size() + g.out_size()) + 4096;
}

// Writes the values of plane xp that phase (ry, rx) holds into q; its zeros (the padding and the slack past the
// plane) are written once, when the buffer is made, and never overwritten.
template <class C> void fill_phase(const C* xp, const Geometry& g, const Phases& p, size_t ry, size_t rx, C* q) {
  const auto in1 = static_cast<int64_t>(g.in[1]), in2 = static_cast<int64_t>(g.in[2]);
  const auto sx = static_cast<int64_t>(p.sx);
  int64_t col0 = static_cast<int64_t>(rx) - static_cast<int64_t>(g.padding[2]);
  auto [lo, hi] = window::valid_range(col0, sx, in2, static_cast<int64_t>(p.wq));
  for (size_t r = 0; r < p.hq; ++r) {
    int64_t iy = static_cast<int64_t>(r * p.sy + ry) - static_cast<int64_t>(g.padding[1]);
    if (iy < 0 || iy >= in1) continue;
    C* row = q + r * p.wq;
    const C* src = xp + iy * in2;
    if (sx == 1)
      for (int64_t c = lo; c < hi; ++c) row[c] = src[col0 + c];
    else
      for (int64_t c = lo; c < hi; ++c) row[c] = src[col0 + c * sx];
  }
}

// grid[i] = bias + Σ_t w[t] · phases[tap_offset[t] + i] for i < cells, kBlock vectors at a time (independent sums
// hide the multiply-add latency).
template <class C> void sum_taps(const C* phases, const Phases& p, const C* w, C bias, C* grid) {
  typedef C Vec __attribute__((vector_size(gemm::kVecBytes)));
  constexpr size_t L = kLanes<C>;
  size_t taps = p.tap_offset.size();
  for (size_t i = 0; i < p.cells; i += kBlock * L) {
    Vec acc[kBlock];
#pragma GCC unroll 4
    for (size_t v = 0; v < kBlock; ++v) acc[v] = Vec{} + bias;
    for (size_t t = 0; t < taps; ++t) {
      const C* src = phases + p.tap_offset[t] + i;
      Vec wv = Vec{} + w[t];
#pragma GCC unroll 4
      for (size_t v = 0; v < kBlock; ++v) {
        Vec x;
        std::memcpy(&x, src + v * L, sizeof(Vec));
        acc[v] += wv * x;
      }
    }
    std::memcpy(grid + i, acc, sizeof(acc));
  }
}

// One output plane (input plane xp, kernel wk) through the phases; buffers (zeroed when made) hold the phases and
// the grid.
template <class C>
void plane(const C* xp, const C* wk, C bias, const Geometry& g, const Phases& p, std::vector<C>& buffers, C* op) {
  C* phase_buf = buffers.data();
  C* grid = phase_buf + p.sy * p.sx * p.plane();
  for (size_t phase : p.used) fill_phase(xp, g, p, phase / p.sx, phase % p.sx, phase_buf + phase * p.plane());
  sum_taps(phase_buf, p, wk, bias, grid);
  for (size_t y = 0; y < g.out[1]; ++y)
    for (size_t x = 0; x < g.out[2]; ++x) op[y * g.out[2] + x] = grid[y * p.wq + x];
}

}  // namespace depthwise_detail

using namespace depthwise_detail;

template <class C> void depthwise_conv(const C* x, const C* w, const C* bias, C* out, size_t batch, size_t cin,
                                       size_t cout, const Geometry& g) {
  size_t per_input = cout / cin, n = g.out_size();
  bool use_phases = planar(g);
  Phases p = use_phases ? phases_of<C>(g) : Phases{};
  parallel_for(batch * cout, 1, [&](size_t pb, size_t pe) {
    std::vector<C> buffers(use_phases ? p.sy * p.sx * p.plane() + p.cells : 0);
    for (size_t item = pb; item < pe; ++item) {
      size_t b = item / cout, oc = item % cout;
      const C* xp = x + (b * cin + oc / per_input) * g.in_size();
      const C* wk = w + oc * g.kernel_size();
      C bv = bias ? bias[oc] : C(0);
      if (use_phases) plane(xp, wk, bv, g, p, buffers, out + item * n);
      else volume(xp, wk, bv, g, out + item * n);
    }
  });
}

template void depthwise_conv<float>(const float*, const float*, const float*, float*, size_t, size_t, size_t,
                                    const Geometry&);
template void depthwise_conv<double>(const double*, const double*, const double*, double*, size_t, size_t, size_t,
                                     const Geometry&);

}  // namespace scorch::backends::cpu::kernels
