#pragma once
// The metric bindings of the provided step outputs on Cpu and Autodiff<Cpu>, compiled once in train.cpp.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/stacks/cpu/autodiff.h"
#include "scorch/train/learner.h"

namespace scorch::train::detail {
extern template class MetricSet<ClassificationOutput<Cpu>>;
extern template class MetricSet<ClassificationOutput<Autodiff<Cpu>>>;
extern template class MetricSet<MultiLabelClassificationOutput<Cpu>>;
extern template class MetricSet<MultiLabelClassificationOutput<Autodiff<Cpu>>>;
extern template class MetricSet<RegressionOutput<Cpu>>;
extern template class MetricSet<RegressionOutput<Autodiff<Cpu>>>;
}  // namespace scorch::train::detail
