// Weight lookup (weights.h).
#include "scorch/micro/weights.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {
namespace {

bool same_text(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

}  // namespace

bool join_key(const char* prefix, const char* leaf, char* buffer, size_t size) {
  size_t n = 0;
  for (const char* p = prefix; p && *p; ++p)
    if (n + 1 < size) buffer[n++] = *p;
    else return false;
  if (n > 0) {
    if (n + 1 >= size) return false;
    buffer[n++] = '.';
  }
  for (const char* p = leaf; *p; ++p)
    if (n + 1 < size) buffer[n++] = *p;
    else return false;
  buffer[n] = '\0';
  return true;
}

float Weight::at(size_t i) const {
  if (dtype == DType::f32) return f32()[i];
  size_t inner = 1;
  for (uint32_t d = axis + 1; d < shape.rank(); ++d) inner *= shape[d];
  return float(i8()[i]) * scales[(i / inner) % shape[axis]];
}

const Weight* WeightTable::find(const char* name) const {
  for (size_t i = 0; i < count; ++i)
    if (same_text(entries[i].name, name)) return &entries[i];
  return nullptr;
}

Status WeightTable::get(const char* op, const char* prefix, const char* leaf, const Weight** out, bool optional) const {
  char key[96];
  *out = nullptr;
  if (!join_key(prefix, leaf, key, sizeof key)) return raise(Message(Code::value, op) << "key too long: " << prefix);
  *out = find(key);
  if (*out || optional) return {};
  return raise(Message(Code::missing, op) << "no weight '" << key << "' in the table");
}

Status check_weight(const char* op, const Weight& w, uint32_t rank, int32_t int8_axis) {
  if (w.shape.rank() != rank)
    return raise(Message(Code::shape, op)
                 << "weight '" << w.name << "' " << w.shape << " should have rank " << int64_t(rank));
  if (w.dtype == DType::f32) return {};
  if (int8_axis < 0) return raise(Message(Code::dtype, op) << "weight '" << w.name << "' must be f32, not int8");
  if (w.axis != uint32_t(int8_axis) || !w.scales)
    return raise(Message(Code::dtype, op) << "int8 weight '" << w.name << "' needs scales along axis "
                                          << int64_t(int8_axis) << ", has axis " << int64_t(w.axis));
  return {};
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
