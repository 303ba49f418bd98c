#pragma once
// The names of every op in op_table.def ("float_add", ...), for coverage checks and logs.
#include <array>
#include <string_view>

namespace scorch {

#define SCORCH_OP(kind, name, arity, cls, status) std::string_view(#kind "_" #name),
/// Every backend op name, in table order.
inline constexpr std::array kOpNames = {
#include "scorch/backend/op_table.def"
};
#undef SCORCH_OP

}  // namespace scorch
