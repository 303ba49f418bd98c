#pragma once
// A stack Dyn can run on: the op table's ops on one backend (OpTable, generated), plus what Dyn needs of the stack
// itself: its name, its devices written and read as text, seeding and sync. Implemented once per backend by
// StackOf<B> (dyn/stack_of.h) in that stack's library and registered by name (dyn/registry.h).
#include <cstdint>
#include <string>
#include <string_view>

#include "scorch/gen/dyn_op_table.h"

namespace scorch::dyn {

/// One registered stack: every op of the table on its backend, and its devices.
class Stack : public OpTable {
 public:
  /// The registry's key: the stack's name without a device argument ("cpu", `"fusion<cuda>"`, "remote").
  virtual const std::string& key() const = 0;
  /// The backend's own name (`B::name()`: `"fusion<cuda>"`).
  virtual std::string backend_name() const = 0;
  /// The device that arg names ("" for the default device; "1" for cuda:1, an endpoint for remote); a
  /// DeviceError naming the stack and arg when it names none.
  virtual DynDevice device(std::string_view arg) const = 0;
  /// d's argument as device() reads it ("" for a stack with one device).
  virtual std::string device_arg(const DynDevice& d) const = 0;
  /// Whether a and b (both of this stack) are the same device.
  virtual bool same_device(const DynDevice& a, const DynDevice& b) const = 0;
  /// Why the stack cannot run in this process ("no CUDA device visible"), or "" when it can.
  virtual std::string unavailable() const = 0;
  /// Seeds the backend's random stream.
  virtual void seed(uint64_t seed) const = 0;
  /// Waits for the backend's queued work on d.
  virtual void sync(const DynDevice& d) const = 0;
};

}  // namespace scorch::dyn
