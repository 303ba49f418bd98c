#include "scorch/module/init_budget.h"

#include <limits>

#include "scorch/core/error.h"

namespace scorch {
namespace {
thread_local RecordInitBudget* open_budget = nullptr;
}  // namespace

size_t record_values(const Record& record) {
  switch (record.kind()) {
    case RecordKind::Tensor: return record.as_tensor().data.shape().num_elements();
    case RecordKind::List: {
      size_t total = 0;
      for (const Record& item : record.as_list()) total += record_values(item);
      return total;
    }
    case RecordKind::Map: {
      size_t total = 0;
      for (const auto& [key, item] : record.as_map()) total += record_values(item);
      return total;
    }
    default: return 0;
  }
}

RecordInitBudget::RecordInitBudget(const Record& record)
    : values_(std::min(record_values(record), std::numeric_limits<size_t>::max() / 4)),
      limit_(values_ * 2 + 4096),
      parent_(open_budget) {
  open_budget = this;
}

RecordInitBudget::~RecordInitBudget() { open_budget = parent_; }

void RecordInitBudget::charge(const Shape& shape) {
  size_t values = shape.num_elements();
  for (RecordInitBudget* budget = open_budget; budget; budget = budget->parent_) {
    if (values > budget->limit_ - budget->used_)
      throw ShapeError("init_with", "a parameter of shape " + shape.to_string() + " (" + std::to_string(values) +
                                        " values) is more than the record it is loaded from can fill (" +
                                        std::to_string(budget->values_) +
                                        " values): the config does not match that record; check the config file "
                                        "against the model file it was saved with");
    budget->used_ += values;
  }
}

}  // namespace scorch
