// The op table's generated outputs agree with each other: op metadata, IR records, the backends'
// concepts and Autodiff's forwarding (every op of scorch/backend/op_table.txt, none twice).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "scorch/ir/op_record.h"
#include "scorch/gen/op_info.h"
#include "scorch/scorch.hpp"

namespace scorch {
namespace {

template <size_t... Is> constexpr bool record_ids_match(std::index_sequence<Is...>) {
  return ((ir::RecordOf<Is>::id == static_cast<OpId>(Is)) && ...);
}
static_assert(record_ids_match(std::make_index_sequence<kOpCount>{}), "record i is op i");
static_assert(Backend<Cpu> && AutodiffBackend<Autodiff<Cpu>>, "the generated ops satisfy the contract");

template <class T> constexpr bool kIsOutputs = false;
template <size_t N> constexpr bool kIsOutputs<std::array<ir::TensorIr, N>> = true;

/// The record's tensor fields: (tensor inputs, tensor outputs), and whether the outputs field is named "out".
struct TensorFieldCounter {
  size_t inputs = 0, outputs = 0;
  bool outputs_named_out = true;
  void operator()(std::string_view name, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (kIsOutputs<Field>) {
      outputs = std::tuple_size_v<Field>;
      outputs_named_out = name == "out";
    } else if (std::is_same_v<Field, std::vector<ir::TensorIr>> && name == "out") {
      outputs = kVariableOutputs;  // a list of results
    } else if constexpr (std::is_same_v<Field, ir::TensorIr> || std::is_same_v<Field, std::optional<ir::TensorIr>> ||
                         std::is_same_v<Field, std::vector<ir::TensorIr>>)
      ++inputs;
  }
};

TEST(OpTable, NamesAreUniqueAndKindPrefixed) {
  std::set<std::string_view> names(kOpNames.begin(), kOpNames.end());
  EXPECT_EQ(names.size(), kOpCount);
  for (const auto& op : kOps) {
    auto prefix = op.name.substr(0, op.name.find('_'));
    EXPECT_TRUE(prefix == "float" || prefix == "int" || prefix == "bool" || prefix == "module") << op.name;
    EXPECT_FALSE(op.signature.empty()) << op.name;
  }
}

TEST(OpTable, RowsSayWhatTheTableSays) {
  const auto& add = op_info(OpId::float_add);
  EXPECT_EQ(add.name, "float_add");
  EXPECT_EQ(add.op_class, OpClass::Elementwise);
  EXPECT_TRUE(add.required);
  EXPECT_TRUE(add.has_kernel);
  EXPECT_EQ(add.tensor_inputs, 2);
  EXPECT_EQ(add.tensor_outputs, 1);
  EXPECT_EQ(add.signature, "(F a, F b) -> F");
  const auto& zeros = op_info(OpId::int_zeros);
  EXPECT_FALSE(zeros.required);
  EXPECT_FALSE(zeros.has_kernel);
  EXPECT_EQ(zeros.tensor_inputs, 0);
  EXPECT_EQ(op_info(OpId::float_sort_with_indices).tensor_outputs, 2);
  EXPECT_EQ(op_info(OpId::module_conv_backward).tensor_outputs, 3);
  EXPECT_EQ(op_info(OpId::float_into_data).tensor_outputs, 0);
  EXPECT_EQ(op_info(OpId::float_random_seed).tensor_outputs, 0);
  EXPECT_EQ(op_info(OpId::module_adam_update_many).tensor_outputs, kVariableOutputs);
  EXPECT_EQ(op_info(OpId::module_adam_update_many).tensor_inputs, 4);
  EXPECT_EQ(op_info(OpId::module_attention).kind, OpKind::Module);
}

/// Record I's tensor fields.
template <size_t I> TensorFieldCounter record_tensor_fields() {
  TensorFieldCounter counter;
  ir::RecordOf<I>{}.visit(counter);
  return counter;
}

TEST(OpTable, EveryRecordHasTheRowsOperandsAndResults) {
  const auto fields = []<size_t... Is>(std::index_sequence<Is...>) {
    return std::array<TensorFieldCounter, kOpCount>{record_tensor_fields<Is>()...};
  }(std::make_index_sequence<kOpCount>{});
  for (size_t i = 0; i < kOpCount; ++i) {
    EXPECT_EQ(fields[i].inputs, kOps[i].tensor_inputs) << kOps[i].name;
    EXPECT_EQ(fields[i].outputs, kOps[i].tensor_outputs) << kOps[i].name;
    EXPECT_TRUE(fields[i].outputs_named_out) << kOps[i].name;
  }
}

TEST(OpTable, RecordFieldsKeepTheSignaturesOrderAndValues) {
  ir::records::FloatGather gather{.dim = 1,
                                  .x = {7, Shape{2, 3}, DType::F32},
                                  .indices = {8, Shape{2, 1}, DType::I64},
                                  .out = {{{9, Shape{2, 1}, DType::F32}}}};
  std::string order;
  gather.visit([&](std::string_view name, const auto&) { order += std::string(name) + " "; });
  EXPECT_EQ(order, "dim x indices out ");
  ir::OpRecord copy = gather;
  EXPECT_EQ(ir::get<ir::records::FloatGather>(copy).indices.id, 8u);
  EXPECT_EQ(ir::get<ir::records::FloatGather>(copy).out[0].shape, Shape({2, 1}));
  EXPECT_EQ(copy.op(), OpId::float_gather);
  EXPECT_EQ(copy.get_if<ir::records::FloatAdd>(), nullptr);
  EXPECT_THROW((void)ir::get<ir::records::FloatAdd>(copy), ValueError);
  ir::OpRecord other = ir::records::FloatAdd{};
  other = copy;  // a copy holds its own fields
  ir::get<ir::records::FloatGather>(copy).dim = 0;
  EXPECT_EQ(ir::get<ir::records::FloatGather>(other).dim, 1u);
  ir::OpRecord moved = std::move(other);
  EXPECT_EQ(moved.op(), OpId::float_gather);
  EXPECT_THROW((void)other.op(), ValueError);  // NOLINT(bugprone-use-after-move): a moved-from record says so
  other = moved;
  EXPECT_EQ(other.op(), OpId::float_gather);
}

TEST(OpTable, AutodiffRecordsProvidedOpsThroughItsOwnGraph) {
  using AD = Autodiff<Cpu>;
  auto device = CpuDevice{};
  // neg is provided: Cpu binds a kernel, Autodiff must still record it (gradient -1, not none).
  auto x = Tensor<AD, 1>::from_data({1.0, -2.0}, device).require_grad();
  auto grads = x.neg().sum().backward();
  EXPECT_EQ(x.grad(grads)->into_data().to_vector<float>(), (std::vector<float>{-1.0f, -1.0f}));
  // zeros has no autodiff rule: the provided default over Autodiff<Cpu> gives an untracked tensor.
  auto z = KindOps<AD, Float>::zeros(Shape{3}, device, DType::F32);
  EXPECT_FALSE(z.tracked());
  EXPECT_EQ(AD::float_into_data(z).to_vector<float>(), (std::vector<float>{0.f, 0.f, 0.f}));
}

}  // namespace
}  // namespace scorch
