// Signal operators computed on the host in f64: DFT (forward or inverse, one-sided, along any axis), STFT (windowed
// frames, each transformed) and MelWeightMatrix, as ONNX's reference defines them.
#include <cmath>
#include <complex>
#include <numbers>

#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
using Complex = std::complex<double>;

/// The first `bins` terms of the DFT of x zero-padded or cut to n points (divided by n when inverse).
std::vector<Complex> dft(const std::vector<Complex>& x, size_t n, size_t bins, bool inverse) {
  std::vector<Complex> out(bins);
  double sign = inverse ? 1.0 : -1.0;
  for (size_t k = 0; k < bins; ++k) {
    Complex sum = 0;
    for (size_t t = 0; t < std::min(n, x.size()); ++t)
      sum += x[t] * std::polar(1.0, sign * 2 * std::numbers::pi * double(k * t % n) / double(n));
    out[k] = inverse ? sum / double(n) : sum;
  }
  return out;
}

/// A signal [batch, ..., 1 or 2] as complex values and its shape without the last dim.
template <class B> std::pair<std::vector<Complex>, Shape> complex_input(const OpCall<B>& c, size_t input) {
  TensorData d = c.in(input).to_data();
  Shape s = d.shape();
  if (s.rank() < 2 || (s[s.rank() - 1] != 1 && s[s.rank() - 1] != 2))
    c.template fail<ShapeError>("signal must end in a dim of 1 (real) or 2 (complex), got " + s.to_string());
  auto v = d.convert(DType::F64).to_vector<double>();
  bool is_complex = s[s.rank() - 1] == 2;
  std::vector<Complex> z(v.size() / (is_complex ? 2 : 1));
  for (size_t i = 0; i < z.size(); ++i) z[i] = is_complex ? Complex(v[2 * i], v[2 * i + 1]) : Complex(v[i], 0);
  return {z, without_dim(s, s.rank() - 1)};
}

template <class B> Value<B> complex_output(const OpCall<B>& c, const std::vector<Complex>& z, Shape s, DType dtype) {
  std::vector<double> v;
  for (const Complex& x : z) v.push_back(x.real()), v.push_back(x.imag());
  s.push_back(2);
  return Value<B>::from_data(TensorData(v, s).convert(dtype), c.device());
}

template <class B> Value<B> dft_op(const OpCall<B>& c) {
  auto [z, s] = complex_input(c, 0);
  if (c.attr_int("axis", 1) == -1) c.template fail<ShapeError>("axis -1 is the real/imaginary dim");
  // axis counts the input's dims, the trailing real/imaginary one included: [-r, -2] or [0, r - 2].
  size_t axis = c.axis(c.attr_int("axis", 1) < 0 ? c.attr_int("axis", 1) + 1 : c.attr_int("axis", 1), s.rank());
  size_t n = c.has(1) ? size_t(c.host_ints(1).at(0)) : s[axis];
  bool inverse = c.attr_int("inverse", 0) != 0, onesided = c.attr_int("onesided", 0) != 0;
  if (n == 0) c.template fail<ValueError>("dft_length must be positive");
  size_t bins = onesided ? n / 2 + 1 : n, outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= s[i];
  for (size_t i = axis + 1; i < s.rank(); ++i) inner *= s[i];
  check_created(c, 2.0 * double(outer) * double(bins) * double(inner));
  std::vector<Complex> out(outer * bins * inner);
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      std::vector<Complex> line(s[axis]);
      for (size_t t = 0; t < s[axis]; ++t) line[t] = z[(o * s[axis] + t) * inner + i];
      auto f = dft(line, n, bins, inverse);
      for (size_t k = 0; k < bins; ++k) out[(o * bins + k) * inner + i] = f[k];
    }
  Shape os = s;
  os[axis] = bins;
  return complex_output(c, out, os, c.in(0).dtype());
}

template <class B> Value<B> stft(const OpCall<B>& c) {
  auto [z, s] = complex_input(c, 0);
  if (s.rank() != 2) c.template fail<ShapeError>("signal must be [batch, length, 1 or 2]");
  int64_t step = c.host_ints(1).at(0);
  std::vector<double> window = c.has(2) ? c.host_doubles(2) : std::vector<double>{};
  int64_t frame = c.has(3) ? c.host_ints(3).at(0) : int64_t(window.size());
  if (step <= 0 || frame <= 0 || size_t(frame) > s[1] || (!window.empty() && window.size() != size_t(frame)))
    c.template fail<ValueError>("frame_step, window and frame_length do not fit the signal");
  bool onesided = c.attr_int("onesided", 1) != 0;
  check_created(c, 2.0 * double(s[0]) * double(s[1]) * double(frame));
  size_t n = size_t(frame), frames = (s[1] - n) / size_t(step) + 1, bins = onesided ? n / 2 + 1 : n;
  std::vector<Complex> out;
  for (size_t b = 0; b < s[0]; ++b)
    for (size_t f = 0; f < frames; ++f) {
      std::vector<Complex> line(n);
      for (size_t t = 0; t < n; ++t) line[t] = z[b * s[1] + f * size_t(step) + t] * (window.empty() ? 1.0 : window[t]);
      auto spectrum = dft(line, n, bins, false);
      out.insert(out.end(), spectrum.begin(), spectrum.end());
    }
  return complex_output(c, out, Shape{s[0], frames, bins}, c.in(0).dtype());
}

template <class B> Value<B> mel_weight_matrix(const OpCall<B>& c) {
  int64_t mels = c.host_ints(0).at(0), dft_length = c.host_ints(1).at(0), rate = c.host_ints(2).at(0);
  double low = c.host_doubles(3).at(0), high = c.host_doubles(4).at(0);
  if (mels <= 0 || dft_length <= 0 || rate <= 0 || mels > 100000 || dft_length > 1000000)
    c.template fail<ValueError>("sizes must be positive and moderate");
  size_t spectrum = size_t(dft_length / 2 + 1);
  check_created(c, double(spectrum) * double(mels));
  double low_mel = 2595 * std::log10(1 + low / 700), high_mel = 2595 * std::log10(1 + high / 700);
  double step = (high_mel - low_mel) / double(mels + 2);
  std::vector<int64_t> bins(size_t(mels + 2));
  for (size_t i = 0; i < bins.size(); ++i) {
    double hz = 700 * (std::pow(10.0, (double(i) * step + low_mel) / 2595) - 1);
    bins[i] = int64_t(std::floor(double(dft_length + 1) * hz / double(rate)));
  }
  std::vector<double> w(spectrum * size_t(mels), 0.0);
  auto at = [&](int64_t j, size_t i) -> double& {
    if (j < 0 || size_t(j) >= spectrum) c.template fail<ValueError>("a mel band falls outside the spectrum");
    return w[size_t(j) * size_t(mels) + i];
  };
  for (size_t i = 0; i < size_t(mels); ++i) {
    int64_t left = bins[i], center = bins[i + 1], right = bins[i + 2];
    if (center == left) at(center, i) = 1;
    else
      for (int64_t j = left; j <= center; ++j) at(j, i) = double(j - left) / double(center - left);
    for (int64_t j = center; j < right; ++j) at(j, i) = double(right - j) / double(right - center);
  }
  return Value<B>::from_data(
      TensorData(w, Shape{spectrum, size_t(mels)}).convert(onnx_dtype(c, c.attr_int("output_datatype", 1))),
      c.device());
}

}  // namespace

template <class B> void register_signal_ops(OpTable<B>& t) {
  t["DFT"] = [](const OpCall<B>& c) -> Values<B> { return {dft_op(c)}; };
  t["STFT"] = [](const OpCall<B>& c) -> Values<B> { return {stft(c)}; };
  t["MelWeightMatrix"] = [](const OpCall<B>& c) -> Values<B> { return {mel_weight_matrix(c)}; };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_signal_ops)
