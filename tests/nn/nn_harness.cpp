#include "nn_harness.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "conformance/harness.h"

namespace scorch::nntest {

std::vector<NnFixture> load_nn_fixtures(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw IoError("load_nn_fixtures", "cannot open " + path);
  nlohmann::json root = nlohmann::json::parse(file);
  std::vector<NnFixture> out;
  for (const auto& c : root) {
    NnFixture f;
    f.name = c.at("name").get<std::string>();
    for (const auto& t : c.at("inputs")) f.inputs.push_back(conformance::decode_tensor(t));
    for (const auto& t : c.at("outputs")) f.outputs.push_back(conformance::decode_tensor(t));
    for (const auto& [k, v] : c.at("params").items()) f.params[k] = conformance::decode_tensor(v);
    for (const auto& [k, v] : c.at("grads").items()) f.grads[k] = conformance::decode_tensor(v);
    if (c.contains("extras"))
      for (const auto& [k, v] : c.at("extras").items()) f.extras[k] = conformance::decode_tensor(v);
    out.push_back(std::move(f));
  }
  return out;
}

Record params_record(const DataMap& params) {
  Record root = Record::map();
  for (const auto& [key, data] : params) {
    Record* node = &root;
    std::stringstream parts(key);
    std::string part;
    std::vector<std::string> names;
    while (std::getline(parts, part, '.')) names.push_back(part);
    for (size_t i = 0; i + 1 < names.size(); ++i) {
      if (!node->find(names[i])) node->set(names[i], Record::map());
      node = node->find_mut(names[i]);
    }
    node->set(names.back(), Record(data));
  }
  return root;
}

CaseInputs::CaseInputs(const NnFixture& fx) : fx_(fx) {
  for (size_t i = 0; i < fx.inputs.size(); ++i)
    if (is_float(fx.inputs[i].dtype()))
      leaves_[i] = AD::float_set_require_grad(AD::float_from_data(fx.inputs[i], CpuDevice{}), true);
}

}  // namespace scorch::nntest
