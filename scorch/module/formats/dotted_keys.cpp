// Nested records from dotted keys (dotted_keys.h).
#include "scorch/module/formats/dotted_keys.h"

#include <algorithm>

#include "scorch/core/error.h"

namespace scorch::formats {
namespace {
constexpr size_t kMaxKeyParts = 128;      // record nesting a dotted key may create
constexpr size_t kMaxRemappedKey = 1024;  // std::regex recurses per character: longer keys could overflow the stack
}  // namespace

std::string short_key(const std::string& key) { return key.size() <= 80 ? key : key.substr(0, 77) + "..."; }

DottedRecordBuilder::DottedRecordBuilder(std::string file, const KeyRemaps& remaps) : file_(std::move(file)) {
  for (const auto& [pattern, replacement] : remaps) {
    try {
      remaps_.emplace_back(std::regex(pattern), replacement);
    } catch (const std::regex_error& e) {
      throw ValueError("load", file_ + ": key remap pattern '" + pattern + "' is not a valid regex: " + e.what());
    }
  }
}

std::string DottedRecordBuilder::remap(std::string key) const {
  for (const auto& [pattern, replacement] : remaps_) {
    if (key.size() > kMaxRemappedKey)
      throw FormatError("load", file_ + ": key '" + short_key(key) + "' is " + std::to_string(key.size()) +
                                    " characters long; key remapping handles keys up to " +
                                    std::to_string(kMaxRemappedKey));
    try {
      key = std::regex_replace(key, pattern, replacement);
    } catch (const std::regex_error& e) {
      throw FormatError("load", file_ + ": key '" + short_key(key) + "': remapping failed: " + e.what());
    }
  }
  return key;
}

void DottedRecordBuilder::insert(const std::string& original, Record value) {
  std::string key = remap(original);
  if (static_cast<size_t>(std::count(key.begin(), key.end(), '.')) >= kMaxKeyParts)
    throw FormatError("load", file_ + ": key '" + short_key(key) + "' has more than " + std::to_string(kMaxKeyParts) +
                                  " dotted parts");
  Record* node = &root_;
  size_t node_number = 0;
  for (size_t start = 0;;) {
    size_t dot = key.find('.', start);
    std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    auto found = entries_.find({node_number, part});
    if (dot == std::string::npos) {
      if (found != entries_.end())
        throw FormatError("load", file_ + ": key '" + short_key(key) + "' clashes with another key");
      add(*node, node_number, std::move(part), std::move(value));
      return;
    }
    if (found == entries_.end()) found = add(*node, node_number, std::move(part), Record::map());
    Record* next = &node->as_map_mut()[found->second.index].second;
    if (!next->is_map())
      throw FormatError("load", file_ + ": key '" + short_key(key) + "' clashes with the tensor '" +
                                    short_key(key.substr(0, dot)) + "'");
    node = next;
    node_number = found->second.number;
    start = dot + 1;
  }
}

DottedRecordBuilder::Entries::iterator DottedRecordBuilder::add(Record& node, size_t map_number, std::string part,
                                                                Record value) {
  auto& map = node.as_map_mut();
  map.emplace_back(part, std::move(value));
  return entries_.emplace(Name{map_number, std::move(part)}, Entry{map.size() - 1, entries_.size() + 1}).first;
}

}  // namespace scorch::formats
