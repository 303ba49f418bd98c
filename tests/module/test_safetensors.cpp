// Safetensors: a file written by Hugging Face's library from a PyTorch model loads into the
// equivalent Scorch module and gives PyTorch's outputs; Scorch's own file is byte-for-byte the one
// that library verified (fixtures/gen_safetensors.py); key remaps; and corrupt files.
#include <gtest/gtest.h>

#include <fstream>

#include "module/record_fixtures.h"
#include "module/test_models.h"

namespace scorch::testing {

/// Net one level down ("inner.conv.weight"), for key remapping.
template <class B> struct Wrapped {
  Net<B> inner;
  SCORCH_MODULE(Wrapped, inner)
};

namespace {

const std::string kFixtures = SCORCH_MODULE_FIXTURES;

std::string read_bytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The tensors of a fixture's {"x", "y"} JSON.
Record read_io(const std::string& file) {
  std::string text = read_bytes(file);
  return formats::from_json_text(std::as_bytes(std::span(text)), file);
}

TEST(Safetensors, PyTorchFileLoadsAndGivesPyTorchOutputs) {
  auto net = Net<Cpu>::make().load_file(kFixtures + "/torch_net", SafetensorsFileRecorder<>{}, Cpu::Device{});
  Record io = read_io(kFixtures + "/torch_net.json");
  auto x = Tensor<Cpu, 4>::from_data(io.get_tensor("x").data);
  net.forward(x).to_data().assert_approx_eq(io.get_tensor("y").data, Tolerance::rel_abs(1e-5, 1e-5));
}

TEST(Safetensors, ScorchWritesTheFileTheReferenceLibraryVerified) {
  TempDir dir("st-bytes");
  auto net = formula_net<Cpu>();
  std::string file = net.save_file(dir.file("scorch_net"), SafetensorsFileRecorder<>{});
  EXPECT_TRUE(read_bytes(file) == read_bytes(kFixtures + "/scorch_net.safetensors"));
  // The MessagePack fixture differs only in its random ParamIds: compare what it loads to.
  auto from_mpk = Net<Cpu>::make().load_file(kFixtures + "/scorch_net", NamedMpkFileRecorder<>{}, Cpu::Device{});
  from_mpk.layers[0].weight.val().to_data().assert_eq(net.layers[0].weight.val().to_data());
  from_mpk.conv.bias.val().to_data().assert_eq(net.conv.bias.val().to_data());
  std::string report = read_bytes(kFixtures + "/verify_report.json");  // what gen_safetensors.py verify printed
  EXPECT_NE(report.find("\"mpk_conv_weight_matches\": true"), std::string::npos) << report;
}

TEST(Safetensors, RoundTripAndHalfPrecision) {
  TempDir dir("st-round");
  auto net = Net<Cpu>::make();
  net.save_file(dir.file("full"), SafetensorsFileRecorder<>{});
  auto loaded = Net<Cpu>::make().load_file(dir.file("full"), SafetensorsFileRecorder<>{}, Cpu::Device{});
  loaded.layers[0].weight.val().to_data().assert_eq(net.layers[0].weight.val().to_data());

  net.save_file(dir.file("half"), SafetensorsFileRecorder<HalfPrecisionSettings>{});
  Record half = SafetensorsFileRecorder<>{}.load(dir.file("half"));
  EXPECT_EQ(half.at("conv").get_tensor("weight").data.dtype(), DType::F16);
  auto from_half = Net<Cpu>::make().load_file(dir.file("half"), SafetensorsFileRecorder<>{}, Cpu::Device{});
  EXPECT_EQ(from_half.conv.weight.val().dtype(), DType::F32);
  from_half.conv.weight.val().to_data().assert_approx_eq(net.conv.weight.val().to_data(),
                                                         Tolerance::rel_abs(1e-3, 1e-3));
}

TEST(Safetensors, KeyRemapsRenameBeforeLoading) {
  TempDir dir("st-remap");
  Wrapped<Cpu> wrapped{Net<Cpu>::make()};
  wrapped.save_file(dir.file("wrapped"), SafetensorsFileRecorder<>{});
  EXPECT_THROW((void)Net<Cpu>::make().load_file(dir.file("wrapped"), SafetensorsFileRecorder<>{}, Cpu::Device{}),
               FormatError);
  auto recorder = SafetensorsFileRecorder<>{}.with_key_remap("^inner\\.(.*)", "$1");
  auto net = Net<Cpu>::make().load_file(dir.file("wrapped"), recorder, Cpu::Device{});
  net.conv.bias.val().to_data().assert_eq(wrapped.inner.conv.bias.val().to_data());
}

TEST(Safetensors, OnlyTensorsCanBeSaved) {
  TempDir dir("st-values");
  EXPECT_THROW(SafetensorsFileRecorder<>{}.record(optimizer_like_record(), dir.file("state")), FormatError);
}

/// Loading file as Net must throw FormatError mentioning part and the file.
void expect_corrupt(const std::string& file, const std::string& part) {
  try {
    (void)Net<Cpu>::make().load_file(file, SafetensorsFileRecorder<>{}, Cpu::Device{});
    FAIL() << part;
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
}

TEST(Safetensors, CorruptFilesAreClearErrors) {
  TempDir dir("st-bad");
  std::string good = read_bytes(kFixtures + "/torch_net.safetensors");
  auto write = [&](const std::string& bytes) {
    std::ofstream(dir.file("bad.safetensors"), std::ios::binary | std::ios::trunc) << bytes;
    return dir.file("bad.safetensors");
  };
  expect_corrupt(write(good.substr(0, good.size() - 10)), "outside");
  expect_corrupt(write(good.substr(0, 5)), "truncated");
  std::string huge = good;
  huge[7] = 0x7f;
  expect_corrupt(write(huge), "header length");
  std::string bad_json = good;
  bad_json[8] = '[';
  expect_corrupt(write(bad_json), "header");
  std::string bad_dtype = good;
  bad_dtype.replace(bad_dtype.find("\"F32\""), 5, "\"Q32\"");
  expect_corrupt(write(bad_dtype), "unsupported dtype");
}

}  // namespace
}  // namespace scorch::testing
