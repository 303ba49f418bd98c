#pragma once
// Collectives on tensors of any backend over a ProcessGroup (Gloo): values go through host memory (Cpu's are
// copied too), f32 on the wire; results come back in the tensor's dtype and device (any backend: Cpu, Autodiff,
// Fusion, Vulkan…). *_async run on a thread and return a future; every rank must start the same collectives in the
// same order.
#include <future>

#include "scorch/distributed/process_group.h"
#include "scorch/tensor/tensor.h"

namespace scorch::distributed {

/// x combined across ranks (every rank gets the result).
template <Backend B, size_t D>
Tensor<B, D> all_reduce(ProcessGroup& group, const Tensor<B, D>& x, ReduceOp op = ReduceOp::sum) {
  std::vector<float> v = x.into_data().convert(DType::F32).template to_vector<float>();
  group.all_reduce(v.data(), v.size(), op);
  return Tensor<B, D>::from_data(TensorData(v, x.shape()).convert(x.dtype()), x.device());
}

/// root's x on every rank (other ranks' x give only the shape, dtype and device).
template <Backend B, size_t D> Tensor<B, D> broadcast(ProcessGroup& group, const Tensor<B, D>& x, int root) {
  std::vector<float> v = x.into_data().convert(DType::F32).template to_vector<float>();
  group.broadcast(v.data(), v.size() * sizeof(float), root);
  return Tensor<B, D>::from_data(TensorData(v, x.shape()).convert(x.dtype()), x.device());
}

/// The ranks' x stacked along a new first dim: [world_size, ...x's shape].
template <Backend B, size_t D> Tensor<B, D + 1> all_gather(ProcessGroup& group, const Tensor<B, D>& x) {
  std::vector<float> v = x.into_data().convert(DType::F32).template to_vector<float>();
  std::vector<float> out(v.size() * size_t(group.size()));
  group.all_gather(v.data(), v.size(), out.data());
  Shape shape{size_t(group.size())};
  for (size_t d : x.shape()) shape.push_back(d);
  return Tensor<B, D + 1>::from_data(TensorData(out, shape).convert(x.dtype()), x.device());
}

/// This rank's slice (dim 0 split in world_size equal parts) of x combined across ranks.
template <Backend B, size_t D>
Tensor<B, D> reduce_scatter(ProcessGroup& group, const Tensor<B, D>& x, ReduceOp op = ReduceOp::sum) {
  Shape shape = x.shape();
  if (D == 0 || shape[0] % size_t(group.size()) != 0)
    throw ShapeError("distributed::reduce_scatter", "dim 0 of " + shape.to_string() + " does not split in " +
                                                        std::to_string(group.size()) + " equal parts");
  std::vector<float> v = x.into_data().convert(DType::F32).template to_vector<float>();
  size_t n = v.size() / size_t(group.size());
  std::vector<float> out(n);
  group.reduce_scatter(v.data(), n, out.data(), op);
  shape[0] /= size_t(group.size());
  return Tensor<B, D>::from_data(TensorData(out, shape).convert(x.dtype()), x.device());
}

/// all_reduce on a thread: the future holds the result (or the collective's error). Wait for it before starting the
/// group's next collective (the ranks must run them in one order).
template <Backend B, size_t D>
std::future<Tensor<B, D>> all_reduce_async(ProcessGroup& group, Tensor<B, D> x, ReduceOp op = ReduceOp::sum) {
  return std::async(std::launch::async, [&group, x = std::move(x), op] { return all_reduce(group, x, op); });
}
/// broadcast on a thread (as all_reduce_async).
template <Backend B, size_t D>
std::future<Tensor<B, D>> broadcast_async(ProcessGroup& group, Tensor<B, D> x, int root) {
  return std::async(std::launch::async, [&group, x = std::move(x), root] { return broadcast(group, x, root); });
}
/// all_gather on a thread (as all_reduce_async).
template <Backend B, size_t D> std::future<Tensor<B, D + 1>> all_gather_async(ProcessGroup& group, Tensor<B, D> x) {
  return std::async(std::launch::async, [&group, x = std::move(x)] { return all_gather(group, x); });
}
/// reduce_scatter on a thread (as all_reduce_async).
template <Backend B, size_t D>
std::future<Tensor<B, D>> reduce_scatter_async(ProcessGroup& group, Tensor<B, D> x, ReduceOp op = ReduceOp::sum) {
  return std::async(std::launch::async, [&group, x = std::move(x), op] { return reduce_scatter(group, x, op); });
}

}  // namespace scorch::distributed
