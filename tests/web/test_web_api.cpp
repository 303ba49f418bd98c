// The web models' C functions (scorch/web/web_api.h) on a registered linear layer: loading Bin and JSON records,
// running, the output's dims, and every failure as a message, not a crash. Runs natively and in the WebAssembly
// build (Node).
#include <gtest/gtest.h>

#include <scorch/module/formats/byte_io.h>
#include <scorch/module/formats/codec.h>
#include <scorch/module/recorder.h>
#include <scorch/nn/linear.h>
#include <scorch/web/web_api.h>
#include <scorch/web/web_model.h>

#include <string>
#include <vector>

namespace {

using namespace scorch;

struct AffineConfig {
  size_t inputs, outputs;
  SCORCH_CONFIG(AffineConfig, (inputs, outputs), ())
};

SCORCH_WEB_MODEL(test_affine, [](const std::string& config, const Record& record) {
  auto c = AffineConfig::from_json(config, "test_affine config");
  auto layer = nn::LinearConfig(c.inputs, c.outputs).init<Cpu>().load_record(record);
  return web::wrap<2>([layer](const Tensor<Cpu, 2>& x) { return layer.forward(x); });
});

/// A linear layer 3 → 2 and its record as Bin bytes.
struct Fixture {
  nn::Linear<Cpu> layer = nn::LinearConfig(3, 2).init<Cpu>();
  std::vector<std::byte> bin = BinBytesRecorder<>{}.record(layer.into_record());
  std::string config = AffineConfig{3, 2}.to_json();
  int32_t load() const {
    return scorch_web_load("test_affine", config.c_str(), reinterpret_cast<const uint8_t*>(bin.data()), bin.size());
  }
};

std::string error() { return scorch_web_error(); }

TEST(WebApi, RunsARegisteredModelAsItsForward) {
  Fixture f;
  int32_t handle = f.load();
  ASSERT_GT(handle, 0) << error();
  std::vector<float> x = {1, 2, 3, -1, 0, 0.5f};
  uint32_t dims[] = {2, 3};
  const float* y = scorch_web_run(handle, x.data(), dims, 2);
  ASSERT_NE(y, nullptr) << error();
  ASSERT_EQ(scorch_web_output_rank(handle), 2u);
  EXPECT_EQ(scorch_web_output_dims(handle)[0], 2u);
  EXPECT_EQ(scorch_web_output_dims(handle)[1], 2u);
  auto expected = f.layer.forward(Tensor<Cpu, 2>::from_data(TensorData(x, {2, 3}))).to_data().to_vector<float>();
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(y[i], expected[i]);
  EXPECT_TRUE(scorch_web_free(handle));
  EXPECT_EQ(std::string(scorch_web_models()).find("test_affine") != std::string::npos, true);
}

TEST(WebApi, LoadsJsonRecordsAndRunsEmptyBatches) {
  Fixture f;
  std::vector<std::byte> bytes;
  formats::VectorSink sink(bytes);
  formats::encode(f.layer.into_record(), formats::Precision::Full, formats::Format::Json, sink);
  int32_t handle =
      scorch_web_load("test_affine", f.config.c_str(), reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ASSERT_GT(handle, 0) << error();
  uint32_t dims[] = {0, 3};
  ASSERT_NE(scorch_web_run(handle, nullptr, dims, 2), nullptr) << error();
  EXPECT_EQ(scorch_web_output_dims(handle)[0], 0u);
  scorch_web_free(handle);
}

TEST(WebApi, FailuresAreMessagesThatNameTheProblem) {
  Fixture f;
  std::vector<uint8_t> junk = {1, 2, 3};
  EXPECT_EQ(scorch_web_load("nope", "{}", junk.data(), junk.size()), 0);
  EXPECT_NE(error().find("no model named 'nope'"), std::string::npos) << error();
  EXPECT_NE(error().find("test_affine"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_load("test_affine", f.config.c_str(), junk.data(), junk.size()), 0);
  EXPECT_NE(error().find("record bytes"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_load("test_affine", "{\"inputs\": 4, \"outputs\": 2}",
                            reinterpret_cast<const uint8_t*>(f.bin.data()), f.bin.size()),
            0);
  EXPECT_NE(error().find("[load_record]"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_load(nullptr, "{}", junk.data(), 3), 0);
  EXPECT_NE(error().find("must not be null"), std::string::npos) << error();

  int32_t handle = f.load();
  ASSERT_GT(handle, 0) << error();
  float x[8] = {};  // as many values as wrong_width names
  uint32_t rank3[] = {1, 2, 3}, wrong_width[] = {2, 4}, huge[] = {4000000000u, 4000000000u};
  EXPECT_EQ(scorch_web_run(handle, x, rank3, 3), nullptr);
  EXPECT_NE(error().find("rank 3; the model takes rank 2"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_run(handle, x, wrong_width, 2), nullptr);
  EXPECT_NE(error().find("[Linear::forward]"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_run(handle, x, huge, 2), nullptr);
  EXPECT_NE(error().find("too large"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_run(handle, nullptr, wrong_width, 2), nullptr);
  EXPECT_NE(error().find("input is null"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_output_rank(handle), 0u);  // no run has succeeded
  EXPECT_EQ(scorch_web_output_dims(handle), nullptr);
  EXPECT_TRUE(scorch_web_free(handle));
  EXPECT_FALSE(scorch_web_free(handle));
  EXPECT_NE(error().find("is not a loaded model"), std::string::npos) << error();
  EXPECT_EQ(scorch_web_run(handle, x, wrong_width, 2), nullptr);
  EXPECT_EQ(scorch_web_output_rank(handle), 0u);
}

}  // namespace
