#pragma once
// Short names the module-op conformance cases share.
#include "scorch/tensor/functional.h"

namespace scorch::conformance::module_aliases {
namespace mod = ::scorch::functional;
using C1 = mod::ConvOptions<1>;
using C2 = mod::ConvOptions<2>;
using C3 = mod::ConvOptions<3>;
using T1 = mod::ConvTransposeOptions<1>;
using T2 = mod::ConvTransposeOptions<2>;
using T3 = mod::ConvTransposeOptions<3>;
using U2 = mod::UnfoldOptions<2>;
using S1 = mod::Size<1>;
using S2 = mod::Size<2>;
}  // namespace scorch::conformance::module_aliases
