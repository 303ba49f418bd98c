// Where on the host (select.h): rows along the last dim, the outer dims walked with a counter.
#include "scorch/graph/select.h"

namespace scorch::graph {
namespace {

// One row, the inner strides known at compile time (0 or 1), so the compiler vectorizes it.
template <int CS, int XS, int YS> void select_row(size_t n, const bool* c, const float* x, const float* y, float* out) {
  for (size_t j = 0; j < n; ++j) out[j] = c[j * CS] ? x[j * XS] : y[j * YS];
}

using RowFn = void (*)(size_t, const bool*, const float*, const float*, float*);

// The row kernel for inner strides (cs, xs, ys), or nullptr when one is neither 0 nor 1.
RowFn row_kernel(int64_t cs, int64_t xs, int64_t ys) {
  static const RowFn table[8] = {select_row<0, 0, 0>, select_row<0, 0, 1>, select_row<0, 1, 0>, select_row<0, 1, 1>,
                                 select_row<1, 0, 0>, select_row<1, 0, 1>, select_row<1, 1, 0>, select_row<1, 1, 1>};
  auto bit = [](int64_t s) { return s == 0 || s == 1; };
  return bit(cs) && bit(xs) && bit(ys) ? table[cs * 4 + xs * 2 + ys] : nullptr;
}

}  // namespace

std::vector<int64_t> broadcast_strides(const Shape& operand, const Shape& out) {
  std::vector<int64_t> strides(out.rank(), 0);
  int64_t step = 1;
  for (size_t i = operand.rank(); i-- > 0;) {
    size_t d = out.rank() - operand.rank() + i;
    strides[d] = operand[i] == 1 && out[d] != 1 ? 0 : step;
    step *= int64_t(operand[i]);
  }
  return strides;
}

void select(const Shape& shape, const StridedOperand& cond, const StridedOperand& x, const StridedOperand& y,
            float* out) {
  size_t rank = shape.rank(), total = shape.num_elements();
  if (total == 0) return;
  size_t inner = rank ? shape[rank - 1] : 1;
  int64_t cs = rank ? cond.strides[rank - 1] : 0, xs = rank ? x.strides[rank - 1] : 0,
          ys = rank ? y.strides[rank - 1] : 0;
  std::vector<size_t> index(rank, 0);
  int64_t c0 = 0, x0 = 0, y0 = 0;
  const bool* c = static_cast<const bool*>(cond.data);
  const float *xv = static_cast<const float*>(x.data), *yv = static_cast<const float*>(y.data);
  for (size_t row = 0; row < total / inner; ++row, out += inner) {
    for (size_t j = 0; j < inner; ++j)
      out[j] = c[c0 + int64_t(j) * cs] ? xv[x0 + int64_t(j) * xs] : yv[y0 + int64_t(j) * ys];
    for (size_t d = rank - 1; d-- > 0;) {  // the next row: the outer counter carries
      c0 += cond.strides[d], x0 += x.strides[d], y0 += y.strides[d];
      if (++index[d] < shape[d]) break;
      c0 -= cond.strides[d] * int64_t(shape[d]), x0 -= x.strides[d] * int64_t(shape[d]);
      y0 -= y.strides[d] * int64_t(shape[d]), index[d] = 0;
    }
  }
}

}  // namespace scorch::graph
