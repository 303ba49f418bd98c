#include "scorch/import/onnx/runtime/node_passes.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

namespace scorch::onnx::detail {
namespace {

// True when the two attributes hold the same value (attributes with subgraphs never compare equal).
bool same_attribute(const Attribute& a, const Attribute& b) {
  return a.kind == b.kind && a.i == b.i && a.f == b.f && a.s == b.s && a.t == b.t && a.ints == b.ints &&
         a.floats == b.floats && a.strings == b.strings && a.graphs.empty() && b.graphs.empty();
}

bool same_attributes(const Node& a, const Node& b) {
  if (a.attributes.size() != b.attributes.size()) return false;
  for (auto ia = a.attributes.begin(), ib = b.attributes.begin(); ia != a.attributes.end(); ++ia, ++ib)
    if (ia->first != ib->first || !same_attribute(ia->second, ib->second)) return false;
  return true;
}

// Whether two runs of n on the same inputs may differ (random ops), or n holds a subgraph.
bool not_mergeable(const Node& n) {
  static const std::set<std::string> random{"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                            "Multinomial",  "Bernoulli",     "Dropout"};
  if (random.count(n.op_type) || n.outputs.empty()) return true;
  for (const auto& [name, attr] : n.attributes)
    if (!attr.graphs.empty()) return true;
  return false;
}

// Whether the earlier node's outputs stand for every output n names (the same count, none omitted there).
bool outputs_cover(const Node& earlier, const Node& n) {
  if (earlier.outputs.size() != n.outputs.size()) return false;
  for (size_t k = 0; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty() && earlier.outputs[k].empty()) return false;
  return true;
}

}  // namespace

size_t merge_common_subexpressions(std::vector<Node>& nodes, const Graph& g) {
  std::set<std::string> graph_outputs;
  for (const auto& out : g.outputs) graph_outputs.insert(out.name);
  std::map<std::string, std::string> alias;  // a merged node's output -> the earlier node's
  using Key = std::tuple<std::string, std::string, std::vector<std::string>>;
  std::map<Key, std::vector<size_t>> seen;  // by op, domain and inputs: kept nodes' indices in `kept`
  std::vector<Node> kept;
  size_t merged = 0;
  for (Node n : nodes) {
    for (auto& in : n.inputs)
      if (auto it = alias.find(in); it != alias.end()) in = it->second;
    const Node* earlier = nullptr;
    auto& candidates = seen[Key{n.op_type, n.domain, n.inputs}];
    for (size_t k : candidates)
      if (!not_mergeable(n) && same_attributes(kept[k], n) && outputs_cover(kept[k], n)) earlier = &kept[k];
    if (!earlier) {
      candidates.push_back(kept.size());
      kept.push_back(std::move(n));
      continue;
    }
    ++merged;
    std::vector<Node> identities;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      if (!graph_outputs.count(n.outputs[k])) {
        alias[n.outputs[k]] = earlier->outputs[k];
        continue;
      }
      Node copy;  // the graph names this output: it stays, a copy of the earlier node's
      copy.name = n.name + ".merged" + std::to_string(k), copy.op_type = "Identity";
      copy.inputs = {earlier->outputs[k]}, copy.outputs = {n.outputs[k]};
      identities.push_back(std::move(copy));
    }
    for (auto& copy : identities) kept.push_back(std::move(copy));
  }
  nodes = std::move(kept);
  return merged;
}

size_t remove_dead_nodes(std::vector<Node>& nodes, const Graph& g) {
  std::set<std::string> read;
  for (const auto& out : g.outputs) read.insert(out.name);
  std::vector<bool> live(nodes.size(), false);
  for (size_t i = nodes.size(); i-- > 0;) {
    const Node& n = nodes[i];
    live[i] = n.outputs.empty();
    for (const auto& out : n.outputs) live[i] = live[i] || (!out.empty() && read.count(out));
    if (live[i]) read.insert(n.inputs.begin(), n.inputs.end());
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (live[i]) kept.push_back(std::move(nodes[i]));
  size_t dropped = nodes.size() - kept.size();
  nodes = std::move(kept);
  return dropped;
}

}  // namespace scorch::onnx::detail
