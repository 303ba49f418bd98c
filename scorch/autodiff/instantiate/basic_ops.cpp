// BasicOps<B>, Gradients<B> and run_backward<B>, compiled once per inner backend: the build defines
// SCORCH_AUTODIFF_INNER (the backend type) and SCORCH_AUTODIFF_INNER_HEADER (the header that declares Autodiff<B>).
#include SCORCH_AUTODIFF_INNER_HEADER
#include "scorch/autodiff/ops/basic_ops_impl.h"

namespace scorch::autodiff {
template struct BasicOps<SCORCH_AUTODIFF_INNER>;
template class Gradients<SCORCH_AUTODIFF_INNER>;
template Gradients<SCORCH_AUTODIFF_INNER> run_backward<SCORCH_AUTODIFF_INNER>(
    const AutodiffTensor<SCORCH_AUTODIFF_INNER>& root);
}  // namespace scorch::autodiff
