// The metric bindings of the provided step outputs on Cpu and Autodiff<Cpu>, and the builder's adding of the
// provided metrics, compiled once.
#include "scorch/stacks/cpu/train.h"

namespace scorch::train::detail {

template class MetricSet<ClassificationOutput<Cpu>>;
template class MetricSet<ClassificationOutput<Autodiff<Cpu>>>;
template class MetricSet<MultiLabelClassificationOutput<Cpu>>;
template class MetricSet<MultiLabelClassificationOutput<Autodiff<Cpu>>>;
template class MetricSet<RegressionOutput<Cpu>>;
template class MetricSet<RegressionOutput<Autodiff<Cpu>>>;

}  // namespace scorch::train::detail

namespace scorch::train {
#define SCORCH_DEFINE_METRIC_ADD(Mt) template LearnerBuilder& LearnerBuilder::add<Mt>(int, Mt);
SCORCH_PROVIDED_METRICS(SCORCH_DEFINE_METRIC_ADD)
#undef SCORCH_DEFINE_METRIC_ADD
}  // namespace scorch::train
