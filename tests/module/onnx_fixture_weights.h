#pragma once
// Regenerates the weights of the real-architecture ONNX fixtures (fixtures/onnx/models, made by gen_models.py):
// each weights.txt line "name offset count seed kind scale" becomes count floats at offset in weights.bin, drawn
// exactly as gen_models.py draws them.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace scorch::onnx::fixtures {

/// u in [0, 1) with 24 bits: splitmix64 of seed << 32 | index.
inline float uniform01(uint64_t seed, uint64_t index) {
  uint64_t z = (seed << 32) + index + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) / static_cast<float>(1 << 24);
}

/// Writes folder/weights.bin from folder/weights.txt.
inline void write_weights(const std::filesystem::path& recipe, const std::filesystem::path& out) {
  std::ifstream in(recipe);
  if (!in) throw std::runtime_error("missing " + recipe.string());
  std::vector<float> bytes;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string name, kind;
    uint64_t offset = 0, count = 0, seed = 0;
    double scale_d = 0;
    fields >> name >> offset >> count >> seed >> kind >> scale_d;
    auto scale = static_cast<float>(scale_d);
    bytes.resize(std::max<size_t>(bytes.size(), offset / 4 + count));
    for (uint64_t i = 0; i < count; ++i) {
      float u = uniform01(seed, i), v = (2.0f * u - 1.0f) * scale;
      bytes[offset / 4 + i] = kind == "positive" ? 0.5f + u : kind == "one_plus" ? 1.0f + v : v;
    }
  }
  std::ofstream(out, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size() * 4));
}

/// A temporary folder holding the fixture's model.onnx and regenerated weights.bin; returns the model's path.
inline std::filesystem::path materialize(const std::filesystem::path& fixture, const std::filesystem::path& into) {
  std::filesystem::create_directories(into);
  std::filesystem::copy_file(fixture / "model.onnx", into / "model.onnx",
                             std::filesystem::copy_options::overwrite_existing);
  write_weights(fixture / "weights.txt", into / "weights.bin");
  return into / "model.onnx";
}

}  // namespace scorch::onnx::fixtures
