#pragma once
// Differential testing: every op of op_table.txt on random inputs (several shapes, broadcasting,
// non-contiguous views, edge values), run on each backend under test and on the oracle
// (LibTorch; Cpu where LibTorch is not built), compared within per-dtype tolerances; gradients through Autodiff<B>
// compared the same way. A case body is written once as a generic lambda over the backend and compiled once, for Dyn
// and Autodiff<Dyn>; the stacks run at run time (differential_stacks(): Cpu, Reference and Fusion<Cpu>, Cuda and
// Fusion<Cuda> where a GPU is visible, Vulkan where a Vulkan device is: lavapipe in CI).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../registry/domains.h"

#include <scorch/scorch.hpp>
#include <scorch/stacks/dyn/autodiff.h>

namespace scorch::differential {

/// How an input is laid out on the device: its logical shape reached through a view.
enum class Layout {
  Contiguous,  ///< uploaded as is
  Transposed,  ///< uploaded with the last two dims swapped, then swap_dims (rank >= 2)
  Strided,     ///< uploaded with the last dim doubled, then every second element sliced
  Expanded,    ///< uploaded with dim 0 of size 1, then expanded
};

/// Which values an input holds.
enum class Domain {
  Normal,    ///< N(0, 1) (floats), or uniform in [-50, 50] (ints)
  Positive,  ///< uniform in [0.1, 4]
  Unit,      ///< uniform in (-0.95, 0.95): acos, asin, atanh
  AboveOne,  ///< uniform in [1.05, 5]: acosh
  Open01,    ///< uniform in (0.05, 0.95): logit
  Nonzero,   ///< away from 0 (|x| >= 0.5 floats; ints in [-9, 9] without 0): divisors
  Index,     ///< ints in [0, bound): indices into a dim of size bound
  Small,     ///< whole numbers in [-bound, bound] (ties for comparisons and sorts)
  Shift,     ///< ints in [0, 70]: shift amounts, including shifts past the bit width
  Mask,      ///< bools, about half true
};

/// The differential run's domain for a registry domain (the run itself needs no distance from kinks).
inline constexpr Domain diff_domain(registry::Domain d) {
  switch (d) {
    case registry::Domain::Positive: return Domain::Positive;
    case registry::Domain::Unit: return Domain::Unit;
    case registry::Domain::AboveOne: return Domain::AboveOne;
    case registry::Domain::Open01: return Domain::Open01;
    case registry::Domain::NonZero: return Domain::Nonzero;
    default: return Domain::Normal;
  }
}

/// One input of a case.
struct InputSpec {
  DType dtype = DType::F32;
  Shape shape;
  Domain domain = Domain::Normal;
  Layout layout = Layout::Contiguous;
  int64_t bound = 0;   ///< Index: size of the indexed dim; Small: largest magnitude
  bool edges = false;  ///< mixes in 0, -0, ±inf, NaN, ±0.5, ±2.5 (floats) or extremes (ints)
  bool large = true;   ///< edges also include ±1e30 and ±1e-30 (not for sums and products: their
                       ///< overflow, underflow and cancellation then depend on the order of evaluation)
  bool grad = true;    ///< float inputs: compare their gradients in gradient runs
};

/// Shorthands for input specs.
InputSpec in(Shape shape, DType dtype = DType::F32, Domain domain = Domain::Normal, Layout layout = Layout::Contiguous);
InputSpec with_edges(InputSpec spec, bool large = true);
InputSpec index(Shape shape, int64_t bound, DType dtype = DType::I64);
InputSpec mask(Shape shape, Layout layout = Layout::Contiguous);
InputSpec small(Shape shape, int64_t bound, DType dtype = DType::F32, Layout layout = Layout::Contiguous);

/// What a case checks beyond plain values.
struct CaseOptions {
  bool grad = false;         ///< set by add_grad: also compare the float inputs' gradients through Autodiff<B>
  double tol_scale = 1.0;    ///< multiplies the per-dtype tolerance (long accumulations)
  bool statistical = false;  ///< random draws: compare mean, std, min and max, not values
  bool shape_only = false;   ///< uninitialized outputs (empty): compare dtype and shape only
};

/// The host data uploaded for spec: the logical values in the layout's storage shape.
TensorData generate(const InputSpec& spec, uint64_t seed);
/// Random weights for the gradient run's loss, one per output element.
TensorData loss_weights(const TensorData& output, uint64_t seed);

/// One output of a case body on backend B: a float, int or bool primitive.
template <class B> struct Value {
  std::optional<typename B::FloatTensor> f;
  std::optional<typename B::IntTensor> i;
  std::optional<typename B::BoolTensor> b;
};

namespace detail {
template <class B, class K> typename K::template Primitive<B> place(const InputSpec& spec, const TensorData& data) {
  using Ops = KindOps<B, K>;
  auto t = Ops::from_data(data, typename B::Device{});
  size_t r = spec.shape.rank();
  switch (spec.layout) {
    case Layout::Contiguous: return t;
    case Layout::Transposed: return Ops::swap_dims(std::move(t), r - 2, r - 1);
    case Layout::Strided: {
      SliceRanges ranges;
      for (size_t d = 0; d < r; ++d) ranges.push_back({0, data.shape()[d], 1});
      ranges.back().step = 2;
      return Ops::slice(std::move(t), ranges);
    }
    case Layout::Expanded: return Ops::expand(std::move(t), spec.shape);
  }
  return t;
}
}  // namespace detail

/// A case's inputs on backend B, placed in their layouts; float inputs are cached so a gradient
/// run can ask for their gradients.
template <class B> class Loaded {
 public:
  Loaded(const std::vector<InputSpec>& specs, const std::vector<TensorData>& data, bool track)
      : specs_(specs), data_(data), track_(track) {
    floats_.resize(specs.size());
  }
  /// Float input i (tracked in gradient runs when its spec allows).
  typename B::FloatTensor f(size_t i) {
    if (!floats_[i]) {
      auto t = detail::place<B, Float>(specs_.at(i), data_.at(i));
      if constexpr (AutodiffBackend<B>)
        if (track_ && specs_[i].grad) t = B::float_set_require_grad(t, true);
      floats_[i] = t;
    }
    return *floats_[i];
  }
  typename B::IntTensor i(size_t k) const { return detail::place<B, Int>(specs_.at(k), data_.at(k)); }
  typename B::BoolTensor b(size_t k) const { return detail::place<B, Bool>(specs_.at(k), data_.at(k)); }
  /// Shape of input k.
  const Shape& shape(size_t k) const { return specs_.at(k).shape; }
  /// Float inputs that were used (index, primitive).
  const std::vector<std::optional<typename B::FloatTensor>>& floats() const { return floats_; }

 private:
  const std::vector<InputSpec>& specs_;
  const std::vector<TensorData>& data_;
  bool track_;
  std::vector<std::optional<typename B::FloatTensor>> floats_;
};

/// Results of one run: output values, then (gradient runs) each float input's gradient.
struct RunResult {
  std::vector<TensorData> outputs;
  std::vector<std::optional<TensorData>> grads;
};
using Runner = std::function<RunResult(const std::vector<InputSpec>&, const std::vector<TensorData>&, uint64_t seed)>;

template <class B> struct Tag { using type = B; };

/// Runs body on B: forward values, or with Autodiff<B> the gradients of sum(output · weights).
template <class B, class Body> RunResult run_on(const Body& body, const std::vector<InputSpec>& specs,
                                                const std::vector<TensorData>& data, uint64_t seed) {
  Loaded<B> loaded(specs, data, AutodiffBackend<B>);
  std::vector<Value<B>> values = body(Tag<B>{}, loaded);
  RunResult result;
  std::optional<typename B::FloatTensor> loss;
  for (size_t k = 0; k < values.size(); ++k) {
    auto& v = values[k];
    if (v.f) {
      result.outputs.push_back(KindOps<B, Float>::into_data(*v.f));
      if constexpr (AutodiffBackend<B>) {
        auto w = KindOps<B, Float>::from_data(loss_weights(result.outputs.back(), seed + k), typename B::Device{});
        auto term = KindOps<B, Float>::sum(KindOps<B, Float>::mul(*v.f, w));
        loss = loss ? KindOps<B, Float>::add(*loss, term) : term;
      }
    } else if (v.i) {
      result.outputs.push_back(KindOps<B, Int>::into_data(*v.i));
    } else {
      result.outputs.push_back(KindOps<B, Bool>::into_data(*v.b));
    }
  }
  if constexpr (AutodiffBackend<B>) {
    if (!loss) return result;
    auto grads = B::backward(*loss);
    for (const auto& input : loaded.floats()) {
      std::optional<TensorData> g;
      if (input)
        if (auto gi = B::grad(*input, grads)) g = KindOps<typename B::InnerBackend, Float>::into_data(*gi);
      result.grads.push_back(std::move(g));
    }
  }
  return result;
}

/// The stacks the differential target compares, the oracle first: libtorch where the build has it (else cpu), then
/// every other stack of differential_stacks() that can run here ($SCORCH_DIFF_STACKS, comma-separated, narrows them).
const std::vector<Dyn::Device>& differential_stacks();

/// The backends the differential target compares: the oracle first.
struct BackendRunners {
  std::vector<std::string> names;         ///< "libtorch", "cpu", ...
  std::vector<Runner> forward, gradient;  ///< per backend; gradient runs on Autodiff<B>
};

/// One registered case: the ops it covers, its inputs and options, and its runners.
struct DiffCase {
  std::string name;
  std::vector<std::string> covers;
  std::vector<InputSpec> inputs;
  CaseOptions options;
  BackendRunners runners;
};

/// Every case. add() instantiates the body for each backend under test (forward values);
/// add_grad() also for their Autodiff, comparing the float inputs' gradients.
class DiffList {
 public:
  template <class Body> void add(std::string op, std::vector<std::string> covers, std::vector<InputSpec> inputs,
                                 Body body, CaseOptions options = {}) {
    add_impl<false>(std::move(op), std::move(covers), std::move(inputs), body, options);
  }
  template <class Body> void add_grad(std::string op, std::vector<std::string> covers, std::vector<InputSpec> inputs,
                                      Body body, CaseOptions options = {}) {
    options.grad = true;
    add_impl<true>(std::move(op), std::move(covers), std::move(inputs), body, options);
  }
  std::vector<DiffCase> cases;

 private:
  template <bool kGrad, class Body> void add_impl(std::string op, std::vector<std::string> covers,
                                                  std::vector<InputSpec> inputs, const Body& body,
                                                  CaseOptions options) {
    DiffCase c{op + "_" + std::to_string(++count_[op]), std::move(covers), std::move(inputs), options, {}};
    for (const auto& device : differential_stacks()) add_backend<kGrad>(c.runners, body, device);
    cases.push_back(std::move(c));
  }
  template <bool kGrad, class Body>
  static void add_backend(BackendRunners& r, const Body& body, const Dyn::Device& device) {
    r.names.push_back(device.to_string());
    r.forward.push_back([body, device](const auto& specs, const auto& data, uint64_t seed) {
      Dyn::set_default_device(device);
      return run_on<Dyn>(body, specs, data, seed);
    });
    if constexpr (kGrad)
      r.gradient.push_back([body, device](const auto& specs, const auto& data, uint64_t seed) {
        Dyn::set_default_device(device);
        return run_on<Autodiff<Dyn>>(body, specs, data, seed);
      });
  }
  std::map<std::string, int> count_;
};

/// Input sets for one op: each is one case.
using Variants = std::vector<std::vector<InputSpec>>;
inline constexpr Layout kT = Layout::Transposed, kS = Layout::Strided, kE = Layout::Expanded;

/// Adds body once per variant as a case of op (covering op, or the ops in covers); kGrad also compares gradients.
template <bool kGrad, class Body> void each(DiffList& list, const std::string& op, const Variants& variants, Body body,
                                            std::vector<std::string> covers = {}, CaseOptions options = {}) {
  if (covers.empty()) covers = {op};
  for (const auto& v : variants) {
    if constexpr (kGrad) list.add_grad(op, covers, v, body, options);
    else list.add(op, covers, v, body, options);
  }
}

void add_elementwise_cases(DiffList& list);
void add_math_cases(DiffList& list);
void add_structure_cases(DiffList& list);
void add_index_cases(DiffList& list);
void add_module_cases(DiffList& list);

/// Every case of the differential target.
const std::vector<DiffCase>& all_cases();

/// The tolerance for dtype, scaled.
Tolerance tolerance_for(DType dtype, double scale);
/// Empty when actual matches expected; else a report naming the worst element.
std::optional<std::string> compare(const TensorData& expected, const TensorData& actual, const CaseOptions& options);
/// "f32[3, 5] transposed normal" for each input.
std::string describe_inputs(const std::vector<InputSpec>& specs);

}  // namespace scorch::differential

/// A case body: B is the backend; F, I, Bo and M its float, int, bool and module ops; fo, io and
/// bo wrap a float, int or bool primitive as an output; `in` holds the inputs (Loaded<B>).
#define SCORCH_DIFF_BODY(...)                                                                              \
  [](auto tag, auto& in) {                                                                                 \
    using B = typename decltype(tag)::type;                                                                \
    using F = ::scorch::KindOps<B, ::scorch::Float>;                                                       \
    using I = ::scorch::KindOps<B, ::scorch::Int>;                                                         \
    using Bo = ::scorch::KindOps<B, ::scorch::Bool>;                                                       \
    using M = ::scorch::ModuleOpsOf<B>;                                                                    \
    using V = ::scorch::differential::Value<B>;                                                            \
    auto fo = [](typename B::FloatTensor t) { return V{std::move(t), std::nullopt, std::nullopt}; };       \
    auto io = [](typename B::IntTensor t) { return V{std::nullopt, std::move(t), std::nullopt}; };         \
    auto bo = [](typename B::BoolTensor t) { return V{std::nullopt, std::nullopt, std::move(t)}; };        \
    (void)sizeof(F*), (void)sizeof(I*), (void)sizeof(Bo*), (void)sizeof(M*), (void)fo, (void)io, (void)bo; \
    return std::vector<V>{__VA_ARGS__};                                                                    \
  }
