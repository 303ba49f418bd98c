#pragma once
// Small helpers of the learner that need no template.
#include <string>
#include <typeindex>

namespace scorch::train {

/// A readable (demangled) name for a type, for error messages.
std::string type_name(std::type_index type);

}  // namespace scorch::train
