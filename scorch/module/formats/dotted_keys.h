#pragma once
// Nested records from flat dotted keys ("a.b.c" as maps a, b, c), as safetensors and PyTorch state dicts name their
// tensors, with keys renamed by regex first (a recorder's key remaps).
#include <regex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scorch/module/record.h"

namespace scorch::formats {

/// (pattern, replacement) pairs applied in order to every key (std::regex_replace, $1 style).
using KeyRemaps = std::vector<std::pair<std::string, std::string>>;

/// key cut to 80 characters for messages.
std::string short_key(const std::string& key);

/// Builds a record from dotted keys in time linear in the keys' lengths: each map entry is indexed by (its map's
/// number, its name), so no map is searched (a header of 40,000 flat keys took minutes that way).
class DottedRecordBuilder {
 public:
  /// Throws ValueError naming a remap pattern std::regex rejects; `file` names the source in errors.
  DottedRecordBuilder(std::string file, const KeyRemaps& remaps);

  /// Puts value at the remapped dotted key, creating maps on the way (at most 128 deep); FormatError when the key
  /// was given before, runs through a tensor, or is too long to remap.
  void insert(const std::string& key, Record value);
  Record take() { return std::move(root_); }

 private:
  struct Name {
    size_t map;
    std::string part;
    bool operator==(const Name&) const = default;
  };
  struct NameHash {
    size_t operator()(const Name& n) const { return std::hash<std::string>{}(n.part) * 31 + n.map; }
  };
  struct Entry {
    size_t index;   // position in its map
    size_t number;  // this entry's own number, as a map
  };
  using Entries = std::unordered_map<Name, Entry, NameHash>;

  std::string remap(std::string key) const;
  /// Appends part to node (map number map_number); returns its index entry.
  Entries::iterator add(Record& node, size_t map_number, std::string part, Record value);

  std::string file_;
  std::vector<std::pair<std::regex, std::string>> remaps_;
  Record root_ = Record::map();
  Entries entries_;
};

}  // namespace scorch::formats
