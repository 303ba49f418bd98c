// Dyn's host cost per op: the same chain of adds on [4, 4] tensors on the static stack and on Dyn over the same stack,
// plain and recorded by Autodiff, in one run (the difference of the pairs is Dyn's cost per op).
#include <scorch/stacks/dyn/autodiff.h>

#include "bench.h"

namespace scorch::bench {
namespace {

constexpr int kDynChain = 1000;

// kDynChain adds of y to x on device; the figure is µs per op.
template <class B>
void add_chain(const Options& o, const std::string& name, bool tracked, const typename B::Device& device) {
  auto x = Tensor<B, 2>::random({4, 4}, Distribution::Default, device);
  auto y = Tensor<B, 2>::random({4, 4}, Distribution::Default, device);
  if constexpr (AutodiffBackend<B>)
    if (tracked) x = x.require_grad();
  auto body = [&] {
    auto a = x;
    for (int i = 0; i < kDynChain; ++i) a = a + y;
  };
  run(o, name, 20, body, "us_per_op", [](double ms) { return ms * 1e3 / kDynChain; });
}

}  // namespace

void dyn_workloads(const Options& o) {
  auto cpu = Dyn::device("cpu");
  add_chain<Cpu>(o, "dyn_overhead_add_4x4_static_cpu", false, {});
  add_chain<Dyn>(o, "dyn_overhead_add_4x4_dyn_cpu", false, cpu);
  add_chain<Autodiff<Cpu>>(o, "dyn_overhead_add_4x4_static_autodiff_cpu", true, {});
  add_chain<Autodiff<Dyn>>(o, "dyn_overhead_add_4x4_dyn_autodiff_cpu", true, cpu);
}

}  // namespace scorch::bench
