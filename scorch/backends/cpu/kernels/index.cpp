#include <cstring>
#include <string>

#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/kernels/reduce.h"

namespace scorch::backends::cpu::kernels {

std::vector<int64_t> read_indices(const char* op, const T& indices, size_t dim_size) {
  T idx = to_dtype(indices, DType::I64);
  const int64_t* p = idx.data<int64_t>();
  std::vector<int64_t> out(p, p + idx.numel());
  auto n = static_cast<int64_t>(dim_size);
  for (int64_t& v : out) {
    if (v < -n || v >= n)
      throw ShapeError(op,
                       "index " + std::to_string(v) + " is out of range for a dim of size " + std::to_string(dim_size));
    if (v < 0) v += n;
  }
  return out;
}

namespace {

// Calls body(i, offset) for every element i (row-major) of shape, where offset is the element's
// offset in a contiguous tensor of base_shape with coordinate dim replaced by index[i].
template <class Body> void for_each_indexed(const Shape& shape, const Shape& base_shape, size_t dim,
                                            const std::vector<int64_t>& index, Body body) {
  Strides bs = contiguous_strides(base_shape);
  std::array<size_t, kMaxRank> coord{};
  size_t rank = shape.rank();
  for (size_t i = 0; i < index.size(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d) off += (d == dim ? index[i] : static_cast<int64_t>(coord[d])) * bs[d];
    body(i, off);
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

T writable_copy(T x) {
  if (x.can_mut() && x.is_dense()) return x;
  T out(x.shape(), x.dtype());
  T src = contiguous(std::move(x));
  if (out.numel()) std::memcpy(out.raw(), src.raw(), out.numel() * dtype_size(out.dtype()));
  return out;
}

}  // namespace

T gather(size_t dim, T x, T indices) {
  x = contiguous(std::move(x));
  auto index = read_indices("gather", indices, x.shape()[dim]);
  T out(indices.shape(), x.dtype());
  size_t size = dtype_size(x.dtype());
  for_each_indexed(indices.shape(), x.shape(), dim, index, [&](size_t i, int64_t off) {
    std::memcpy(out.raw() + i * size, x.raw() + off * static_cast<int64_t>(size), size);
  });
  return out;
}

T scatter_add(size_t dim, T x, T indices, T values) {
  T out = writable_copy(std::move(x));
  auto index = read_indices("scatter_add", indices, out.shape()[dim]);
  values = contiguous(std::move(values));
  visit_numeric("scatter_add", out.dtype(), [&]<class E>() {
    E* dst = out.data<E>();
    const E* src = values.data<E>();
    for_each_indexed(indices.shape(), out.shape(), dim, index, [&](size_t i, int64_t off) {
      store(dst + off, scalar_ops::Add{}(load(dst + off), load(src + i)));
    });
  });
  return out;
}

T select(T x, size_t dim, T indices) {
  x = contiguous(std::move(x));
  auto index = read_indices("select", indices, x.shape()[dim]);
  Shape shape = x.shape();
  shape[dim] = index.size();
  T out(shape, x.dtype());
  Lanes g(x.shape(), dim);
  size_t block = g.inner * dtype_size(x.dtype());
  parallel_for(g.outer, 1, [&](size_t ob, size_t oe) {
    for (size_t o = ob; o < oe; ++o)
      for (size_t j = 0; j < index.size(); ++j)
        std::memcpy(out.raw() + (o * index.size() + j) * block,
                    x.raw() + (o * g.n + static_cast<size_t>(index[j])) * block, block);
  });
  return out;
}

T select_add(T x, size_t dim, T indices, T values) {
  T out = writable_copy(std::move(x));
  auto index = read_indices("select_add", indices, out.shape()[dim]);
  values = contiguous(std::move(values));
  Lanes g(out.shape(), dim);
  visit_numeric("select_add", out.dtype(), [&]<class E>() {
    E* dst = out.data<E>();
    const E* src = values.data<E>();
    for (size_t o = 0; o < g.outer; ++o)
      for (size_t j = 0; j < index.size(); ++j) {
        E* d = dst + (o * g.n + static_cast<size_t>(index[j])) * g.inner;
        const E* s = src + (o * index.size() + j) * g.inner;
        for (size_t i = 0; i < g.inner; ++i) store(d + i, scalar_ops::Add{}(load(d + i), load(s + i)));
      }
  });
  return out;
}

T mask_where(T x, T mask, T values) {
  Shape shape = broadcast_shapes("mask_where", broadcast_shapes("mask_where", x.shape(), mask.shape()), values.shape());
  T out(shape, x.dtype());
  Strides sx = broadcast_strides(x, shape), sm = broadcast_strides(mask, shape), sv = broadcast_strides(values, shape);
  const bool* pm = mask.data<bool>();
  auto select = [&]<class W>() {  // W: an unsigned word as wide as the dtype (values are copied bit for bit)
    W* po = reinterpret_cast<W*>(out.raw());
    const W *px = reinterpret_cast<const W*>(x.raw()), *pv = reinterpret_cast<const W*>(values.raw());
    strided_rows<4>(shape, {&out.strides(), &sx, &sm, &sv}, [&](auto off, auto st, size_t n) {
      W* o = po + off[0];
      const W *a = px + off[1], *b = pv + off[3];
      const bool* m = pm + off[2];
      for (size_t i = 0; i < n; ++i) {
        auto k = static_cast<int64_t>(i);
        o[k * st[0]] = m[k * st[2]] ? b[k * st[3]] : a[k * st[1]];
      }
    });
  };
  switch (dtype_size(x.dtype())) {
    case 1: select.template operator()<uint8_t>(); break;
    case 2: select.template operator()<uint16_t>(); break;
    case 4: select.template operator()<uint32_t>(); break;
    default: select.template operator()<uint64_t>(); break;
  }
  return out;
}

T mask_fill(T x, T mask, Scalar value) {
  DType dtype = x.dtype();
  return visit_any("mask_fill", dtype, [&]<class E>() {
    E v = value.as<E>();
    return map_binary<E, E>("mask_fill", std::move(x), cast(std::move(mask), dtype), dtype,
                            [v](auto a, auto m) { return m ? static_cast<compute_t<E>>(v) : a; });
  });
}

T argwhere(T mask) {
  mask = contiguous(std::move(mask));
  const bool* p = mask.data<bool>();
  size_t rank = mask.shape().rank();
  std::vector<int64_t> coords;
  std::array<size_t, kMaxRank> coord{};
  for (size_t i = 0; i < mask.numel(); ++i) {
    if (p[i])
      for (size_t d = 0; d < rank; ++d) coords.push_back(static_cast<int64_t>(coord[d]));
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < mask.shape()[d]) break;
      coord[d] = 0;
    }
  }
  T out(Shape{coords.size() / std::max<size_t>(rank, 1), rank}, DType::I64);
  if (!coords.empty()) std::memcpy(out.raw(), coords.data(), coords.size() * sizeof(int64_t));
  return out;
}

}  // namespace scorch::backends::cpu::kernels
