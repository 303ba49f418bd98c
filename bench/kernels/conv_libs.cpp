// The convolutions of ResNet-18 and MobileNetV2's depthwise layers through XNNPACK (NHWC, weights packed at
// creation) and oneDNN (blocked layouts it chooses, weights reordered once), one JSON line per layer and library
// with the same names as scorch-bench's conv2d_b1_* rows, so the three can be compared op by op (issue 65's
// kernel choice). Threads: --threads (XNNPACK's pthreadpool; oneDNN's OpenMP through OMP_NUM_THREADS).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <dnnl.hpp>
#include <pthreadpool.h>
#include <xnnpack.h>

#include "scorch/core/median_time.h"

namespace {

struct Layer {
  size_t cin, size, kernel, stride, cout, groups;
};

size_t out_size(const Layer& l) { return (l.size + 2 * (l.kernel / 2) - l.kernel) / l.stride + 1; }

double flop(const Layer& l, size_t batch) {
  size_t o = out_size(l);
  return 2.0 * batch * l.cout * (l.cin / l.groups) * l.kernel * l.kernel * o * o;
}

std::string name_of(const Layer& l, size_t batch) {
  std::string b = "_b" + std::to_string(batch) + "_c" + std::to_string(l.cin) + "_" + std::to_string(l.size);
  if (l.groups > 1) return "dwconv2d" + b + "_k3s" + std::to_string(l.stride);
  return "conv2d" + b + "_k" + std::to_string(l.kernel) + "s" + std::to_string(l.stride) + "_to" +
         std::to_string(l.cout);
}

std::vector<float> random_values(size_t n) {
  std::vector<float> v(n);
  uint32_t s = 12345;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
  return v;
}

void report(const Layer& l, size_t batch, const char* lib, double ms) {
  std::printf("{\"name\": \"%s\", \"lib\": \"%s\", \"ms\": %.4f, \"gflops\": %.2f}\n", name_of(l, batch).c_str(), lib,
              ms, flop(l, batch) / ms / 1e6);
  std::fflush(stdout);
}

void run_xnnpack(const Layer& l, size_t batch, pthreadpool_t pool, int reps) {
  size_t pad = l.kernel / 2, o = out_size(l), cin_g = l.cin / l.groups, cout_g = l.cout / l.groups;
  auto x = random_values(batch * l.size * l.size * l.cin), w = random_values(l.cout * l.kernel * l.kernel * cin_g);
  auto bias = random_values(l.cout);
  std::vector<float> y(batch * o * o * l.cout);
  xnn_operator_t op = nullptr;
  float inf = std::numeric_limits<float>::infinity();
  if (xnn_create_convolution2d_nhwc_f32(pad, pad, pad, pad, l.kernel, l.kernel, l.stride, l.stride, 1, 1, l.groups,
                                        cin_g, cout_g, l.cin, l.cout, w.data(), bias.data(), -inf, inf, 0,
                                        &op) != xnn_status_success ||
      xnn_setup_convolution2d_nhwc_f32(op, batch, l.size, l.size, x.data(), y.data(), pool) != xnn_status_success) {
    std::fprintf(stderr, "xnnpack: %s refused\n", name_of(l, batch).c_str());
    return;
  }
  report(l, batch, "xnnpack", scorch::median_ms([&] { xnn_run_operator(op, pool); }, reps, 5));
  xnn_delete_operator(op);
}

void run_onednn(const Layer& l, size_t batch, dnnl::engine& eng, dnnl::stream& s, int reps) {
  using dnnl::memory;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  auto p = static_cast<memory::dim>(l.kernel / 2), st = static_cast<memory::dim>(l.stride);
  auto k = static_cast<memory::dim>(l.kernel), o = static_cast<memory::dim>(out_size(l));
  auto n = static_cast<memory::dim>(batch), ci = static_cast<memory::dim>(l.cin), co = static_cast<memory::dim>(l.cout);
  auto g = static_cast<memory::dim>(l.groups), hw = static_cast<memory::dim>(l.size);
  memory::dims wdims = g > 1 ? memory::dims{g, co / g, ci / g, k, k} : memory::dims{co, ci, k, k};
  memory::desc src_any({n, ci, hw, hw}, dt::f32, tag::any), dst_any({n, co, o, o}, dt::f32, tag::any);
  memory::desc w_any(wdims, dt::f32, tag::any), b_md({co}, dt::f32, tag::x);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any,
                                    w_any, b_md, dst_any, {st, st}, {p, p}, {p, p});
  dnnl::convolution_forward::primitive_desc pd(d, eng);
  memory w_user({wdims, dt::f32, g > 1 ? tag::goihw : tag::oihw}, eng), w(pd.weights_desc(), eng);
  auto wv = random_values(w_user.get_desc().get_size() / 4);
  std::memcpy(w_user.get_data_handle(), wv.data(), wv.size() * 4);
  dnnl::reorder(w_user, w).execute(s, w_user, w);
  memory src(pd.src_desc(), eng), dst(pd.dst_desc(), eng), bias(b_md, eng);
  std::memset(src.get_data_handle(), 0, pd.src_desc().get_size());
  std::memset(bias.get_data_handle(), 0, b_md.get_size());
  dnnl::convolution_forward conv(pd);
  report(
      l, batch, "onednn",
      scorch::median_ms(
          [&] {
            conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}});
            s.wait();
          },
          reps, 5));
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 2;
  int reps = 30;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf(
          "usage: scorch-conv-libs [--threads N] [--reps N]\n"
          "ResNet-18's convolutions and MobileNetV2's depthwise ones at batch 1 and 8 through XNNPACK and\n"
          "oneDNN (set OMP_NUM_THREADS for oneDNN), one JSON line per layer and library.\n");
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "scorch-conv-libs: %s needs a value (see --help)\n", a.c_str());
      return 2;
    }
    if (a == "--threads") threads = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--reps") reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "scorch-conv-libs: unknown option %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "scorch-conv-libs: XNNPACK does not support this CPU\n");
    return 1;
  }
  pthreadpool_t pool = pthreadpool_create(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const Layer layers[] = {
      {3, 224, 7, 2, 64, 1},    {64, 56, 3, 1, 64, 1},   {64, 56, 3, 2, 128, 1},    {128, 28, 3, 1, 128, 1},
      {128, 28, 3, 2, 256, 1},  {256, 14, 3, 1, 256, 1}, {256, 14, 3, 2, 512, 1},   {512, 7, 3, 1, 512, 1},
      {256, 14, 1, 2, 512, 1},  {96, 112, 3, 2, 96, 96}, {144, 56, 3, 1, 144, 144}, {576, 14, 3, 1, 576, 576},
      {960, 7, 3, 1, 960, 960}, {32, 112, 1, 1, 16, 1},  {96, 56, 1, 1, 24, 1},     {960, 7, 1, 1, 320, 1}};
  for (size_t batch : {size_t(1), size_t(8)})
    for (const auto& l : layers) {
      run_xnnpack(l, batch, pool, reps);
      run_onednn(l, batch, eng, s, reps);
    }
  pthreadpool_destroy(pool);
  return 0;
}
