// SCORCH_CONFIG: constructor for required fields, with_* setters, nested configs, JSON save/load
// and errors naming a missing, unknown or mistyped field.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "module/record_fixtures.h"

namespace scorch::testing {

SCORCH_ENUM(PaddingKind, Valid, Same, Explicit)

struct OptimizerSettings {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  std::optional<double> weight_decay;
  SCORCH_CONFIG(OptimizerSettings, (), (beta_1, beta_2, weight_decay))
};

struct LayerSettings {
  std::array<size_t, 2> kernel_size;
  std::array<size_t, 2> stride = {1, 1};
  PaddingKind padding = PaddingKind::Valid;
  SCORCH_CONFIG(LayerSettings, (kernel_size), (stride, padding))
};

// A field named `value` (once, the && setter assigned its own parameter to itself and left the field unset).
struct ValueSettings {
  double value = 0.0;
  SCORCH_CONFIG(ValueSettings, (), (value))
};

struct TrainingSettings {
  size_t num_classes;
  LayerSettings layer;
  double dropout = 0.5;
  std::string name = "guide";
  std::vector<int> milestones = {10, 20};
  bool shuffle = true;
  OptimizerSettings optimizer;
  SCORCH_CONFIG(TrainingSettings, (num_classes, layer), (dropout, name, milestones, shuffle, optimizer))
};

namespace {

TEST(Config, ConstructorTakesRequiredFieldsAndSettersChain) {
  auto config = TrainingSettings(10, LayerSettings({3, 3}))
                    .with_dropout(0.2)
                    .with_optimizer(OptimizerSettings().with_weight_decay(1e-4));
  EXPECT_EQ(config.num_classes, 10u);
  EXPECT_EQ(config.layer.kernel_size[1], 3u);
  EXPECT_EQ(config.layer.stride[0], 1u);
  EXPECT_EQ(config.dropout, 0.2);
  EXPECT_EQ(config.name, "guide");
  EXPECT_EQ(config.optimizer.weight_decay, 1e-4);
  auto copy = config.with_name("other");  // const& setter copies
  EXPECT_EQ(config.name, "guide");
  EXPECT_EQ(copy.name, "other");
}

TEST(Config, SettersSetAFieldNamedValue) {
  EXPECT_EQ(ValueSettings().with_value(0.5).value, 0.5);  // && setter
  ValueSettings settings;
  EXPECT_EQ(settings.with_value(0.25).value, 0.25);  // const& setter
  EXPECT_EQ(nn::Initializer::constant(0.5).value, 0.5);
}

TEST(Config, SaveAndLoadRoundTrip) {
  TempDir dir("config");
  auto config = TrainingSettings(7, LayerSettings({5, 5}).with_padding(PaddingKind::Same)).with_milestones({1, 2, 3});
  config.save(dir.file("config.json"));
  auto loaded = TrainingSettings::load(dir.file("config.json"));
  EXPECT_EQ(loaded, config);
  std::ostringstream printed;
  printed << config;
  EXPECT_NE(printed.str().find("\"padding\": \"Same\""), std::string::npos) << printed.str();
  EXPECT_NE(printed.str().find("\"weight_decay\": null"), std::string::npos) << printed.str();
}

TEST(Config, SaveCreatesMissingFoldersOrNamesTheOneItCannot) {
  TempDir dir("config-folders");
  auto config = TrainingSettings(3, LayerSettings({2, 2}));
  config.save(dir.file("runs/a/config.json"));
  EXPECT_EQ(TrainingSettings::load(dir.file("runs/a/config.json")), config);
  std::ofstream(dir.file("blocker")) << "a file where a folder should be";
  try {
    config.save(dir.file("blocker/sub/config.json"));
    FAIL() << "no error";
  } catch (const IoError& e) {
    std::string expected = "[save] " + dir.file("blocker/sub/config.json") + ": its folder " + dir.file("blocker/sub") +
                           " is missing and cannot be created";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    EXPECT_EQ(std::string(e.what()).find(".tmp-"), std::string::npos) << e.what();
  }
}

TEST(Config, MissingDefaultedFieldsKeepTheirDefaults) {
  auto config = TrainingSettings::from_json(R"({"num_classes": 3, "layer": {"kernel_size": [2, 2]}})");
  EXPECT_EQ(config.dropout, 0.5);
  EXPECT_EQ(config.layer.padding, PaddingKind::Valid);
  EXPECT_EQ(config.milestones, (std::vector<int>{10, 20}));
}

/// from_json must throw FormatError mentioning each of parts.
void expect_config_error(const std::string& json, std::vector<std::string> parts) {
  try {
    (void)TrainingSettings::from_json(json, "cfg.json");
    FAIL() << "no error for " << json;
  } catch (const FormatError& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

TEST(Config, ErrorsNameTheFieldAndFile) {
  expect_config_error(R"({"layer": {"kernel_size": [2, 2]}})",
                      {"[config]", "TrainingSettings (cfg.json).num_classes", "missing field"});
  expect_config_error(R"({"num_classes": 3, "layer": {}})", {"layer.kernel_size", "missing field"});
  expect_config_error(R"({"num_classes": "ten", "layer": {"kernel_size": [2, 2]}})",
                      {"num_classes", "expected a non-negative integer", "\"ten\""});
  expect_config_error(R"({"num_classes": -1, "layer": {"kernel_size": [2, 2]}})", {"num_classes", "out of range"});
  expect_config_error(R"({"num_classes": 3, "layer": {"kernel_size": [2]}})", {"layer.kernel_size", "a list of 2"});
  expect_config_error(R"({"num_classes": 3, "layer": {"kernel_size": [2, 2], "padding": "Full"}})",
                      {"layer.padding", "one of Valid, Same, Explicit"});
  expect_config_error(R"({"num_classes": 3, "layer": {"kernel_size": [2, 2]}, "dropuot": 0.1})",
                      {"dropuot", "unknown field"});
  expect_config_error(R"({"num_classes": 3, "layer": {"kernel_size": [2, 2]}, "milestones": [1, 2.5]})",
                      {"milestones[1]", "integer"});
  expect_config_error(R"({"num_classes": 3, "layer": )", {"cfg.json", "invalid JSON"});
}

TEST(Config, MissingFileIsAnIoError) {
  EXPECT_THROW((void)TrainingSettings::load("/nonexistent/config.json"), IoError);
}

}  // namespace
}  // namespace scorch::testing
