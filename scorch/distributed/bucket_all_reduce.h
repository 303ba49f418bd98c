#pragma once
// How a data-parallel reducer sums its gradient buckets across ranks: BucketAllReduce<P> takes flat 1-D f32
// primitives P in one order on every rank. HostBucketAllReduce<B> works for any backend: each bucket is copied to
// host memory and summed on the group's CommThread while the caller's thread goes on (the backward pass); the Cuda
// backend has a device one on NCCL (scorch/backends/cuda/nccl.h).
#include <deque>
#include <memory>
#include <vector>

#include "scorch/core/tensor_data.h"
#include "scorch/distributed/comm_thread.h"
#include "scorch/distributed/process_group.h"

namespace scorch::distributed {

/// Sums flat buckets across ranks, asynchronously; every rank starts the same buckets in the same order.
template <class P> class BucketAllReduce {
 public:
  virtual ~BucketAllReduce() = default;
  /// Starts summing flat (1-D, f32, the same length on every rank) across the ranks.
  virtual void start(P flat) = 0;
  /// The sum of the oldest bucket started and not yet finished (waits for it; rethrows the collective's error).
  virtual P finish() = 0;
};

/// Buckets summed in host memory by the group (Gloo) on a thread of their own.
template <class B> class HostBucketAllReduce final : public BucketAllReduce<typename B::FloatTensor> {
 public:
  using P = typename B::FloatTensor;
  explicit HostBucketAllReduce(std::shared_ptr<ProcessGroup> group) : group_(std::move(group)) {}
  ~HostBucketAllReduce() override {
    for (auto& p : pending_) p.done.wait();  // the thread must not write into freed vectors
  }
  void start(P flat) override {
    auto device = flat.device();
    auto values = std::make_shared<std::vector<float>>(
        B::float_into_data(std::move(flat)).convert(DType::F32).template to_vector<float>());
    auto done = thread_.submit([group = group_, values] { group->all_reduce(values->data(), values->size()); });
    pending_.push_back({std::move(done), values, device});
  }
  P finish() override {
    Pending p = std::move(pending_.front());
    pending_.pop_front();
    p.done.get();
    size_t n = p.values->size();
    return B::float_from_data(TensorData(*p.values, Shape{n}), p.device);
  }

 private:
  struct Pending {
    std::future<void> done;
    std::shared_ptr<std::vector<float>> values;
    typename B::Device device;
  };
  std::shared_ptr<ProcessGroup> group_;
  std::deque<Pending> pending_;
  CommThread thread_;  // last: joined first, while the rest is still alive
};

}  // namespace scorch::distributed
