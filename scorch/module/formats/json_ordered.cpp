// Ordered JSON parsing in time linear in the text: nlohmann's own ordered_json parser looks every new key up in a
// vector (quadratic in an object's key count: 40,000 keys took minutes), so this SAX builder appends keys in order
// and checks an object's keys for duplicates once, sorted, when the object closes.
#include <algorithm>
#include <string_view>
#include <vector>

#include "scorch/module/formats/json_parse.h"

namespace scorch::formats {
namespace {

using OrderedJson = nlohmann::ordered_json;
using ObjectItems = OrderedJson::object_t::Container;

/// Builds an ordered_json from nlohmann's SAX events; containers being filled are kept on a stack.
class OrderedBuilder {
 public:
  OrderedBuilder(const char* op, const std::string& where) : op_(op), where_(where) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(OrderedJson::number_integer_t v) { return add(v); }
  bool number_unsigned(OrderedJson::number_unsigned_t v) { return add(v); }
  bool number_float(OrderedJson::number_float_t v, const std::string&) { return add(v); }
  bool string(std::string& v) { return add(std::move(v)); }
  bool binary(OrderedJson::binary_t& v) { return add(OrderedJson::binary(std::move(v))); }
  bool start_object(size_t) { return open(OrderedJson::object()); }
  bool start_array(size_t) { return open(OrderedJson::array()); }
  bool key(std::string& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() {
    check_unique_keys(*open_.back());
    open_.pop_back();
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }
  bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& e) {
    throw FormatError(op_, where_ + ": invalid JSON at byte " + std::to_string(position) + ": " + e.what());
  }

  OrderedJson take() { return std::move(root_); }

 private:
  /// Places value in the open container (or as the root); returns where it now lives.
  OrderedJson* place(OrderedJson value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    OrderedJson& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    auto& items = static_cast<ObjectItems&>(parent.get_ref<OrderedJson::object_t&>());
    items.emplace_back(std::move(key_), std::move(value));
    return &items.back().second;
  }
  bool add(OrderedJson value) {
    place(std::move(value));
    return true;
  }
  // A container's address stays valid while it is open: its parent grows only after it closes.
  bool open(OrderedJson container) {
    open_.push_back(place(std::move(container)));
    return true;
  }
  void check_unique_keys(const OrderedJson& object) const {
    const auto& items = static_cast<const ObjectItems&>(object.get_ref<const OrderedJson::object_t&>());
    std::vector<std::string_view> keys;
    keys.reserve(items.size());
    for (const auto& item : items) keys.push_back(item.first);
    std::sort(keys.begin(), keys.end());
    if (auto at = std::adjacent_find(keys.begin(), keys.end()); at != keys.end())
      throw FormatError(op_, where_ + ": duplicate JSON key '" + std::string(at->substr(0, 80)) + "'");
  }

  const char* op_;
  const std::string& where_;
  OrderedJson root_;
  std::vector<OrderedJson*> open_;
  std::string key_;
};

}  // namespace

nlohmann::ordered_json parse_ordered_json(std::string_view text, const char* op, const std::string& where) {
  OrderedBuilder builder(op, where);
  try {
    OrderedJson::sax_parse(text.begin(), text.end(), &builder);
  } catch (const nlohmann::json::exception& e) { throw FormatError(op, where + ": invalid JSON: " + e.what()); }
  return builder.take();
}

}  // namespace scorch::formats
