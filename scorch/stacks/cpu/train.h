#pragma once
// The metric bindings of the provided step outputs on Cpu and Autodiff<Cpu> and the builder's adding of the provided
// metrics, compiled once in train.cpp, and the
// data-parallel reducer's model-free part for Cpu tensors, compiled once in distributed.cpp.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/stacks/cpu/autodiff.h"
#include "scorch/train/learner.h"
#include "scorch/train/metrics_classification.h"
#include "scorch/train/metrics_system.h"
#include "scorch/train/metrics_training.h"

/// Applies X(Metric) to every provided metric; LearnerBuilder::add is compiled once for each (train.cpp).
#define SCORCH_PROVIDED_METRICS(X)                                                                         \
  X(LossMetric)                                                                                            \
  X(LearningRateMetric) X(IterationSpeedMetric) X(AccuracyMetric) X(TopKAccuracyMetric) X(PrecisionMetric) \
      X(RecallMetric) X(FBetaScoreMetric) X(HammingScore) X(AurocMetric) X(CpuUse) X(CpuMemory) X(CpuTemperature)

namespace scorch::train::detail {
extern template class MetricSet<ClassificationOutput<Cpu>>;
extern template class MetricSet<ClassificationOutput<Autodiff<Cpu>>>;
extern template class MetricSet<MultiLabelClassificationOutput<Cpu>>;
extern template class MetricSet<MultiLabelClassificationOutput<Autodiff<Cpu>>>;
extern template class MetricSet<RegressionOutput<Cpu>>;
extern template class MetricSet<RegressionOutput<Autodiff<Cpu>>>;
}  // namespace scorch::train::detail

namespace scorch::train {
#define SCORCH_EXTERN_METRIC_ADD(Mt) extern template LearnerBuilder& LearnerBuilder::add<Mt>(int, Mt);
SCORCH_PROVIDED_METRICS(SCORCH_EXTERN_METRIC_ADD)
#undef SCORCH_EXTERN_METRIC_ADD
}  // namespace scorch::train

namespace scorch::distributed {
extern template class BucketReducer<Cpu>;
extern template class HostBucketAllReduce<Cpu>;
extern template std::unique_ptr<BucketAllReduce<Cpu::FloatTensor>> bucket_all_reduce_for<Cpu>(
    std::shared_ptr<ProcessGroup>, const Cpu::Device&);
}  // namespace scorch::distributed
