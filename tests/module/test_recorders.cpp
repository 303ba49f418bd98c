// Every recorder × precision: arbitrary records and modules round-trip (across backends), the
// extension is added, and bad files give clear errors that leave the module unchanged.
#include <gtest/gtest.h>

#include <fstream>

#include "module/record_fixtures.h"
#include "module/test_models.h"

namespace scorch::testing {
namespace {

using AD = Autodiff<Cpu>;

template <class R> class RecorderTest : public ::testing::Test {};
using FileRecorders =
    ::testing::Types<NamedMpkFileRecorder<HalfPrecisionSettings>, NamedMpkFileRecorder<FullPrecisionSettings>,
                     NamedMpkFileRecorder<DoublePrecisionSettings>, NamedMpkGzFileRecorder<HalfPrecisionSettings>,
                     NamedMpkGzFileRecorder<FullPrecisionSettings>, NamedMpkGzFileRecorder<DoublePrecisionSettings>,
                     BinFileRecorder<HalfPrecisionSettings>, BinFileRecorder<FullPrecisionSettings>,
                     BinFileRecorder<DoublePrecisionSettings>, BinGzFileRecorder<HalfPrecisionSettings>,
                     BinGzFileRecorder<FullPrecisionSettings>, BinGzFileRecorder<DoublePrecisionSettings>,
                     JsonGzFileRecorder<HalfPrecisionSettings>, JsonGzFileRecorder<FullPrecisionSettings>,
                     JsonGzFileRecorder<DoublePrecisionSettings>, PrettyJsonFileRecorder<HalfPrecisionSettings>,
                     PrettyJsonFileRecorder<FullPrecisionSettings>, PrettyJsonFileRecorder<DoublePrecisionSettings>>;
TYPED_TEST_SUITE(RecorderTest, FileRecorders);

template <class R> formats::Precision precision_of_recorder();
template <formats::Format F, bool G, class S>
formats::Precision precision_of_recorder_impl(const FileRecorder<F, G, S>*) {
  return S::precision;
}
template <class R> formats::Precision precision_of_recorder() {
  return precision_of_recorder_impl(static_cast<const R*>(nullptr));
}

TYPED_TEST(RecorderTest, ArbitraryRecordsRoundTrip) {
  TempDir dir("rec");
  TypeParam recorder;
  Record original = optimizer_like_record();
  std::string file = recorder.record(original, dir.file("state"));
  EXPECT_EQ(file, dir.file("state." + TypeParam::extension()));
  EXPECT_TRUE(std::filesystem::exists(file));
  EXPECT_EQ(recorder.record(original, file), file);  // an existing extension is not doubled
  expect_same_record(original, recorder.load(dir.file("state")), precision_of_recorder<TypeParam>());
}

TYPED_TEST(RecorderTest, ModuleSavedOnAutodiffLoadsOnCpu) {
  TempDir dir("rec-module");
  TypeParam recorder;
  Cpu::seed(11);
  auto trained = Net<AD>::make();
  trained.save_file(dir.file("model"), recorder);
  auto fresh = Net<Cpu>::make();
  auto loaded = fresh.load_file(dir.file("model"), recorder, Cpu::Device{});
  auto x = Tensor<Cpu, 4>::random({3, 2, 6, 6}, Distribution::Default);
  auto expected = trained.valid().forward(x).to_data();
  bool half = precision_of_recorder<TypeParam>() == formats::Precision::Half;
  loaded.forward(x).to_data().assert_approx_eq(expected,
                                               half ? Tolerance::rel_abs(2e-2, 2e-2) : Tolerance::rel_abs(1e-6, 1e-6));
  EXPECT_EQ(loaded.layers[1].weight.id(), trained.layers[1].weight.id());
  EXPECT_EQ(loaded.layers[1].weight.val().dtype(), DType::F32);  // converted back to the module's dtype
}

/// The file's bytes, changed by edit, written back.
void edit_file(const std::string& file, const std::function<void(std::string&)>& edit) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  in.close();
  edit(bytes);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

/// Loading must throw a scorch::Error naming file, leaving model unchanged.
template <class R>
void expect_bad_file(const Net<Cpu>& model, const std::string& path, const R& recorder, const std::string& what) {
  auto before = model.layers[0].weight.val().to_data();
  try {
    (void)model.load_file(path, recorder, Cpu::Device{});
    ADD_FAILURE() << what << ": no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(recorder.file_path(path)), std::string::npos) << what << ": " << e.what();
  }
  model.layers[0].weight.val().to_data().assert_eq(before);
}

TYPED_TEST(RecorderTest, TruncatedAndFlippedFilesAreClearErrors) {
  TempDir dir("rec-bad");
  TypeParam recorder;
  auto model = Net<Cpu>::make();
  std::string file = model.save_file(dir.file("model"), recorder);
  auto original = std::filesystem::file_size(file);

  edit_file(file, [](std::string& b) { b.resize(b.size() / 2); });
  expect_bad_file(model, dir.file("model"), recorder, "truncated");

  model.save_file(dir.file("model"), recorder);
  bool text = TypeParam::extension() == "json";
  edit_file(file, [&](std::string& b) {
    if (text) b[b.find("\"item\"") + 1] = '#';  // JSON has no checksum: break its structure
    else b[b.size() * 3 / 4] ^= 0x5a;           // in the middle of tensor bytes
  });
  EXPECT_EQ(std::filesystem::file_size(file), original);
  expect_bad_file(model, dir.file("model"), recorder, "flipped");

  std::filesystem::remove(file);
  EXPECT_THROW((void)model.load_file(dir.file("model"), recorder, Cpu::Device{}), IoError);
}

TEST(Recorder, WrongRecorderSaysWhichOneWroteTheFile) {
  TempDir dir("rec-wrong");
  auto model = Net<Cpu>::make();
  std::string file = model.save_file(dir.file("model"), BinFileRecorder<>{});
  std::filesystem::rename(file, dir.file("model.mpk"));
  try {
    (void)model.load_file(dir.file("model"), NamedMpkFileRecorder<>{}, Cpu::Device{});
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("BinFileRecorder"), std::string::npos) << e.what();
  }
  std::filesystem::rename(dir.file("model.mpk"), dir.file("model.mpk.gz"));
  EXPECT_THROW((void)model.load_file(dir.file("model"), CompactRecorder{}, Cpu::Device{}), FormatError);
}

TEST(Recorder, BinBytesReadsWhatBinFileWrote) {
  TempDir dir("rec-bytes");
  Record original = optimizer_like_record();
  auto bytes = BinBytesRecorder<FullPrecisionSettings>{}.record(original);
  expect_same_record(original, BinBytesRecorder<>{}.load(bytes), formats::Precision::Full);
  std::string file = BinFileRecorder<DoublePrecisionSettings>{}.record(original, dir.file("embedded"));
  std::ifstream in(file, std::ios::binary);
  std::vector<unsigned char> embedded((std::istreambuf_iterator<char>(in)), {});
  expect_same_record(original, BinBytesRecorder<>{}.load(std::span<const unsigned char>(embedded)),
                     formats::Precision::Double);
  embedded[embedded.size() / 2] ^= 1;
  EXPECT_THROW((void)BinBytesRecorder<>{}.load(std::span<const unsigned char>(embedded)), FormatError);
}

TEST(Recorder, FailedSaveLeavesTheOldFileAndNoTemporary) {
  TempDir dir("rec-atomic");
  std::string file = dir.file("state.bin");
  BinFileRecorder<>{}.record(Record::map().set("version", 1), file);
  EXPECT_THROW(formats::atomic_write(file,
                                     [](formats::ByteSink& sink) {
                                       sink.write("partial", 7);
                                       throw IoError("test", "disk full");
                                     }),
               IoError);
  EXPECT_EQ(BinFileRecorder<>{}.load(file).get_int("version"), 1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);

  Record not_savable = Record::map().set("__tensor__", 1);
  EXPECT_THROW(NamedMpkFileRecorder<>{}.record(not_savable, file), FormatError);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(Recorder, GzipLevelIsValidated) {
  TempDir dir("rec-level");
  EXPECT_THROW(NamedMpkGzFileRecorder<>{.compression_level = 10}.record(Record::map(), dir.file("x")), ValueError);
  auto small = NamedMpkGzFileRecorder<>{.compression_level = 9}.record(optimizer_like_record(), dir.file("x"));
  EXPECT_TRUE(std::filesystem::exists(small));
}

}  // namespace
}  // namespace scorch::testing
