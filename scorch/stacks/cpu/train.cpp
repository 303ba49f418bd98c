// The metric bindings of the provided step outputs on Cpu and Autodiff<Cpu>, compiled once.
#include "scorch/stacks/cpu/train.h"

namespace scorch::train::detail {

template class MetricSet<ClassificationOutput<Cpu>>;
template class MetricSet<ClassificationOutput<Autodiff<Cpu>>>;
template class MetricSet<MultiLabelClassificationOutput<Cpu>>;
template class MetricSet<MultiLabelClassificationOutput<Autodiff<Cpu>>>;
template class MetricSet<RegressionOutput<Cpu>>;
template class MetricSet<RegressionOutput<Autodiff<Cpu>>>;

}  // namespace scorch::train::detail
