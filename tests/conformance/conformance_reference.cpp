// The conformance suite on the Reference backend: Cpu's kernels for the op table's required ops only,
// so each provided op runs backend/provided's default against the same PyTorch fixtures.
#include "runner.h"

namespace scorch::conformance {
namespace {

// Reference binds no provided op itself (gelu, zeros and swap_dims are provided; exp is required).
template <class B> concept BindsGelu = requires { &B::float_gelu; };
template <class B> concept BindsZeros = requires { &B::int_zeros; };
template <class B> concept BindsSwapDims = requires { &B::float_swap_dims; };
template <class B> concept BindsExp = requires { &B::float_exp; };
static_assert(!BindsGelu<Reference> && !BindsZeros<Reference> && !BindsSwapDims<Reference> && BindsExp<Reference>);
static_assert(BindsGelu<Cpu> && BindsSwapDims<Cpu>, "Cpu binds its own kernels for these provided ops");

SCORCH_CONFORMANCE_SUITE(ReferenceConformance, Reference)

}  // namespace
}  // namespace scorch::conformance
