#pragma once
// Data-parallel training pieces the Learner uses (and a hand-written loop can, docs/distributed.md): records sent
// from one rank to all, the gradient reducer with the communicator that suits the backend (NCCL for Cuda tensors
// when scorch/backends/cuda/nccl.h declares it, Gloo through host memory otherwise).
#include "scorch/distributed/gradient_reducer.h"
#include "scorch/module/recorder.h"

namespace scorch::distributed {

/// root's record on every rank (others' record is ignored), sent in the binary record format (records.cpp).
Record broadcast_record(ProcessGroup& group, const Record& record, int root = 0);

/// root's module (parameters and buffers) on every rank: every replica starts from the same values.
template <Module M> M broadcast_module(ProcessGroup& group, const M& module, int root = 0) {
  Record r = broadcast_record(group, module.into_record(), root);
  return group.rank() == root ? module : module.load_record(r);
}

/// The bucket communicator for tensors of backend B on device: a device one where the backend has one (found by
/// argument-dependent lookup of device_bucket_all_reduce), else through host memory on group.
template <class B>
std::unique_ptr<BucketAllReduce<typename B::FloatTensor>> bucket_all_reduce_for(std::shared_ptr<ProcessGroup> group,
                                                                                const typename B::Device& device) {
  if constexpr (requires { device_bucket_all_reduce(group, device); }) return device_bucket_all_reduce(group, device);
  else return std::make_unique<HostBucketAllReduce<B>>(std::move(group));
}

/// A reducer for module type M whose replica lives on device.
template <Module M> std::unique_ptr<GradientReducer<M>> make_gradient_reducer(std::shared_ptr<ProcessGroup> group,
                                                                              const DeviceOf<M>& device,
                                                                              ReducerOptions options = {}) {
  using Inner = typename BackendOf<M>::InnerBackend;
  auto comm = bucket_all_reduce_for<Inner>(group, device);
  return std::make_unique<GradientReducer<M>>(std::move(group), std::move(comm), options);
}

}  // namespace scorch::distributed
