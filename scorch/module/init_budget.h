#pragma once
// Parameters created to be filled from a record are bounded by that record: a config that does not match the file
// it is loaded with (hidden size 10^6 against a small model file) fails before allocating, not after.
#include <cstddef>
#include <string>

#include "scorch/core/shape.h"
#include "scorch/module/record.h"

namespace scorch {

/// The values of every tensor in record (maps and lists walked; a quantized parameter's stored parts included).
size_t record_values(const Record& record);

/// While alive, new parameters (Initializer::init_with) on this thread may total at most twice the values record
/// holds (q4 parts store two values per byte) plus 4,096; the one that would pass throws ShapeError before it is
/// allocated. Budgets nest: a parameter is charged to every open one.
class RecordInitBudget {
 public:
  explicit RecordInitBudget(const Record& record);
  ~RecordInitBudget();
  RecordInitBudget(const RecordInitBudget&) = delete;
  RecordInitBudget& operator=(const RecordInitBudget&) = delete;
  /// Charges a parameter of shape to the open budgets of this thread (none open: nothing to do).
  static void charge(const Shape& shape);

 private:
  size_t values_, limit_, used_ = 0;
  RecordInitBudget* parent_;
};

/// init() filled from record (init().load_record(record)) with a RecordInitBudget open while init() runs: what every
/// provided config's init_with(record) does.
template <class Init> auto init_from_record(const Record& record, Init init) {
  auto module = [&] {
    RecordInitBudget budget(record);
    return init();
  }();
  return module.load_record(record);
}

}  // namespace scorch
