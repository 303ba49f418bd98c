// PyTorch import (scorch/import/pytorch): torch.save files written by PyTorch 1.13 (fixtures/gen_pytorch.py) load
// into modules and give PyTorch's outputs (a state dict in the zip and the legacy format, a checkpoint's "model"
// entry, key remaps, partial loads);
// every dtype, view and value kind reads back as PyTorch saved it; and hostile or broken files are refused with a
// clear error, nothing executed and nothing huge allocated.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "module/expect_load_error.h"
#include "module/test_models.h"

namespace scorch::testing {

/// Net one level down ("inner.conv.weight"), for key remapping.
template <class B> struct NetInside {
  Net<B> inner;
  SCORCH_MODULE(NetInside, inner)
};

namespace {

const std::string kDir = std::string(SCORCH_MODULE_FIXTURES) + "/pytorch/";
/// Files PyTorch 1.13 (here) and 2.11 (the GPU machine) wrote from the same script.
const std::string kVersions[] = {kDir, std::string(SCORCH_MODULE_FIXTURES) + "/pytorch2/"};

nlohmann::json read_json(const std::string& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}
std::vector<double> values_of(const nlohmann::json& j) { return j["values"].get<std::vector<double>>(); }
Shape shape_of(const nlohmann::json& j) { return Shape(j["shape"].get<std::vector<size_t>>()); }

/// Net's output on the input of dir's net.json against PyTorch's.
void expect_pytorch_outputs(const Net<Cpu>& net, const std::string& dir = kDir) {
  auto io = read_json(dir + "net.json");
  auto x = Tensor<Cpu, 4>::from_data(TensorData(values_of(io["x"]), shape_of(io["x"])).convert(DType::F32));
  auto y = net.forward(x).to_data().to_vector<double>();
  auto expected = values_of(io["y"]);
  ASSERT_EQ(y.size(), expected.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-5) << i;
}

TEST(PyTorchImport, StateDictLoadsIntoTheModuleAndGivesPyTorchOutputs) {
  for (const auto& dir : kVersions) {
    SCOPED_TRACE(dir);
    expect_pytorch_outputs(Net<Cpu>::make().load_file(dir + "net.pt", PyTorchFileRecorder<>{}, Cpu::Device{}), dir);
  }
}

TEST(PyTorchImport, LegacyFormatProtocolFourAndParametersLoadToo) {
  for (const auto& dir : kVersions) {
    SCOPED_TRACE(dir);
    expect_pytorch_outputs(Net<Cpu>::make().load_file(dir + "legacy.pt", PyTorchFileRecorder<>{}, Cpu::Device{}), dir);
  }
  for (const char* file : {"protocol4.pt", "parameters.pt"}) {
    SCOPED_TRACE(file);
    expect_pytorch_outputs(Net<Cpu>::make().load_file(kDir + file, PyTorchFileRecorder<>{}, Cpu::Device{}));
  }
}

TEST(PyTorchImport, CheckpointEntryByTopLevelKeyOrByRemapAndPartialLoad) {
  auto recorder = PyTorchFileRecorder<>{}.with_top_level_key("model");
  for (const auto& dir : kVersions)
    expect_pytorch_outputs(Net<Cpu>::make().load_file(dir + "checkpoint.pt", recorder, Cpu::Device{}), dir);
  // The whole checkpoint, "model." stripped, the optimizer's and the scalars' entries left unused.
  auto stripped = PyTorchFileRecorder<>{}.with_key_remap("^model\\.", "");
  LoadOptions partial;
  partial.allow_unused = true;
  expect_pytorch_outputs(Net<Cpu>::make().load_file(kDir + "checkpoint", stripped, Cpu::Device{}, partial));
  try {
    (void)pytorch::load(kDir + "checkpoint.pt", {{}, "state_dict"});
    FAIL() << "a missing top-level key must throw";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("no top-level key 'state_dict' (the file has 'model', 'optimizer'"),
              std::string::npos)
        << e.what();
  }
}

TEST(PyTorchImport, KeyRemapNestsTheStateDictOneLevelDown) {
  auto recorder = PyTorchFileRecorder<>{}.with_key_remap("^", "inner.");
  auto wrapped = NetInside<Cpu>{Net<Cpu>::make()}.load_file(kDir + "net.pt", recorder, Cpu::Device{});
  expect_pytorch_outputs(wrapped.inner);
}

/// The record entry at a dotted key.
const Record& at_key(const Record& root, const std::string& key) {
  const Record* node = &root;
  for (size_t start = 0;;) {
    size_t dot = key.find('.', start);
    node = &node->at(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return *node;
    start = dot + 1;
  }
}

void expect_values_as_saved(const std::string& dir) {
  SCOPED_TRACE(dir);
  Record r = pytorch::load(dir + "values.pt");
  auto expected = read_json(dir + "values.json");
  ASSERT_EQ(expected.size(), 19u);  // every tensor of values.pt
  for (const auto& [key, j] : expected.items()) {
    SCOPED_TRACE(key);
    const TensorData& data = at_key(r, key).as_tensor().data;
    static const std::map<std::string, std::string> kNames = {
        {"float32", "f32"}, {"float64", "f64"}, {"float16", "f16"}, {"bfloat16", "bf16"}, {"int64", "i64"},
        {"int32", "i32"},   {"int16", "i16"},   {"int8", "i8"},     {"uint8", "u8"},      {"bool", "bool"}};
    EXPECT_EQ(dtype_name(data.dtype()), kNames.at(j["dtype"].get<std::string>()));
    EXPECT_EQ(data.shape(), shape_of(j));
    EXPECT_EQ(data.to_vector<double>(), values_of(j));
  }
  EXPECT_EQ(at_key(r, "count").as_int(), 12);
  EXPECT_EQ(at_key(r, "rate").as_float(), 0.125);
  EXPECT_EQ(at_key(r, "name").as_string(), "layer");
  EXPECT_TRUE(at_key(r, "flag").as_bool());
  EXPECT_TRUE(at_key(r, "nothing").is_null());
}

TEST(PyTorchImport, EveryDtypeViewAndValueReadsBackAsSaved) {
  for (const auto& dir : kVersions) expect_values_as_saved(dir);
}

/// load throws FormatError whose message holds `expected`.
void expect_refused(const std::string& file, const std::string& expected) {
  expect_load_error([&] { (void)pytorch::load(kDir + file); }, file, expected);
}

TEST(PyTorchImport, RepeatedStoragesAreChargedBeforeTheyAreCopied) {
  // One 256 KiB tensor referenced 64 times: 16 MiB of copies from a 257 KiB file, over 4 × its size + 1 MiB.
  expect_refused("shared_many.pt",
                 "the tensors copied would pass 4 times the file's size (views repeating values, "
                 "shared storages); LoadOptions::max_copy_ratio raises the limit");
  pytorch::LoadOptions trusted;
  trusted.max_copy_ratio = 100;
  Record r = pytorch::load(kDir + "shared_many.pt", trusted);
  EXPECT_EQ(at_key(r, "copies.63").as_tensor().data.shape(), Shape{65536});
}

TEST(PyTorchImport, HostileAndBrokenFilesAreRefusedWithoutRunningAnything) {
  std::filesystem::remove("/tmp/scorch-pwned");
  expect_refused("evil_global.pt", "global 'posix.system' is not allowed");
  EXPECT_FALSE(std::filesystem::exists("/tmp/scorch-pwned"));
  expect_refused("evil_reduce.pt", "global 'builtins.print' is not allowed");
  expect_refused("evil_newobj.pt", "opcode 0x81 is not supported");
  expect_refused("wrong_size.pt", "storage '0' claims 8 f32 values but holds 16 bytes");
  expect_refused("huge_size.pt", "claims 1152921504606846976 f32 values but holds 16 bytes");
  expect_refused("past_storage.pt", "reads past its storage '0' of 4 values");
  expect_refused("huge_view.pt", "times the file's size");
  expect_refused("truncated_pickle.pt", "truncated");
  expect_refused("cycle.pt", "nests deeper than 64 levels");
  expect_refused("deep.pt", "nests deeper than 64 levels");
  expect_refused("wide.pt", "the file places more than 65536 values");
  expect_refused("bool_bytes.pt", "a bool storage holds a byte other than 0 and 1");
  expect_refused("big_endian.pt", "big-endian storages");
  expect_refused("no_storage.pt", "has no entry 'archive/data/0'");
  expect_refused("truncated.pt", "not a readable zip archive");
  expect_refused("compressed.pt", "is compressed");
  expect_refused("legacy_truncated.pt", "or the file ends");
  EXPECT_THROW((void)pytorch::load(kDir + "missing.pt"), IoError);
}

}  // namespace
}  // namespace scorch::testing
