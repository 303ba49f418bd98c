#pragma once
// Hugging Face datasets, through SQLite: the loader runs scripts/hf_import.py (Python with the
// `datasets` package and network) once to turn a dataset into a SQLite file under base_dir, then
// serves its splits as SqliteDatasets. Without Python, the package or network, it says which is
// missing; with_local_source imports local JSON-lines files the same way (offline).
//
//   auto train = HuggingfaceDatasetLoader("mnist").dataset<MnistItem>("train", from_row);
#include <string>

#include "scorch/data/sources/sqlite.h"

namespace scorch::data {

class HuggingfaceDatasetLoader {
 public:
  /// A loader for the dataset name on the Hugging Face hub (e.g. "mnist", "ylecun/mnist").
  explicit HuggingfaceDatasetLoader(std::string name) : name_(std::move(name)) {}
  /// A dataset configuration (the hub's "subset").
  HuggingfaceDatasetLoader& with_subset(std::string subset) { return set(subset_, std::move(subset)); }
  /// Where SQLite files are kept (default: $XDG_CACHE_HOME or ~/.cache, then scorch/huggingface).
  HuggingfaceDatasetLoader& with_base_dir(std::string dir) { return set(base_dir_, std::move(dir)); }
  /// The Python interpreter to run (default python3).
  HuggingfaceDatasetLoader& with_python(std::string python) { return set(python_, std::move(python)); }
  /// Imports `dir/<split>.jsonl` files instead of downloading.
  HuggingfaceDatasetLoader& with_local_source(std::string dir) { return set(local_, std::move(dir)); }
  /// Re-imports even when the SQLite file exists.
  HuggingfaceDatasetLoader& with_reimport(bool reimport = true) {
    reimport_ = reimport;
    return *this;
  }

  /// The SQLite file, importing it first if needed; IoError saying why when the import fails.
  std::string db_file() const;
  /// One split as a dataset of I.
  template <class I>
  SqliteDataset<I> dataset(const std::string& split,
                           typename SqliteDataset<I>::FromRow from_row = &SqliteItem<I>::from_row) const {
    return SqliteDataset<I>(db_file(), split, std::move(from_row));
  }

 private:
  HuggingfaceDatasetLoader& set(std::string& field, std::string value) {
    field = std::move(value);
    return *this;
  }
  std::string name_, subset_, base_dir_, python_ = "python3", local_;
  bool reimport_ = false;
};

}  // namespace scorch::data
