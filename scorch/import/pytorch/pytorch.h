#pragma once
// PyTorch checkpoint import: torch.save files (the zip format PyTorch writes since 1.6, and the legacy format before
// it) read without executing their pickles, into a nested record that loads into any module
// (module.load_file(path, PyTorchFileRecorder<>{}, device)). docs/pytorch-import.md describes the mapping and the
// safety rules.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scorch/module/recorder.h"

namespace scorch {
namespace pytorch {

struct LoadOptions {
  /// (pattern, replacement) pairs applied in order to every dotted key (std::regex_replace, $1 style).
  std::vector<std::pair<std::string, std::string>> key_remaps;
  std::optional<std::string> top_level_key;  // the entry of a top-level dict to read ("model", "state_dict")
  /// The tensors read may total at most this many times the file's size, plus 1 MiB, charged before each copy:
  /// stride-0 views and storages shared by several tensors (tied weights: 2) count each time they are read.
  size_t max_copy_ratio = 4;
};

/// Reads a torch.save file into a record. Dicts (state dicts, nested dicts) become maps, a dotted key nesting
/// ("0.weight" as 0 → weight); tensors become tensors of their storage's dtype, views read through their offset and
/// strides; ints, floats, strings, bools and None the matching record values; lists and tuples maps keyed "0",
/// "1", .... Throws FormatError starting with "load" and naming the file for anything else: a global outside the
/// allowlist (named), a truncated or malformed archive or pickle, a storage whose bytes do not match its size, a
/// view outside its storage.
Record load(const std::string& file, const LoadOptions& options = {});

}  // namespace pytorch

/// PyTorch's torch.save files (.pt, .pth, .bin, .ckpt) for module.load_file; loading only.
template <class S = FullPrecisionSettings> struct PyTorchFileRecorder {
  pytorch::LoadOptions options;

  /// Renames keys on load, e.g. with_key_remap("^backbone\\.(.*)", "$1").
  PyTorchFileRecorder with_key_remap(std::string pattern, std::string replacement) const {
    auto copy = *this;
    copy.options.key_remaps.emplace_back(std::move(pattern), std::move(replacement));
    return copy;
  }
  /// Reads only this entry of the file's top-level dict (a checkpoint's "model" beside its "optimizer").
  PyTorchFileRecorder with_top_level_key(std::string key) const {
    auto copy = *this;
    copy.options.top_level_key = std::move(key);
    return copy;
  }
  static std::string extension() { return "pt"; }
  /// path as given when it names a PyTorch extension, else with ".pt".
  std::string file_path(const std::string& path) const {
    for (std::string_view ext : {".pt", ".pth", ".bin", ".ckpt"})
      if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return path;
    return path + ".pt";
  }
  Record load(const std::string& path) const { return pytorch::load(file_path(path), options); }
};

}  // namespace scorch
