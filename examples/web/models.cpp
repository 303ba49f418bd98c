// The models the web pages run (scorch/web/web_model.h), for the WebAssembly module and the native web-tool alike:
//   digits: the guide's CNN (examples/guide) on [n, 28, 28] ink in [0, 1] → the 10 digits' probabilities [n, 10];
//   icons:  the icon CNN (examples/custom-image-dataset) on [n, 32, 32] coverage in [0, 1] → the categories'
//           probabilities [n, 4].
#include <scorch/web/web_model.h>

#include "../custom-image-dataset/model.h"
#include "../guide/model_forward.hpp"

namespace {

using namespace scorch;

// [book:digits]
SCORCH_WEB_MODEL(digits, [](const std::string& config, const Record& record) {
  auto model = guide::ModelConfig::from_json(config, "digits config").init_with<Cpu>(record);
  return web::wrap<3>([model](const Tensor<Cpu, 3>& ink) {
    auto normalized = (ink - 0.1307) / 0.3081;  // as the guide's MnistBatcher, on pixel / 255
    return activation::softmax(model.forward(normalized), 1);
  });
});
// [/book:digits]

SCORCH_WEB_MODEL(icons, [](const std::string& config, const Record& record) {
  auto model = icons::IconNetConfig::from_json(config, "icons config").init<Cpu>();
  model = model.load_record(record);
  return web::wrap<3>([model](const Tensor<Cpu, 3>& coverage) {
    auto [n, height, width] = coverage.dims();
    return activation::softmax(model.forward(coverage.reshape<4>({n, size_t{1}, height, width})), 1);
  });
});

}  // namespace
