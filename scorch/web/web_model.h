#pragma once
// Models for web pages (the WebAssembly build; docs/book ch. 11): a model registered under a name is built from a
// config (JSON text) and a record, and maps one float tensor to another on Cpu. The C functions of web_api.h and
// the JavaScript package web/scorch-web load and run registered models; a native program links the same
// registrations to check the page's answers.
//
//   SCORCH_WEB_MODEL(digits, [](const std::string& config, const Record& record) {
//     auto model = guide::ModelConfig::from_json(config).init_with<Cpu>(record);
//     return web::wrap<3>([model](const Tensor<Cpu, 3>& x) { return activation::softmax(model.forward(x), 1); });
//   });
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/core/tensor_data.h"
#include "scorch/module/record.h"
#include "scorch/tensor/tensor.h"

namespace scorch::web {

/// A loaded model: input values of the model's rank in, output values out (both float32).
class Model {
 public:
  virtual ~Model() = default;
  /// The input's rank; run rejects any other.
  virtual size_t input_rank() const = 0;
  /// The output for input; throws scorch::Error (the failing op and the shapes) on bad input.
  virtual TensorData run(const TensorData& input) const = 0;
};

/// Builds a model from its config (JSON text) and record; throws scorch::Error when they do not fit.
using ModelFactory = std::function<std::unique_ptr<Model>(const std::string& config, const Record& record)>;

/// Makes name loadable; returns true (for static registration). A second registration of a name replaces it.
bool register_model(const std::string& name, ModelFactory factory);
/// The registered names, sorted.
std::vector<std::string> model_names();
/// The model name builds from config and record; ValueError naming name and the registered names when unknown.
std::unique_ptr<Model> load_model(const std::string& name, const std::string& config, const Record& record);

/// A Model over forward, a function of a float tensor of rank D on Cpu.
template <size_t D, class Forward> class FunctionModel final : public Model {
 public:
  explicit FunctionModel(Forward forward) : forward_(std::move(forward)) {}
  size_t input_rank() const override { return D; }
  TensorData run(const TensorData& input) const override {
    return forward_(Tensor<Cpu, D>::from_data(input.convert(DType::F32))).to_data();
  }

 private:
  Forward forward_;
};

/// forward (rank-D float tensor → float tensor) as a Model.
template <size_t D, class Forward> std::unique_ptr<Model> wrap(Forward forward) {
  return std::make_unique<FunctionModel<D, Forward>>(std::move(forward));
}

}  // namespace scorch::web

/// Registers a model under the identifier name, built by the factory (a ModelFactory; commas allowed), at start-up.
#define SCORCH_WEB_MODEL(name, ...) \
  static const bool scorch_web_model_registered_##name = ::scorch::web::register_model(#name, __VA_ARGS__)
