// The Vulkan backend's own guarantees, on the first Vulkan device (lavapipe in CI; skipped, saying why, without one):
// devices and errors, in-place reuse, the caching pool, batched submission with reads that wait, every dtype
// through a round trip and casts, the grid-stride loops past 65535 workgroups, matmul and reductions against the Cpu
// backend (odd sizes, transposed views, broadcast batches, every dtype), the host-run kernels counted, and a training
// loop on Autodiff<Vulkan> that follows Autodiff<Cpu>'s.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <scorch/scorch.hpp>
#include <scorch/stacks/vulkan/autodiff.h>

namespace scorch {
namespace {

namespace vk = backends::vulkan;
using backends::cpu::Cpu;
using backends::vulkan::VulkanTensor;

#define SCORCH_REQUIRE_VULKAN() \
  if (!vk::is_available()) GTEST_SKIP() << "no Vulkan device: " << vk::unavailable_reason()

template <size_t D> Tensor<Vulkan, D> on_vulkan(const Tensor<Cpu, D>& t) {
  return Tensor<Vulkan, D>::from_data(t.to_data());
}

TEST(VulkanBackend, NamesDevicesAndErrors) {
  EXPECT_EQ(Vulkan::name(), "vulkan");
  EXPECT_EQ(Autodiff<Vulkan>::name(), "autodiff<vulkan>");
  EXPECT_EQ(VulkanDevice{1}.to_string(), "Vulkan(1)");
  EXPECT_EQ(vk::is_available(), vk::device_count() > 0);
  EXPECT_EQ(vk::is_available(), vk::unavailable_reason().empty());
  // A device that does not exist is a DeviceError naming it, with or without a driver.
  try {
    (void)Vulkan::float_empty(Shape{2}, VulkanDevice{vk::device_count()}, DType::F32);
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("Vulkan(" + std::to_string(vk::device_count()) + ")"), std::string::npos);
  }
  SCORCH_REQUIRE_VULKAN();
  vk::DeviceInfo info = vk::device_info(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.max_workgroup_invocations, 256u);
  EXPECT_GT(info.subgroup_size, 0u);
  EXPECT_THROW((void)vk::device_info(vk::device_count()), DeviceError);
}

TEST(VulkanBackend, UniqueOperandIsOverwrittenInPlaceAndSharedOneIsNot) {
  SCORCH_REQUIRE_VULKAN();
  VulkanTensor a = Vulkan::float_from_data(TensorData(std::vector<float>{1, 2, 3}, Shape{3}), VulkanDevice{0});
  const void* storage = a.storage().get();
  VulkanTensor sum = Vulkan::float_add_scalar(std::move(a), Scalar(1.0));
  EXPECT_EQ(sum.storage().get(), storage);
  VulkanTensor keep = sum;
  VulkanTensor doubled = Vulkan::float_mul_scalar(keep, Scalar(2.0));
  EXPECT_NE(doubled.storage().get(), keep.storage().get());
  EXPECT_EQ(Vulkan::float_into_data(keep), TensorData(std::vector<float>{2, 3, 4}, Shape{3}));
  EXPECT_EQ(Vulkan::float_into_data(doubled), TensorData(std::vector<float>{4, 6, 8}, Shape{3}));
}

TEST(VulkanBackend, PoolReusesFreedBuffersAndReleasesThem) {
  SCORCH_REQUIRE_VULKAN();
  vk::synchronize(0);
  { VulkanTensor warm(Shape{1000}, DType::F32, VulkanDevice{0}); }
  vk::PoolStats before = vk::pool_stats(0);
  for (int i = 0; i < 10; ++i) VulkanTensor t(Shape{1000}, DType::F32, VulkanDevice{0});
  vk::PoolStats after = vk::pool_stats(0);
  EXPECT_EQ(after.allocations - before.allocations, 10u);
  EXPECT_EQ(after.cache_hits - before.cache_hits, 10u);
  EXPECT_EQ(after.device_mallocs, before.device_mallocs);
  EXPECT_GE(after.cached, 4000u);
  vk::release_cached(0);
  EXPECT_EQ(vk::pool_stats(0).cached, 0u);
}

TEST(VulkanBackend, DispatchesAreBatchedAndOnlyReadsWait) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Vulkan, 1>::from_data(TensorData(std::vector<float>(64, 1.f), Shape{64}));
  vk::synchronize(0);
  vk::WorkStats before = vk::work_stats(0);
  for (int i = 0; i < 600; ++i) x = x + 1.0;
  vk::WorkStats queued = vk::work_stats(0);
  EXPECT_EQ(queued.dispatches - before.dispatches, 600u);
  EXPECT_LE(queued.submissions - before.submissions, 3u) << "600 dispatches go out in batches of 256";
  EXPECT_EQ(x.to_data(), TensorData(std::vector<float>(64, 601.f), Shape{64}));
  EXPECT_EQ(vk::work_stats(0).host_fallbacks, before.host_fallbacks);
}

TEST(VulkanBackend, EveryDTypeRoundTripsAndCasts) {
  SCORCH_REQUIRE_VULKAN();
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32, DType::I16, DType::I8,
                  DType::U8, DType::Bool}) {
    TensorData data = TensorData(std::vector<float>{0, 1, 2, 3, 4, 5}, Shape{2, 3}).convert(d);
    VulkanTensor t = Vulkan::float_from_data(data, VulkanDevice{0});
    EXPECT_EQ(Vulkan::float_into_data(t), data) << dtype_name(d);
    for (DType to : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I8, DType::U8, DType::Bool})
      EXPECT_EQ(Vulkan::float_into_data(Vulkan::float_cast(t, to)), data.convert(to))
          << dtype_name(d) << " -> " << dtype_name(to);
  }
}

// round: ties to even in f32 and f64 (Mesa's lavapipe rounded f64 ties down in GLSL's roundEven), the value just
// under a half, huge values, -0.4 to -0, NaN and inf, as on Cpu.
TEST(VulkanBackend, RoundTiesToEvenInEveryFloatWidth) {
  SCORCH_REQUIRE_VULKAN();
  std::vector<double> values{0.5,
                             1.5,
                             2.5,
                             -0.5,
                             -1.5,
                             -2.5,
                             0.49999997,
                             -0.4,
                             4503599627370497.0,
                             1e300,
                             std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
  for (DType d : {DType::F64, DType::F32}) {
    TensorData data = TensorData(values, Shape{values.size()}).convert(d);
    auto expected = Tensor<Cpu, 1>::from_data(data).round().to_data();
    auto actual = Tensor<Vulkan, 1>::from_data(data, VulkanDevice{0}).round().to_data();
    auto e = expected.to_vector<double>(), a = actual.to_vector<double>();
    for (size_t i = 0; i < e.size(); ++i) {
      if (std::isnan(e[i])) EXPECT_TRUE(std::isnan(a[i])) << dtype_name(d) << " at " << i;
      else EXPECT_EQ(a[i], e[i]) << dtype_name(d) << " round(" << values[i] << ")";
      EXPECT_EQ(std::signbit(a[i]), std::signbit(e[i])) << dtype_name(d) << " sign of round(" << values[i] << ")";
    }
  }
}

TEST(VulkanBackend, LoopsCoverMoreThan65535Workgroups) {
  SCORCH_REQUIRE_VULKAN();
  size_t n = 65535 * 256 + 1000;  // past the dispatch's workgroup limit: the grid-stride loop's second pass
  auto x = Tensor<Vulkan, 1>::full({n}, 2.0);
  auto y = (x * 3.0).slice({Slice(static_cast<int64_t>(n) - 3, static_cast<int64_t>(n))});
  EXPECT_EQ(y.to_data(), TensorData(std::vector<float>{6, 6, 6}, Shape{3}));
  auto halves = (x * 3.0).reshape<2>({2, n / 2}).sum_dim(1);
  EXPECT_EQ(halves.to_data(), TensorData(std::vector<float>(2, 3.f * static_cast<float>(n)), Shape{2, 1}));
  // llvmpipe stops every loop of an invocation after 65535 iterations in all: a longer reduction is refused, not
  // wrong; a long dim that is not the last is moved last first (one workgroup per output).
  if (vk::device_info(0).name.starts_with("llvmpipe")) { EXPECT_THROW((void)x.sum().to_data(), DeviceError); }
  auto columns = Tensor<Vulkan, 2>::full({40000, 3}, 1.0).sum_dim(0);
  EXPECT_EQ(columns.to_data(), TensorData(std::vector<float>(3, 40000.f), Shape{1, 3}));
}

TEST(VulkanBackend, MatmulMatchesCpuOverSizesViewsBatchesAndDTypes) {
  SCORCH_REQUIRE_VULKAN();
  struct Case {
    Shape a, b;
    bool transpose_b;
  };
  std::vector<Case> cases = {{{1, 1, 1, 1}, {1, 1, 1, 1}, false},
                             {{1, 1, 7, 13}, {1, 1, 13, 5}, false},
                             {{1, 1, 65, 130}, {1, 1, 67, 130}, true},
                             {{3, 1, 5, 7}, {1, 4, 7, 6}, false},
                             {{2, 3, 0, 4}, {2, 3, 4, 5}, false},
                             {{1, 1, 4, 0}, {1, 1, 0, 3}, false},
                             // split-K: few output tiles, long k (slices summed afterwards)
                             {{1, 2, 5, 1100}, {1, 2, 1100, 7}, false},
                             {{2, 1, 40, 700}, {1, 1, 9, 700}, true},
                             // f16/bf16 off the tensor cores: widened to f32 first (k ≥ 256, m·n ≥ 65536)
                             {{1, 1, 256, 300}, {1, 1, 300, 260}, false}};
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    for (const auto& c : cases) {
      auto a = Tensor<Cpu, 4>::random(c.a, Distribution::uniform(-1, 1)).cast(d);
      auto b = Tensor<Cpu, 4>::random(c.b, Distribution::uniform(-1, 1)).cast(d);
      auto bc = c.transpose_b ? b.swap_dims(2, 3) : b;
      auto expected = a.matmul(bc).to_data();
      auto actual = on_vulkan(a).matmul(c.transpose_b ? on_vulkan(b).swap_dims(2, 3) : on_vulkan(b)).to_data();
      // Absolute error grows with the inner dim (split-K sums its slices in another order than the Cpu backend).
      double k = std::sqrt(static_cast<double>(std::max<size_t>(c.a[3], 1)));
      Tolerance tol = d == DType::F64   ? Tolerance{1e-12, 1e-12 * k}
                      : d == DType::F32 ? Tolerance{1e-5, 1e-5 * k}
                                        : Tolerance{1e-2, 1e-2 * k};
      expected.assert_approx_eq(actual, tol);
    }
  }
  for (DType d : {DType::I64, DType::I32, DType::I8}) {
    auto a = Tensor<Cpu, 3, Int>::random({2, 9, 17}, Distribution::uniform(-50, 50)).cast(d);
    auto b = Tensor<Cpu, 3, Int>::random({2, 17, 4}, Distribution::uniform(-50, 50)).cast(d);
    auto va = Tensor<Vulkan, 3, Int>::from_data(a.to_data()), vb = Tensor<Vulkan, 3, Int>::from_data(b.to_data());
    EXPECT_EQ(va.matmul(vb).to_data(), a.matmul(b).to_data()) << dtype_name(d);
  }
}

// f16 products on cooperative matrices where the device has them (NVIDIA; lavapipe runs the f32-accumulating
// kernel): aligned and ragged tiles, transposed operands, broadcast batches and long inner dims against the Cpu
// backend's f32 product of the same f16 values; operands whose chunks of 8 are not aligned take the other kernel.
TEST(VulkanBackend, F16MatmulOnCooperativeMatricesMatchesCpu) {
  SCORCH_REQUIRE_VULKAN();
  struct Case {
    Shape a, b;
    bool transpose_a, transpose_b, coop;
  };
  std::vector<Case> cases = {
      {{1, 128, 64}, {1, 64, 128}, false, false, true}, {{2, 200, 40}, {2, 40, 72}, false, false, true},
      {{3, 8, 16}, {1, 16, 24}, true, false, true},     {{1, 136, 1000}, {1, 1000, 8}, false, true, true},
      {{2, 256, 48}, {2, 48, 256}, true, true, true},   {{1, 33, 13}, {1, 13, 40}, false, false, false}};
  bool device_coop = vk::device_info(0).cooperative_matrix_f16;
  for (const auto& c : cases) {
    auto a = Tensor<Cpu, 3>::random(c.a, Distribution::uniform(-1, 1)).cast(DType::F16).cast(DType::F32);
    auto b = Tensor<Cpu, 3>::random(c.b, Distribution::uniform(-1, 1)).cast(DType::F16).cast(DType::F32);
    // A transposed view: the operand stored with its last two dims swapped, then swapped back.
    auto view = [](const Tensor<Cpu, 3>& x, bool t) {
      auto v = on_vulkan(t ? x.swap_dims(1, 2) : x).cast(DType::F16);
      return t ? v.swap_dims(1, 2) : v;
    };
    auto expected = a.matmul(b).cast(DType::F16).cast(DType::F32).to_data();
    uint64_t before = vk::work_stats(0).cooperative_matrix_dispatches;
    auto actual = view(a, c.transpose_a).matmul(view(b, c.transpose_b)).cast(DType::F32).to_data();
    double k = static_cast<double>(c.a[2]);
    expected.assert_approx_eq(actual, Tolerance{2e-3, 1e-3 * std::sqrt(k)});
    uint64_t used = vk::work_stats(0).cooperative_matrix_dispatches - before;
    EXPECT_EQ(used, device_coop && c.coop ? 1u : 0u) << c.a.to_string() << " · " << c.b.to_string();
  }
}

// Pipelines specialized per op and dtype (GPUs) and the dynamic ones (small launches on CPU devices) agree.
TEST(VulkanBackend, SpecializedAndDynamicPipelinesAgree) {
  SCORCH_REQUIRE_VULKAN();
  bool was = vk::specialized_pipelines(0);
  auto run = [](bool specialized) {
    vk::set_specialized_pipelines(specialized, 0);
    auto x =
        Tensor<Vulkan, 2>::from_data(TensorData(std::vector<float>{-2.5f, 0.f, 1.5f, NAN, 3.f, -0.f}, Shape{2, 3}));
    auto i = Tensor<Vulkan, 2, Int>::from_data(TensorData(std::vector<int32_t>{-4, 0, 9, 2, 5, -1}, Shape{2, 3}));
    std::vector<TensorData> out = {(x.exp() * x + 1.0).to_data(),
                                   x.greater_equal_elem(0.5).to_data(),
                                   x.mask_fill(x.lower_elem(0.0), 7.0).cast(DType::F16).to_data(),
                                   x.sum_dim(1).to_data(),
                                   x.argmax(1).to_data(),
                                   (i * i - 3).sum_dim(0).to_data(),
                                   x.swap_dims(0, 1).cast(DType::BF16).to_data()};
    return out;
  };
  std::vector<TensorData> specialized = run(true), dynamic = run(false);
  vk::set_specialized_pipelines(was, 0);
  for (size_t k = 0; k < specialized.size(); ++k) EXPECT_EQ(specialized[k], dynamic[k]) << "result " << k;
}

TEST(VulkanBackend, ProfileTimesEveryDispatchByShader) {
  SCORCH_REQUIRE_VULKAN();
  vk::synchronize(0);
  vk::set_profiling(true, 0);
  (void)vk::profile_report(0);  // clears what came before
  uint64_t before = vk::work_stats(0).dispatches;
  auto x = Tensor<Vulkan, 2>::random({64, 64}, Distribution::uniform(-1, 1));
  auto y = (x.exp() + 1.0).matmul(x).sum();
  (void)y.to_data();
  uint64_t dispatched = vk::work_stats(0).dispatches - before;
  std::vector<vk::ShaderTime> times = vk::profile(0);
  vk::set_profiling(false, 0);
  ASSERT_GE(times.size(), 3u);  // map, matmul, reduce, then the command buffers' spans
  EXPECT_EQ(times.back().shader, "(command buffers)");
  uint64_t timed = 0;
  double shaders_ms = 0;
  for (size_t i = 0; i + 1 < times.size(); ++i) {
    timed += times[i].dispatches;
    shaders_ms += times[i].milliseconds;
    EXPECT_GE(times[i].milliseconds, 0.0) << times[i].shader;
    if (i > 0) { EXPECT_LE(times[i].milliseconds, times[i - 1].milliseconds); }
  }
  EXPECT_EQ(timed, dispatched);
  EXPECT_GE(times.back().milliseconds, shaders_ms * 0.999);
  EXPECT_NE(vk::profile_report(0).find("matmul_f32"), std::string::npos);
  EXPECT_TRUE(vk::profile(0).empty());  // the report cleared the totals
}

TEST(VulkanBackend, ReductionsMatchCpuInBothShapes) {
  SCORCH_REQUIRE_VULKAN();
  for (Shape s : {Shape{3, 1000, 5}, Shape{5, 3, 70000}, Shape{1, 1, 1}}) {
    auto x = Tensor<Cpu, 3>::random(s, Distribution::normal(0, 1));
    auto v = on_vulkan(x);
    for (int64_t dim : {0, 1, 2}) {
      x.sum_dim(dim).to_data().assert_approx_eq(v.sum_dim(dim).to_data(), Tolerance{1e-5, 1e-5});
      x.mean_dim(dim).to_data().assert_approx_eq(v.mean_dim(dim).to_data(), Tolerance{1e-5, 1e-5});
      EXPECT_EQ(x.max_dim(dim).to_data(), v.max_dim(dim).to_data());
      EXPECT_EQ(x.argmin(dim).to_data(), v.argmin(dim).to_data());
    }
  }
  // Ties keep the first index; a NaN wins wherever it is.
  std::vector<float> values(3000, 1.f);
  values[2999] = 5.f;
  values[1700] = 5.f;
  auto ties = Tensor<Vulkan, 1>::from_data(TensorData(values, Shape{3000}));
  EXPECT_EQ(ties.argmax(0).to_data(), TensorData(std::vector<int64_t>{1700}, Shape{1}));
  values[2500] = std::numeric_limits<float>::quiet_NaN();
  auto nan = Tensor<Vulkan, 1>::from_data(TensorData(values, Shape{3000}));
  EXPECT_EQ(nan.argmax(0).to_data(), TensorData(std::vector<int64_t>{2500}, Shape{1}));
  EXPECT_TRUE(std::isnan(nan.max_dim(0).into_scalar().as<double>()));
  // An int mean floors, as on Cpu.
  auto ints = Tensor<Vulkan, 1, Int>::from_data(TensorData(std::vector<int64_t>{-3, 0, 1, 1}, Shape{4}));
  EXPECT_EQ(ints.mean_dim(0).to_data(), TensorData(std::vector<int64_t>{-1}, Shape{1}));
}

TEST(VulkanBackend, ErrorsNameTheOp) {
  SCORCH_REQUIRE_VULKAN();
  auto ints = Tensor<Vulkan, 1, Int>::from_data(TensorData(std::vector<int64_t>{4, 0}, Shape{2}));
  EXPECT_THROW((void)(ints / ints).to_data(), ValueError);
  auto a = Tensor<Vulkan, 2>::zeros({2, 3}), b = Tensor<Vulkan, 2>::zeros({4, 2});
  EXPECT_THROW((void)a.matmul(b), ShapeError);
  auto empty = Tensor<Vulkan, 1>::zeros({0});
  EXPECT_THROW((void)empty.max_dim(0), ShapeError);
  // An index out of range is found by the shader and reported, naming the op and the index, at the next read; the
  // read after that is clean.
  auto x = Tensor<Vulkan, 2>::zeros({2, 3});
  auto bad = Tensor<Vulkan, 2, Int>::from_data(TensorData(std::vector<int64_t>{0, 3}, Shape{2, 1}));
  try {
    (void)x.gather(1, bad).to_data();
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[gather] index 3 is out of range for a dim of size 3"), std::string::npos)
        << e.what();
  }
  auto good = Tensor<Vulkan, 2, Int>::from_data(TensorData(std::vector<int64_t>{0, -1}, Shape{2, 1}));
  EXPECT_EQ(x.gather(1, good).to_data(), TensorData(std::vector<float>{0, 0}, Shape{2, 1}));
}

// Pooling and its gradients run on the device (no host fallback) and agree with the Cpu backend; max pooling's
// gradient with an index outside the plane is a ShapeError at the next read.
TEST(VulkanBackend, PoolingRunsOnTheDeviceAndAgreesWithCpu) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Cpu, 4>::random({2, 3, 7, 6}, Distribution::normal(0, 1));
  backends::cpu::CpuTensor cx = x.primitive();
  VulkanTensor vx = on_vulkan(x).primitive();
  PoolSpec spec{{3, 2}, {2, 2}, {1, 1}, {1, 1}, true, false};
  uint64_t before = vk::work_stats(0).host_fallbacks;
  auto [cv, ci] = Cpu::module_max_pool_with_indices(cx, spec);
  auto [vv, vi] = Vulkan::module_max_pool_with_indices(vx, spec);
  EXPECT_EQ(Vulkan::float_into_data(vv), Cpu::float_into_data(cv));
  EXPECT_EQ(Vulkan::int_into_data(vi), Cpu::int_into_data(ci));
  Cpu::float_into_data(Cpu::module_max_pool_backward(cx, cv, ci))
      .assert_approx_eq(Vulkan::float_into_data(Vulkan::module_max_pool_backward(vx, vv, vi)), Tolerance{1e-6, 1e-6});
  auto ca = Cpu::module_avg_pool(cx, spec);
  auto va = Vulkan::module_avg_pool(vx, spec);
  Cpu::float_into_data(ca).assert_approx_eq(Vulkan::float_into_data(va), Tolerance{1e-6, 1e-6});
  Cpu::float_into_data(Cpu::module_avg_pool_backward(cx, ca, spec))
      .assert_approx_eq(Vulkan::float_into_data(Vulkan::module_avg_pool_backward(vx, va, spec)), Tolerance{1e-6, 1e-6});
  auto [av, ai] = Vulkan::module_adaptive_max_pool_with_indices(vx, SpatialDims{3, 4});
  EXPECT_EQ(Vulkan::int_into_data(ai),
            Cpu::int_into_data(Cpu::module_adaptive_max_pool_with_indices(cx, {3, 4}).second));
  EXPECT_EQ(vk::work_stats(0).host_fallbacks - before, 0u);
  if (vk::device_info(0).float32_atomic_add) {
    auto bad = Vulkan::int_add_scalar(vi, Scalar(int64_t{1000}));
    EXPECT_THROW((void)Vulkan::float_into_data(Vulkan::module_max_pool_backward(vx, vv, bad)), ShapeError);
  }
}

// Softmax and log-softmax are one dispatch each (a workgroup per row over the last dim, a lane per column
// otherwise) and agree with the Cpu backend, NaN lanes and f16 included.
TEST(VulkanBackend, SoftmaxIsOneDispatchAndMatchesCpu) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Cpu, 3>::random({3, 700, 5}, Distribution::normal(0, 3));
  x = x.mask_fill(x.greater_elem(7.5), NAN);
  for (size_t dim : {size_t{0}, size_t{1}, size_t{2}}) {
    for (DType d : {DType::F32, DType::F16}) {
      auto cx = x.cast(d);
      auto vx = on_vulkan(cx);
      vk::synchronize(0);
      uint64_t before = vk::work_stats(0).dispatches;
      auto dim_arg = static_cast<int64_t>(dim);
      auto soft = activation::softmax(vx, dim_arg), log_soft = activation::log_softmax(vx, dim_arg);
      EXPECT_EQ(vk::work_stats(0).dispatches - before, 2u);
      Tolerance tol = d == DType::F32 ? Tolerance{1e-5, 1e-6} : Tolerance{2e-3, 1e-4};
      activation::softmax(cx, dim_arg).to_data().assert_approx_eq(soft.to_data(), tol);
      activation::log_softmax(cx, dim_arg).to_data().assert_approx_eq(log_soft.to_data(), tol);
    }
  }
}

// Sorting runs on the device for dims of up to 2048 values and agrees with the Cpu backend's stable sort (ties keep
// their order, NaN is the largest value, descending too, int keys); a longer dim is sorted on the host.
TEST(VulkanBackend, SortIsStableOnTheDeviceAndAgreesWithCpu) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Cpu, 3>::random({3, 37, 4}, Distribution::uniform(-4, 4)).round();  // many ties
  x = x.mask_fill(x.equal_elem(3.0), NAN);
  uint64_t before = vk::work_stats(0).host_fallbacks;
  auto xi = Tensor<Cpu, 3>::random({3, 37, 4}, Distribution::uniform(-4, 4)).round().int_();
  for (int64_t dim : {0, 1, 2}) {
    auto [cv, ci] = x.sort_with_indices(dim);
    auto [vv, vi] = on_vulkan(x).sort_with_indices(dim);
    EXPECT_EQ(vv.to_data(), cv.to_data()) << dim;
    EXPECT_EQ(vi.to_data(), ci.to_data()) << dim;
    auto [cdv, cdi] = x.sort_descending_with_indices(dim);
    auto [vdv, vdi] = on_vulkan(x).sort_descending_with_indices(dim);
    EXPECT_EQ(vdv.to_data(), cdv.to_data()) << dim;
    EXPECT_EQ(vdi.to_data(), cdi.to_data()) << dim;
    EXPECT_EQ(on_vulkan(x).cast(DType::F64).argsort_descending(dim).to_data(), cdi.to_data());
    auto vxi = Tensor<Vulkan, 3, Int>::from_data(xi.to_data());
    EXPECT_EQ(vxi.sort(dim).to_data(), xi.sort(dim).to_data());
    EXPECT_EQ(vxi.argsort_descending(dim).to_data(), xi.argsort_descending(dim).to_data());
  }
  // lanes longer than one workgroup's 2048 slots: blocks, global steps and block steps over the scratch copy
  auto longer = Tensor<Cpu, 2>::random({5000, 3}, Distribution::uniform(-50, 50)).round();
  longer = longer.mask_fill(longer.equal_elem(7.0), NAN);
  for (bool descending : {false, true}) {
    auto vlonger = on_vulkan(longer);
    auto [cv, ci] = descending ? longer.sort_descending_with_indices(0) : longer.sort_with_indices(0);
    auto [vv, vi] = descending ? vlonger.sort_descending_with_indices(0) : vlonger.sort_with_indices(0);
    EXPECT_EQ(vv.to_data(), cv.to_data()) << descending;
    EXPECT_EQ(vi.to_data(), ci.to_data()) << descending;
  }
  auto long_ints = Tensor<Cpu, 1>::random({4097}, Distribution::uniform(-9, 9)).round().int_();
  using VulkanInts = Tensor<Vulkan, 1, Int>;
  EXPECT_EQ(VulkanInts::from_data(long_ints.to_data()).argsort(0).to_data(), long_ints.argsort(0).to_data());
  EXPECT_EQ(vk::work_stats(0).host_fallbacks - before, 0u);
}

// Cumulative ops run on the device, in the dim's order as the Cpu backend (NaN kept by cummin/cummax, ints wrap).
TEST(VulkanBackend, CumulativeOpsRunOnTheDeviceAndAgreeWithCpu) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Cpu, 3>::random({4, 50, 3}, Distribution::uniform(-1.1, 1.1));
  x = x.mask_fill(x.greater_elem(1.05), NAN);
  auto xi = Tensor<Cpu, 3>::random({4, 50, 3}, Distribution::uniform(-9, 9)).int_();
  auto vx = on_vulkan(x);
  auto vxi = Tensor<Vulkan, 3, Int>::from_data(xi.to_data());
  uint64_t before = vk::work_stats(0).host_fallbacks;
  for (int64_t dim : {0, 1, 2}) {
    Tolerance tol{1e-5, 1e-6};
    x.cumsum(dim).to_data().assert_approx_eq(vx.cumsum(dim).to_data(), tol);
    x.cumprod(dim).to_data().assert_approx_eq(vx.cumprod(dim).to_data(), tol);
    EXPECT_EQ(vx.cummin(dim).to_data(), x.cummin(dim).to_data());
    EXPECT_EQ(vx.cummax(dim).to_data(), x.cummax(dim).to_data());
    EXPECT_EQ(vxi.cumsum(dim).to_data(), xi.cumsum(dim).to_data());
    EXPECT_EQ(vxi.cumprod(dim).to_data(), xi.cumprod(dim).to_data());
    EXPECT_EQ(vxi.cummax(dim).to_data(), xi.cummax(dim).to_data());
  }
  EXPECT_EQ(vk::work_stats(0).host_fallbacks - before, 0u);
}

// Convolution as implicit GEMM (the input's windows read in place) and through a written column buffer
// (the default; SCORCH_VULKAN_IMPLICIT_CONV=0) agree with the Cpu backend: grouped, strided, padded and dilated, with
// gradients.
TEST(VulkanBackend, ImplicitAndExplicitConvolutionAgreeWithCpu) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Cpu, 4>::random({3, 4, 9, 8}, Distribution::normal(0, 1));
  auto w = Tensor<Cpu, 4>::random({6, 2, 3, 2}, Distribution::normal(0, 1));
  auto b = Tensor<Cpu, 1>::random({6}, Distribution::normal(0, 1));
  ConvSpec spec{{2, 1}, {1, 1}, {1, 2}, {0, 0}, 2};
  auto out = Cpu::module_conv(x.primitive(), w.primitive(), b.primitive(), spec);
  auto grad = Cpu::float_random(out.shape(), Distribution::normal(0, 1), {}, DType::F32);
  auto expected = Cpu::module_conv_backward(x.primitive(), w.primitive(), true, grad, spec);
  for (const char* implicit : {"1", "0"}) {
    setenv("SCORCH_VULKAN_IMPLICIT_CONV", implicit, 1);
    VulkanTensor vx = on_vulkan(x).primitive(), vw = on_vulkan(w).primitive(), vb = on_vulkan(b).primitive();
    VulkanTensor vg = Vulkan::float_from_data(Cpu::float_into_data(grad), VulkanDevice{0});
    Tolerance tol{1e-5, 1e-5};
    Cpu::float_into_data(out).assert_approx_eq(Vulkan::float_into_data(Vulkan::module_conv(vx, vw, vb, spec)), tol);
    auto grads = Vulkan::module_conv_backward(vx, vw, true, vg, spec);
    Cpu::float_into_data(expected.x).assert_approx_eq(Vulkan::float_into_data(grads.x), tol);
    Cpu::float_into_data(expected.weight).assert_approx_eq(Vulkan::float_into_data(grads.weight), tol);
    Cpu::float_into_data(*expected.bias).assert_approx_eq(Vulkan::float_into_data(*grads.bias), tol);
  }
  unsetenv("SCORCH_VULKAN_IMPLICIT_CONV");
}

// Transposed convolutions (and their gradients), unfold/fold and interpolation (every mode, up and down, with and
// without align_corners, its gradient gathered per input with a NaN spreading as the Cpu's scatter spreads it) run on
// the device and agree with the Cpu backend.
TEST(VulkanBackend, ResamplingAndTransposedConvolutionRunOnTheDevice) {
  SCORCH_REQUIRE_VULKAN();
  Tolerance tol{1e-5, 1e-5};
  auto agree = [&](const backends::cpu::CpuTensor& c, const VulkanTensor& v) {
    Cpu::float_into_data(c).assert_approx_eq(Vulkan::float_into_data(v), tol);
  };
  auto device = [](const backends::cpu::CpuTensor& c) { return Vulkan::float_from_data(Cpu::float_into_data(c), {}); };
  uint64_t before = vk::work_stats(0).host_fallbacks;
  auto x = Cpu::float_random(Shape{2, 4, 5, 6}, Distribution::normal(0, 1), {}, DType::F32);
  auto w = Cpu::float_random(Shape{4, 3, 3, 2}, Distribution::normal(0, 1), {}, DType::F32);
  auto b = Cpu::float_random(Shape{6}, Distribution::normal(0, 1), {}, DType::F32);
  // the second: padding_out ≥ stride (allowed below the dilation), so conv_out of the output overshoots x's extent
  for (ConvSpec spec : {ConvSpec{{2, 3}, {1, 0}, {1, 2}, {1, 2}, 2}, ConvSpec{{1, 1}, {0, 1}, {2, 2}, {1, 1}, 1}}) {
    auto y = Cpu::module_conv_transpose(x, w, b, spec);
    agree(y, Vulkan::module_conv_transpose(device(x), device(w), device(b), spec));
    auto g = Cpu::float_random(y.shape(), Distribution::normal(0, 1), {}, DType::F32);
    auto cg = Cpu::module_conv_transpose_backward(x, w, true, g, spec);
    auto vg = Vulkan::module_conv_transpose_backward(device(x), device(w), true, device(g), spec);
    agree(cg.x, vg.x);
    agree(cg.weight, vg.weight);
    agree(*cg.bias, *vg.bias);
  }
  PoolSpec windows{{3, 2}, {2, 1}, {1, 1}, {1, 2}, false, true};
  auto cols = Cpu::module_unfold(x, windows);
  agree(cols, Vulkan::module_unfold(device(x), windows));
  agree(Cpu::module_fold(cols, {5, 6}, windows), Vulkan::module_fold(device(cols), {5, 6}, windows));
  for (auto mode : {InterpolateMode::Nearest, InterpolateMode::Bilinear, InterpolateMode::Bicubic})
    for (bool align : {false, true})
      for (SpatialDims size : {SpatialDims{11, 13}, SpatialDims{3, 2}, SpatialDims{1, 6}}) {
        InterpolateSpec is{size, mode, align};
        auto up = Cpu::module_interpolate(x, is);
        agree(up, Vulkan::module_interpolate(device(x), is));
        auto random_grad = Cpu::float_random(up.shape(), Distribution::normal(0, 1), {}, DType::F32);
        TensorData grad = Cpu::float_into_data(random_grad);
        grad.as_mut_span<float>()[3] = std::numeric_limits<float>::quiet_NaN();
        auto cgrad = Cpu::float_from_data(grad, {});
        agree(Cpu::module_interpolate_backward(x, cgrad, is),
              Vulkan::module_interpolate_backward(device(x), Vulkan::float_from_data(grad, {}), is));
      }
  EXPECT_EQ(vk::work_stats(0).host_fallbacks - before, 0u);
}

// The multi-tensor Adam/AdamW step is one dispatch for the whole list and agrees with backend/provided's composition
// on Cpu for every float dtype, both weight decays, empty and multi-chunk tensors; inputs still shared elsewhere keep
// their values.
TEST(VulkanBackend, AdamStepsEveryParameterInOneDispatch) {
  SCORCH_REQUIRE_VULKAN();
  std::vector<Shape> shapes{Shape{3, 5}, Shape{0}, Shape{9000}, Shape{17}};
  for (DType dtype : {DType::F32, DType::F64, DType::F16})
    for (bool decoupled : {false, true}) {
      AdamStep step{1e-2, 0.9, 0.999, 1e-8, 0.1, decoupled, 3};
      std::vector<backends::cpu::CpuTensor> cp, cg, cm, cv;
      std::vector<VulkanTensor> vp, vg, vm, vv;
      for (const Shape& s : shapes) {
        auto random = [&](double lo) { return Cpu::float_random(s, Distribution::uniform(lo, 1), {}, dtype); };
        auto to_vulkan = [](const backends::cpu::CpuTensor& c) {
          return Vulkan::float_from_data(Cpu::float_into_data(c), {});
        };
        cp.push_back(random(-1)), cg.push_back(random(-1)), cm.push_back(random(-1)), cv.push_back(random(0));
        vp.push_back(to_vulkan(cp.back())), vg.push_back(to_vulkan(cg.back()));
        vm.push_back(to_vulkan(cm.back())), vv.push_back(to_vulkan(cv.back()));
      }
      VulkanTensor kept = vp[0];  // shared: its buffer must not be overwritten
      TensorData kept_before = Vulkan::float_into_data(kept);
      uint64_t before = vk::work_stats(0).dispatches;
      auto expected = ModuleOpsOf<Cpu>::adam_update_many(cp, cg, cm, cv, step);
      auto actual = ModuleOpsOf<Vulkan>::adam_update_many(vp, vg, vm, vv, step);
      EXPECT_EQ(vk::work_stats(0).dispatches - before, 1u);
      Tolerance tol = dtype == DType::F16 ? Tolerance{2e-3, 2e-3} : Tolerance{1e-6, 1e-6};
      for (size_t i = 0; i < shapes.size(); ++i) {
        Cpu::float_into_data(expected[i].param).assert_approx_eq(Vulkan::float_into_data(actual[i].param), tol);
        Cpu::float_into_data(expected[i].moment_1).assert_approx_eq(Vulkan::float_into_data(actual[i].moment_1), tol);
        Cpu::float_into_data(expected[i].moment_2).assert_approx_eq(Vulkan::float_into_data(actual[i].moment_2), tol);
      }
      EXPECT_EQ(Vulkan::float_into_data(kept), kept_before);
    }
}

// The multi-tensor SGD step is one dispatch and agrees with backend/provided's composition on Cpu: plain, with
// momentum on the first step (no velocities) and later ones, dampening, nesterov and weight decay, f32 and f64.
TEST(VulkanBackend, SgdStepsEveryParameterInOneDispatch) {
  SCORCH_REQUIRE_VULKAN();
  std::vector<Shape> shapes{Shape{4, 3}, Shape{0}, Shape{5000}};
  std::vector<SgdStep> steps{
      {0.1, 0, 0, 0, false, false}, {0.1, 1e-2, 0.9, 0.1, true, false}, {0.05, 0, 0.8, 0, true, true}};
  auto to_vulkan = [](const backends::cpu::CpuTensor& c) {
    return Vulkan::float_from_data(Cpu::float_into_data(c), {});
  };
  for (DType dtype : {DType::F32, DType::F64})
    for (const SgdStep& step : steps)
      for (bool first : {true, false}) {
        std::vector<backends::cpu::CpuTensor> cp, cg, cv;
        std::vector<VulkanTensor> vp, vg, vv;
        for (const Shape& s : shapes) {
          auto random = [&] { return Cpu::float_random(s, Distribution::uniform(-1, 1), {}, dtype); };
          cp.push_back(random()), cg.push_back(random());
          vp.push_back(to_vulkan(cp.back())), vg.push_back(to_vulkan(cg.back()));
          if (!first) cv.push_back(random()), vv.push_back(to_vulkan(cv.back()));
        }
        uint64_t before = vk::work_stats(0).dispatches;
        auto expected = ModuleOpsOf<Cpu>::sgd_update_many(cp, cg, cv, step);
        auto actual = ModuleOpsOf<Vulkan>::sgd_update_many(vp, vg, vv, step);
        EXPECT_EQ(vk::work_stats(0).dispatches - before, 1u);
        for (size_t i = 0; i < shapes.size(); ++i) {
          Tolerance tol{1e-6, 1e-6};
          Cpu::float_into_data(expected[i].param).assert_approx_eq(Vulkan::float_into_data(actual[i].param), tol);
          ASSERT_EQ(expected[i].velocity.has_value(), actual[i].velocity.has_value());
          if (expected[i].velocity)
            Cpu::float_into_data(*expected[i].velocity)
                .assert_approx_eq(Vulkan::float_into_data(*actual[i].velocity), tol);
        }
      }
}

// Views that start past their buffer's first element (a narrowed batch) reach the kernels that take bare buffer
// addresses (pooling, convolution windows, index ops, adaptive pooling, optimizer steps) with their values, not the
// buffer's first.
TEST(VulkanBackend, OffsetViewsReachAddressOnlyKernels) {
  SCORCH_REQUIRE_VULKAN();
  auto whole = Tensor<Cpu, 4>::random({3, 2, 6, 5}, Distribution::normal(0, 1));
  auto x = whole.narrow(0, 1, 2);
  auto vx = on_vulkan(whole).narrow(0, 1, 2);
  ASSERT_GT(vx.primitive().offset(), 0);
  PoolSpec spec{{2, 2}, {2, 1}, {1, 0}, {1, 1}, false, true};
  // averages to within rounding: GLSL's division need not be correctly rounded (NVIDIA's is not)
  Tolerance averages{1e-6, 1e-6};
  Cpu::float_into_data(Cpu::module_avg_pool(x.primitive(), spec))
      .assert_approx_eq(Vulkan::float_into_data(Vulkan::module_avg_pool(vx.primitive(), spec)), averages);
  EXPECT_EQ(Vulkan::float_into_data(Vulkan::module_max_pool_with_indices(vx.primitive(), spec).first),
            Cpu::float_into_data(Cpu::module_max_pool_with_indices(x.primitive(), spec).first));
  Cpu::float_into_data(Cpu::module_adaptive_avg_pool(x.primitive(), {2, 3}))
      .assert_approx_eq(Vulkan::float_into_data(Vulkan::module_adaptive_avg_pool(vx.primitive(), {2, 3})), averages);
  auto w = Tensor<Cpu, 4>::random({4, 2, 3, 3}, Distribution::normal(0, 1));
  ConvSpec conv{{1, 1}, {1, 1}, {1, 1}, {0, 0}, 1};
  Cpu::float_into_data(Cpu::module_conv(x.primitive(), w.primitive(), std::nullopt, conv))
      .assert_approx_eq(
          Vulkan::float_into_data(Vulkan::module_conv(vx.primitive(), on_vulkan(w).primitive(), std::nullopt, conv)),
          Tolerance{1e-5, 1e-5});
  auto idx = Tensor<Cpu, 1, Int>::from_data(TensorData(std::vector<int64_t>{4, 0, 2}, Shape{3}));
  auto vidx = Tensor<Vulkan, 1, Int>::from_data(idx.to_data());
  EXPECT_EQ(vx.select(3, vidx).to_data(), x.select(3, idx).to_data());
  // the optimizer steps' operands (a narrowed parameter, gradient and moments)
  AdamStep adam{1e-2, 0.9, 0.999, 1e-8, 0, false, 1};
  auto cx = x.primitive();
  auto vxp = vx.primitive();
  auto expected = ModuleOpsOf<Cpu>::adam_update_many({cx}, {cx}, {cx}, {Cpu::float_abs(cx)}, adam);
  auto actual = ModuleOpsOf<Vulkan>::adam_update_many({vxp}, {vxp}, {vxp}, {Vulkan::float_abs(vxp)}, adam);
  Cpu::float_into_data(expected[0].param).assert_approx_eq(Vulkan::float_into_data(actual[0].param), averages);
  SgdStep sgd{0.1, 0, 0.9, 0, true, false};
  auto sgd_expected = ModuleOpsOf<Cpu>::sgd_update_many({cx}, {cx}, {cx}, sgd);
  auto sgd_actual = ModuleOpsOf<Vulkan>::sgd_update_many({vxp}, {vxp}, {vxp}, sgd);
  Cpu::float_into_data(sgd_expected[0].param).assert_approx_eq(Vulkan::float_into_data(sgd_actual[0].param), averages);
}

TEST(VulkanBackend, HostRunKernelsAreCountedAndAgree) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Cpu, 2>::random({4, 9}, Distribution::normal(0, 1));
  uint64_t before = vk::work_stats(0).host_fallbacks;
  auto mask = x.greater_elem(0.0);
  using VulkanMask = Tensor<Vulkan, 2, Bool>;
  EXPECT_EQ(VulkanMask::from_data(mask.to_data()).argwhere().to_data(), mask.argwhere().to_data());
  EXPECT_EQ(vk::work_stats(0).host_fallbacks - before, 1u);
  // f64 transcendental functions run on the host for f64 precision.
  auto d = x.cast(DType::F64);
  d.exp().to_data().assert_approx_eq(on_vulkan(d).exp().to_data(), Tolerance{1e-15, 1e-15});
}

TEST(VulkanBackend, TrainingFollowsCpu) {
  SCORCH_REQUIRE_VULKAN();
  auto x = Tensor<Cpu, 2>::random({32, 8}, Distribution::normal(0, 1));
  auto target = Tensor<Cpu, 2>::random({32, 1}, Distribution::normal(0, 1));
  auto w0 = Tensor<Cpu, 2>::random({8, 1}, Distribution::normal(0, 0.1));
  auto run = [&]<class B>() {
    auto xs = Tensor<B, 2>::from_data(x.to_data()), ys = Tensor<B, 2>::from_data(target.to_data());
    auto w = Tensor<B, 2>::from_data(w0.to_data());
    std::vector<double> losses;
    for (int step = 0; step < 20; ++step) {
      auto leaf = w.require_grad();
      auto diff = xs.matmul(leaf).tanh() - ys;
      auto loss = (diff * diff).mean();
      auto grads = loss.backward();
      w = Tensor<B, 2>::from_inner(leaf.inner() - *leaf.grad(grads) * 0.1);
      losses.push_back(loss.into_scalar().template as<double>());
    }
    return losses;
  };
  auto cpu = run.template operator()<Autodiff<Cpu>>();
  auto gpu = run.template operator()<Autodiff<Vulkan>>();
  for (size_t i = 0; i < cpu.size(); ++i) EXPECT_NEAR(cpu[i], gpu[i], 1e-5 * (1 + std::abs(cpu[i]))) << "step " << i;
  EXPECT_LT(gpu.back(), gpu.front());
}

}  // namespace
}  // namespace scorch
