#pragma once
// NCCL for the Cuda backend. NcclCommunicator joins the ranks of a ProcessGroup (the group sends NCCL's unique id
// from rank 0), one GPU per rank, and runs the collectives on Cuda tensors inside the GPUs, queued in stream order
// (no host synchronization). libnccl.so.2 is loaded when first needed (SCORCH_NCCL_LIBRARY names another file), so
// builds and machines without it still run: the Learner's gradients then go through host memory and Gloo.
// NCCL_NVLS_ENABLE defaults to 0 here (NVLink multicast off) unless the environment sets it.
#include <memory>

#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/distributed/bucket_all_reduce.h"
#include "scorch/tensor/tensor.h"

namespace scorch::distributed {

/// True when NCCL can be loaded; why_not receives the reason when it cannot.
bool nccl_available(std::string* why_not = nullptr);

/// The ranks of a group as an NCCL communicator, this rank on one GPU.
class NcclCommunicator {
 public:
  using CudaTensor = backends::cuda::CudaTensor;
  /// Joins (every rank of group at once); throws DeviceError when NCCL cannot be loaded or fails.
  NcclCommunicator(ProcessGroup& group, int device);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  int rank() const;
  int size() const;
  int device() const;

  /// x combined across ranks (f32, f16, bf16, f64, i32, i64), queued on the device's op stream.
  CudaTensor all_reduce(const CudaTensor& x, ReduceOp op = ReduceOp::sum);
  /// root's x on every rank.
  CudaTensor broadcast(const CudaTensor& x, int root);
  /// The ranks' x one after the other: [world_size · numel] elements, shaped [world_size, ...x].
  CudaTensor all_gather(const CudaTensor& x);
  /// This rank's share (dim 0 split in world_size parts) of x combined across ranks.
  CudaTensor reduce_scatter(const CudaTensor& x, ReduceOp op = ReduceOp::sum);

  /// Starts summing flat (contiguous f32) in place on the communicator's own stream, after the op stream's work
  /// so far; finish_sum makes the op stream wait for the oldest started sum and returns it.
  void start_sum(CudaTensor flat);
  CudaTensor finish_sum();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Gradient buckets summed by NCCL on the GPU (found by bucket_all_reduce_for for Cuda tensors); through host
/// memory (HostBucketAllReduce) when NCCL cannot be loaded, saying so once on stderr.
std::unique_ptr<BucketAllReduce<backends::cuda::CudaTensor>> device_bucket_all_reduce(
    const std::shared_ptr<ProcessGroup>& group, const backends::cuda::CudaDevice& device);

/// Tensor collectives on NCCL (as collectives.h's on Gloo).
template <size_t D>
Tensor<Cuda, D> all_reduce(NcclCommunicator& c, const Tensor<Cuda, D>& x, ReduceOp op = ReduceOp::sum) {
  return Tensor<Cuda, D>::from_primitive(c.all_reduce(x.primitive(), op));
}
template <size_t D> Tensor<Cuda, D> broadcast(NcclCommunicator& c, const Tensor<Cuda, D>& x, int root) {
  return Tensor<Cuda, D>::from_primitive(c.broadcast(x.primitive(), root));
}
template <size_t D> Tensor<Cuda, D + 1> all_gather(NcclCommunicator& c, const Tensor<Cuda, D>& x) {
  return Tensor<Cuda, D + 1>::from_primitive(c.all_gather(x.primitive()));
}
template <size_t D>
Tensor<Cuda, D> reduce_scatter(NcclCommunicator& c, const Tensor<Cuda, D>& x, ReduceOp op = ReduceOp::sum) {
  return Tensor<Cuda, D>::from_primitive(c.reduce_scatter(x.primitive(), op));
}

}  // namespace scorch::distributed
