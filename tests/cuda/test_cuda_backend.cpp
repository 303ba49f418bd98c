// The Cuda backend's own guarantees: devices and errors without a GPU; with one, in-place reuse of
// uniquely owned buffers, the caching pool (size classes, reuse, cap, release), every dtype through
// a round trip, permuted copies, asynchronous queuing with host reads that wait, and the autotune cache on disk.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <scorch/backends/cuda/kernels/kernels.h>

#include "cuda_test_util.h"

namespace scorch {
namespace {

namespace cuda = backends::cuda;
using backends::cuda::CudaTensor;

CudaTensor ramp(size_t n, DType dtype = DType::F32) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) - 2.5f;
  return Cuda::float_from_data(TensorData(v, Shape{n}).convert(dtype), CudaDevice{0});
}

TEST(CudaBackend, NamesAndDevicesWithoutAGpu) {
  EXPECT_EQ(Cuda::name(), "cuda");
  EXPECT_EQ(Autodiff<Cuda>::name(), "autodiff<cuda>");
  EXPECT_EQ(CudaDevice{1}.to_string(), "Cuda(1)");
  EXPECT_NE(CudaDevice{0}, CudaDevice{1});
  // Every runtime query answers without a GPU; creating a tensor on a missing device throws.
  EXPECT_EQ(cuda::is_available(), cuda::device_count() > 0);
  EXPECT_THROW((void)Cuda::float_empty(Shape{2}, CudaDevice{cuda::device_count()}, DType::F32), DeviceError);
}

TEST(CudaBackend, UniqueOperandIsOverwrittenInPlace) {
  SCORCH_REQUIRE_CUDA();
  CudaTensor a = ramp(8), b = ramp(8);
  const void* storage = a.storage().get();
  CudaTensor sum = Cuda::float_add(std::move(a), b);
  EXPECT_EQ(sum.storage().get(), storage) << "the only handle's buffer should hold the result";
  CudaTensor e = Cuda::float_exp(std::move(sum));
  EXPECT_EQ(e.storage().get(), storage);
  CudaTensor keep = ramp(8);
  CudaTensor shared = keep;
  CudaTensor doubled = Cuda::float_mul_scalar(std::move(shared), Scalar(2.0));
  EXPECT_NE(doubled.storage().get(), keep.storage().get());
  EXPECT_EQ(Cuda::float_into_data(keep), Cuda::float_into_data(ramp(8)));
}

TEST(CudaBackend, EveryDTypeRoundTripsAndCasts) {
  SCORCH_REQUIRE_CUDA();
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32, DType::I16, DType::I8,
                  DType::U8, DType::Bool}) {
    TensorData data = TensorData(std::vector<float>{0, 1, 2, 3, 4, 5}, Shape{2, 3}).convert(d);
    CudaTensor t = Cuda::float_from_data(data, CudaDevice{0});
    EXPECT_EQ(t.dtype(), d) << dtype_name(d);
    EXPECT_EQ(Cuda::float_into_data(t), data) << dtype_name(d);
    for (DType to : {DType::F32, DType::BF16, DType::I64, DType::Bool})
      EXPECT_EQ(Cuda::float_into_data(Cuda::float_cast(t, to)), data.convert(to))
          << dtype_name(d) << " -> " << dtype_name(to);
  }
}

/// Permuted views made contiguous (the 16-byte-word copy when the last dim is contiguous and whole words, the
/// per-element one otherwise: an odd last dim, a view that starts mid-word) equal the host's.
TEST(CudaBackend, PermutedViewsCopyLikeTheHost) {
  SCORCH_REQUIRE_CUDA();
  for (DType d : {DType::F64, DType::F32, DType::BF16, DType::F16}) {
    for (size_t last : {64, 24, 7}) {
      auto host = Tensor<backends::cpu::Cpu, 4>::random({2, 5, 3, last + 8}, Distribution::normal(0, 1)).cast(d);
      auto gpu = Tensor<Cuda, 4>::from_data(host.to_data());
      for (int64_t start : {0, 1}) {
        auto view = [&](auto t) {
          auto part = t.slice({Slice(), Slice(), Slice(), Slice(start, start + static_cast<int64_t>(last))});
          return part.swap_dims(1, 2).template reshape<2>({30, last});
        };
        EXPECT_EQ(view(gpu).to_data(), view(host).to_data()) << dtype_name(d) << " last " << last << " at " << start;
      }
    }
  }
}

TEST(CudaBackend, PoolReusesFreedBlocksAndReleasesThem) {
  SCORCH_REQUIRE_CUDA();
  cuda::synchronize(0);
  cuda::release_cached(0);
  { CudaTensor a = Cuda::float_empty(Shape{1000}, CudaDevice{0}, DType::F32); }
  auto before = cuda::pool_stats(0);
  EXPECT_GT(before.cached, 0u) << "a freed block stays cached";
  { CudaTensor b = Cuda::float_empty(Shape{990}, CudaDevice{0}, DType::F32); }  // same size class
  auto after = cuda::pool_stats(0);
  EXPECT_EQ(after.device_mallocs, before.device_mallocs) << "a block of the same size class is reused";
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
  cuda::release_cached(0);
  EXPECT_EQ(cuda::pool_stats(0).cached, 0u);
  size_t cap = cuda::cache_cap();
  cuda::set_cache_cap(0);
  { CudaTensor c = Cuda::float_empty(Shape{4096}, CudaDevice{0}, DType::F32); }
  EXPECT_EQ(cuda::pool_stats(0).cached, 0u) << "nothing is cached beyond the cap";
  cuda::set_cache_cap(cap);
}

TEST(CudaBackend, OpsQueueAndHostReadsWait) {
  SCORCH_REQUIRE_CUDA();
  auto x = Tensor<Cuda, 2>::random({2048, 2048}, Distribution::normal(0, 1));
  auto y = x;
  for (int i = 0; i < 20; ++i) y = (y * 0.5 + x).tanh();  // queued; nothing waits yet
  auto host = y.to_data();                                // waits for the whole chain
  auto ref = Tensor<Cpu, 2>::from_data(x.to_data());
  auto expect = ref;
  for (int i = 0; i < 20; ++i) expect = (expect * 0.5 + ref).tanh();
  host.assert_approx_eq(expect.to_data(), Tolerance::rel_abs(1e-4, 1e-5));
}

TEST(CudaBackend, ErrorsNameTheOp) {
  SCORCH_REQUIRE_CUDA();
  auto x = Tensor<Cuda, 1, Int>::from_data(TensorData(std::vector<int64_t>{4, 5}, Shape{2}));
  auto zero = Tensor<Cuda, 1, Int>::from_data(TensorData(std::vector<int64_t>{1, 0}, Shape{2}));
  try {
    (void)(x / zero).to_data();
    FAIL() << "integer division by zero must throw";
  } catch (const ValueError& e) { EXPECT_NE(std::string(e.what()).find("[div]"), std::string::npos) << e.what(); }
  EXPECT_THROW((void)Cuda::float_add(ramp(6), ramp(4)), ShapeError);
  EXPECT_THROW((void)Cuda::float_empty(Shape{size_t{1} << 50}, CudaDevice{0}, DType::F32), DeviceError)
      << "out of memory is an error";
}

TEST(CudaBackend, AutotuneCachesChoicesOnDisk) {
  SCORCH_REQUIRE_CUDA();
  namespace fs = std::filesystem;
  fs::path file = fs::temp_directory_path() / "scorch-autotune-test.tsv";
  fs::remove(file);
  ::setenv("SCORCH_AUTOTUNE_CACHE", file.c_str(), 1);
  cuda::clear_autotune_memory();
  cuda::set_autotune(true);
  auto a = Tensor<Cuda, 2>::random({96, 80}, Distribution::normal(0, 1));
  auto b = Tensor<Cuda, 2>::random({80, 72}, Distribution::normal(0, 1));
  uint64_t runs = cuda::autotune_benchmarks_run();
  auto first = a.matmul(b).to_data();
  EXPECT_EQ(cuda::autotune_benchmarks_run(), runs + 1) << "a new shape is benchmarked once";
  ASSERT_TRUE(fs::exists(file));
  (void)a.matmul(b).to_data();
  EXPECT_EQ(cuda::autotune_benchmarks_run(), runs + 1) << "a known shape uses the cached choice";
  cuda::clear_autotune_memory();  // as a new process: the choice comes from the file
  auto again = a.matmul(b).to_data();
  EXPECT_EQ(cuda::autotune_benchmarks_run(), runs + 1);
  again.assert_approx_eq(first, Tolerance::rel_abs(1e-5, 1e-6));
  // Autotune off: heuristics only, nothing benchmarked, the same values.
  cuda::set_autotune(false);
  auto c = Tensor<Cuda, 2>::random({33, 17}, Distribution::normal(0, 1));
  (void)c.matmul(c.transpose()).to_data();
  EXPECT_EQ(cuda::autotune_benchmarks_run(), runs + 1);
  cuda::set_autotune(true);
  ::unsetenv("SCORCH_AUTOTUNE_CACHE");
  cuda::clear_autotune_memory();
  fs::remove(file);
}

TEST(CudaBackend, MatmulTf32IsOptIn) {
  SCORCH_REQUIRE_CUDA();
  auto a = Tensor<Cuda, 2>::random({256, 256}, Distribution::normal(0, 1));
  auto b = Tensor<Cuda, 2>::random({256, 256}, Distribution::normal(0, 1));
  auto ref = Tensor<Cpu, 2>::from_data(a.to_data())
                 .cast(DType::F64)
                 .matmul(Tensor<Cpu, 2>::from_data(b.to_data()).cast(DType::F64));
  auto rel_err = [&](const Tensor<Cuda, 2>& c) {
    auto d = Tensor<Cpu, 2>::from_data(c.to_data()).cast(DType::F64) - ref;
    return std::sqrt((d * d).sum().into_scalar().to_double() / (ref * ref).sum().into_scalar().to_double());
  };
  EXPECT_LT(rel_err(a.matmul(b)), 1e-5) << "f32 matmul is exact f32 by default";
  cuda::set_allow_tf32(true);
  double tf32 = rel_err(a.matmul(b));
  cuda::set_allow_tf32(false);
  EXPECT_LT(tf32, 3e-3);
  EXPECT_LT(rel_err(a.cast(DType::BF16).matmul(b.cast(DType::BF16)).cast(DType::F32)), 2e-2);
}

/// The root-mean-square error of a Cuda product relative to its f64 reference on Cpu.
double relative_rms_error(const TensorData& product, const Tensor<Cpu, 3>& reference) {
  auto d = Tensor<Cpu, 3>::from_data(product).cast(DType::F64) - reference;
  return std::sqrt((d * d).sum().into_scalar().to_double() / (reference * reference).sum().into_scalar().to_double());
}

/// The f32 matmul mode for one scope; the previous mode comes back at its end (also on a failed assertion).
struct F32MatmulScope {
  cuda::F32Matmul previous = cuda::f32_matmul();
  explicit F32MatmulScope(cuda::F32Matmul mode) { cuda::set_f32_matmul(mode); }
  ~F32MatmulScope() { cuda::set_f32_matmul(previous); }
};

TEST(CudaBackend, MatmulTf32x3KeepsF32Accuracy) {
  SCORCH_REQUIRE_CUDA();
  // Batched, broadcast and transposed operands, large enough for the split (m·n / (m + n) >= 384).
  auto a = Tensor<Cuda, 3>::random({2, 1024, 300}, Distribution::normal(0, 1));
  auto bt = Tensor<Cuda, 3>::random({1, 1000, 300}, Distribution::normal(0, 1));
  auto b = bt.swap_dims(1, 2);
  auto ref = Tensor<Cpu, 3>::from_data(a.to_data())
                 .cast(DType::F64)
                 .matmul(Tensor<Cpu, 3>::from_data(b.to_data()).cast(DType::F64));
  double exact = relative_rms_error(a.matmul(b).to_data(), ref), split = 0, split_t = 0, one_pass = 0;
  {
    F32MatmulScope scope(cuda::F32Matmul::Tf32x3);
    EXPECT_EQ(cuda::f32_matmul(), cuda::F32Matmul::Tf32x3);
    EXPECT_FALSE(cuda::allow_tf32());
    split = relative_rms_error(a.matmul(b).to_data(), ref);
    auto at = Tensor<Cuda, 3>::from_data(a.swap_dims(1, 2).to_data()).swap_dims(1, 2);  // a's values, transposed
    split_t = relative_rms_error(at.matmul(Tensor<Cuda, 3>::from_data(b.to_data())).to_data(), ref);
  }
  {
    F32MatmulScope scope(cuda::F32Matmul::Tf32);
    one_pass = relative_rms_error(a.matmul(b).to_data(), ref);
  }
  std::printf("relative rms error: exact f32 %.3g, 3xTF32 %.3g (transposed a %.3g), TF32 %.3g\n", exact, split, split_t,
              one_pass);
  EXPECT_EQ(cuda::f32_matmul(), cuda::F32Matmul::Exact);
  EXPECT_LT(exact, 1e-6);
  EXPECT_LT(split, 4 * exact) << "3xTF32 has f32's order of error";  // H100, H200: 7.4e-7 to 7.6e-7 against 3.1e-7
  EXPECT_LT(split_t, 4 * exact);
  EXPECT_GT(one_pass, 30 * split) << "one TF32 pass loses ~3 decimal digits";
}

TEST(CudaBackend, MatmulTf32x3AppliesEpilogues) {
  SCORCH_REQUIRE_CUDA();
  // alpha, bias, residual and relu around a split product (the fused backend's cuBLASLt epilogue).
  auto x = Tensor<Cuda, 2>::random({1024, 512}, Distribution::normal(0, 1));
  auto w = Tensor<Cuda, 2>::random({512, 1024}, Distribution::normal(0, 1));
  auto bias = Tensor<Cuda, 2>::random({1, 1024}, Distribution::normal(0, 1));
  auto residual = Tensor<Cuda, 2>::random({1024, 1024}, Distribution::normal(0, 1));
  auto expected = activation::relu(x.matmul(w) * 0.5 + residual + bias).to_data();
  F32MatmulScope scope(cuda::F32Matmul::Tf32x3);
  backends::cuda::kernels::MatmulEpilogue epilogue{0.5, &bias.primitive(), &residual.primitive(), true};
  auto direct = backends::cuda::kernels::matmul_with_epilogue(x.primitive(), w.primitive(), epilogue);
  ASSERT_TRUE(direct.has_value());
  // The products' terms are ~sqrt(512) = 23 in size: 1e-4 is 4e-6 of them (the H200 differed by up to 2.4e-5).
  Tensor<Cuda, 2>(*direct).to_data().assert_approx_eq(expected, Tolerance::rel_abs(1e-5, 1e-4));
}

TEST(CudaBackend, LinearBackwardUnderEveryF32MatmulMode) {
  SCORCH_REQUIRE_CUDA();
  // The weight gradient's product (1024 × 2048 × 1024) takes the split under Tf32x3, which sums bias's gradient
  // apart (its pieces would each enter cuBLASLt's BGRADA sums); exact and one-pass modes sum it in the epilogue.
  auto x = Tensor<Cuda, 2>::random({2048, 1024}, Distribution::normal(0, 1));
  auto w = Tensor<Cuda, 2>::random({1024, 1024}, Distribution::normal(0, 0.03));
  auto g = Tensor<Cuda, 2>::random({2048, 1024}, Distribution::normal(0, 1));
  auto y = functional::linear(x, w, std::optional(Tensor<Cuda, 1>::zeros({1024})), true);
  auto exact = functional::linear_backward(x, w, true, true, y, g);
  for (auto mode : {cuda::F32Matmul::Tf32x3, cuda::F32Matmul::Tf32}) {
    F32MatmulScope scope(mode);
    auto r = functional::linear_backward(x, w, true, true, y, g);
    Tolerance tol = mode == cuda::F32Matmul::Tf32 ? Tolerance::rel_abs(1e-2, 1e-1) : Tolerance::rel_abs(1e-4, 1e-3);
    r.weight.to_data().assert_approx_eq(exact.weight.to_data(), tol);
    r.x.to_data().assert_approx_eq(exact.x.to_data(), tol);
    // Under Tf32x3 a plain sum; under Tf32 cuBLASLt's epilogue may sum the TF32-rounded values.
    r.bias->to_data().assert_approx_eq(exact.bias->to_data(),
                                       mode == cuda::F32Matmul::Tf32 ? tol : Tolerance::rel_abs(1e-5, 1e-4));
  }
}

TEST(CudaBackend, MatmulTf32x3KeepsSmallProductsAndEdgesExact) {
  SCORCH_REQUIRE_CUDA();
  auto a = Tensor<Cuda, 2>::random({64, 32}, Distribution::normal(0, 1));
  auto b = Tensor<Cuda, 2>::random({32, 48}, Distribution::normal(0, 1));
  // Values TF32 holds exactly (small integers) give exact sums in every mode; k = 0 gives zeros.
  auto ints = Tensor<Cuda, 2>::random({1024, 640}, Distribution::uniform(-8, 8)).floor();
  auto exact_small = a.matmul(b).to_data(), exact_ints = ints.matmul(ints.transpose()).to_data();
  F32MatmulScope scope(cuda::F32Matmul::Tf32x3);
  a.matmul(b).to_data().assert_eq(exact_small);  // small products skip the split
  ints.matmul(ints.transpose()).to_data().assert_eq(exact_ints);
  auto empty = Tensor<Cuda, 2>::zeros({600, 0}).matmul(Tensor<Cuda, 2>::zeros({0, 600})).to_data();
  double largest = Tensor<Cpu, 2>::from_data(empty).abs().max().into_scalar().to_double();
  EXPECT_EQ(largest, 0.0);
}

}  // namespace
}  // namespace scorch
