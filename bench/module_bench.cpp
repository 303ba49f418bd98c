// Save and load speed of a 100M-parameter model (400 MB of f32 weights, random normal values)
// through the uncompressed and gzip recorders; MB/s counts the model's f32 bytes. Saves include
// into_record, encoding, writing and fsync; loads include reading (page cache warm), checking
// the checksum, decoding and building the tensors.
#include <filesystem>
#include <unistd.h>

#include "bench.h"

namespace scorch::bench {
namespace {

/// 100M parameters in ten 10M-element matrices.
template <class B> struct BigModel {
  std::vector<Param<Tensor<B, 2>>> weights;
  SCORCH_MODULE(BigModel, weights)
};

template <class Recorder> void save_load(const Options& o, const std::string& tag, const BigModel<Cpu>& model,
                                         const std::string& dir, double mb) {
  Options few = o;
  few.reps = std::min(o.reps, 3);
  std::string path = dir + "/model";
  run(
      few, "record_save_100m_" + tag, 0, [&] { model.save_file(path, Recorder{}); }, "mb_per_s",
      [mb](double ms) { return mb / ms * 1e3; });
  if (!std::filesystem::exists(Recorder{}.file_path(path))) model.save_file(path, Recorder{});
  run(
      few, "record_load_100m_" + tag, 1, [&] { (void)model.load_file(path, Recorder{}, Cpu::Device{}); }, "mb_per_s",
      [mb](double ms) { return mb / ms * 1e3; });
  std::filesystem::remove(Recorder{}.file_path(path));
}

}  // namespace

void module_workloads(const Options& o) {
  const std::vector<std::string> tags = {"mpk", "bin", "safetensors", "mpk_gz", "bin_gz", "compact_f16_gz"};
  bool any = o.filter.empty();
  for (const auto& tag : tags)
    any = any || selected(o, "record_save_100m_" + tag) || selected(o, "record_load_100m_" + tag);
  if (!any) return;  // skip building the model
  BigModel<Cpu> model;
  for (int i = 0; i < 10; ++i)
    model.weights.push_back(Param(Tensor<Cpu, 2>::random({1000, 10000}, Distribution::normal(0, 0.02))));
  double mb = static_cast<double>(model.num_params()) * 4 / 1e6;
  std::string dir = (std::filesystem::temp_directory_path() / ("scorch-bench-" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  save_load<NamedMpkFileRecorder<>>(o, "mpk", model, dir, mb);
  save_load<BinFileRecorder<>>(o, "bin", model, dir, mb);
  save_load<SafetensorsFileRecorder<>>(o, "safetensors", model, dir, mb);
  save_load<NamedMpkGzFileRecorder<>>(o, "mpk_gz", model, dir, mb);
  save_load<BinGzFileRecorder<>>(o, "bin_gz", model, dir, mb);
  save_load<CompactRecorder>(o, "compact_f16_gz", model, dir, mb);
  std::filesystem::remove_all(dir);
}

}  // namespace scorch::bench
