// The elementwise launcher and the shared launch helpers (dispatch.h).
#include "scorch/backends/vulkan/kernels/dispatch.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "scorch/core/error.h"

namespace scorch::backends::vulkan::kernels {
namespace {

constexpr int64_t kIndexLimit = std::numeric_limits<int32_t>::max();

bool fits(int64_t v) { return v >= -kIndexLimit && v <= kIndexLimit; }

OperandParams operand(const VulkanTensor& x, const Shape& shape) {
  OperandParams p;
  uint64_t addr = x.storage() ? x.storage()->address() : 0;
  p.addr[0] = static_cast<uint32_t>(addr);
  p.addr[1] = static_cast<uint32_t>(addr >> 32);
  p.offset = static_cast<int32_t>(x.offset());
  Strides s = broadcast_strides(x, shape);
  for (size_t d = 0; d < shape.rank(); ++d) p.strides[d] = static_cast<int32_t>(s[d]);
  return p;
}

bool dense_in_order(const VulkanTensor* x, const Shape& shape) {
  return !x || (x->shape() == shape && x->is_contiguous());
}

// The int value of s as dtype's type (wrapped as a C++ cast to it), widened back.
int64_t wrap_int(const Scalar& s, DType dtype) {
  int64_t v = s.to_int();
  switch (dtype) {
    case DType::I32: return static_cast<int32_t>(v);
    case DType::I16: return static_cast<int16_t>(v);
    case DType::I8: return static_cast<int8_t>(v);
    case DType::U8: return static_cast<uint8_t>(v);
    case DType::Bool: return s.to_double() != 0.0 ? 1 : 0;
    default: return v;
  }
}

}  // namespace

detail::Context& context_of(const VulkanTensor& x) { return detail::Context::get(x.device().index); }

std::string variant(const char* name, std::initializer_list<DType> dtypes) {
  bool wide = std::any_of(dtypes.begin(), dtypes.end(), [](DType d) { return d == DType::F64 || d == DType::I64; });
  return std::string(name) + (wide ? "_wide" : "");
}

void check_index_range(const char* op, const VulkanTensor& x) {
  bool ok = x.numel() <= static_cast<size_t>(kIndexLimit) && fits(x.offset());
  for (size_t d = 0; d < x.shape().rank() && ok; ++d) ok = fits(x.strides()[d] * static_cast<int64_t>(x.shape()[d]));
  if (!ok)
    throw DeviceError(op, "tensor of shape " + x.shape().to_string() +
                              " exceeds the Vulkan kernels' 32-bit element indices (2^31 elements)");
}

uint32_t groups_for(int64_t n) { return static_cast<uint32_t>(std::clamp<int64_t>((n + 255) / 256, 1, 65535)); }

void run_map(const char* name, const VulkanTensor& out, const MapLaunch& launch) {
  const Shape& shape = out.shape();
  size_t n = out.numel();
  if (n == 0) return;
  check_index_range(name, out);
  MapParams p;
  p.rank = static_cast<int32_t>(shape.rank());
  p.n = static_cast<int32_t>(n);
  for (size_t d = 0; d < shape.rank(); ++d) p.shape[d] = static_cast<int32_t>(shape[d]);
  p.out = operand(out, shape);
  DType da = launch.a ? launch.a->dtype() : out.dtype();
  DType db = launch.b ? launch.b->dtype() : da;
  DType dc = launch.c ? launch.c->dtype() : DType::Bool;
  for (auto [x, slot] : {std::pair{launch.a, &p.a}, {launch.b, &p.b}, {launch.c, &p.c}})
    if (x) {
      check_index_range(name, *x);
      *slot = operand(*x, shape);
    }
  if (launch.scalar) {
    const Scalar& s = *launch.scalar;
    DType sd = launch.form == FORM_FILL ? out.dtype() : da;
    p.scalar_f = static_cast<float>(s.to_double());
    int64_t wrapped = wrap_int(s, sd);
    p.scalar_i = static_cast<int32_t>(wrapped);
    uint64_t fbits = std::bit_cast<uint64_t>(s.to_double());
    p.scalar_f64[0] = static_cast<uint32_t>(fbits);
    p.scalar_f64[1] = static_cast<uint32_t>(fbits >> 32);
    p.scalar_i64[0] = static_cast<uint32_t>(static_cast<uint64_t>(wrapped));
    p.scalar_i64[1] = static_cast<uint32_t>(static_cast<uint64_t>(wrapped) >> 32);
  }
  bool contig = out.is_contiguous() && dense_in_order(launch.a, shape) && dense_in_order(launch.b, shape) &&
                dense_in_order(launch.c, shape);
  int bits = static_cast<int>(dtype_size(da) * 8);
  bool vec4 = contig && launch.kind == KIND_FLOAT && out.dtype() == DType::F32 && da == DType::F32 &&
              (!launch.b || db == DType::F32) && !launch.c && launch.form != FORM_FILL && launch.op < OP_EQ &&
              launch.op != OP_IS_NAN && launch.op != OP_IS_INF && !launch.wide_scalar;
  for (const VulkanTensor* x : {&out, launch.a, launch.b})
    if (x && vec4) vec4 = x->offset() % 4 == 0 && (x->storage() ? x->storage()->address() : 0) % 16 == 0;
  int32_t spec[] = {launch.op,
                    static_cast<int32_t>(out.dtype()),
                    static_cast<int32_t>(da),
                    static_cast<int32_t>(db),
                    static_cast<int32_t>(dc),
                    launch.kind,
                    launch.form,
                    contig ? 1 : 0,
                    bits,
                    vec4 ? 1 : 0};
  std::string shader = variant("map", {out.dtype(), da, db, launch.wide_scalar ? DType::F64 : da});
  detail::Context& ctx = context_of(out);
  MapPush push;
  VkDeviceAddress addr = contig ? 0 : ctx.params(&p, sizeof(p));  // strided launches read the shape and strides
  push.params[0] = static_cast<uint32_t>(addr);
  push.params[1] = static_cast<uint32_t>(addr >> 32);
  for (auto [from, to] :
       {std::pair{&p.out, push.out_addr}, {&p.a, push.a_addr}, {&p.b, push.b_addr}, {&p.c, push.c_addr}}) {
    to[0] = from->addr[0];
    to[1] = from->addr[1];
  }
  push.base_out = p.out.offset, push.base_a = p.a.offset, push.base_b = p.b.offset, push.base_c = p.c.offset;
  push.n = p.n;
  push.scalar_f = p.scalar_f;
  push.scalar_i = p.scalar_i;
  std::copy(p.scalar_f64, p.scalar_f64 + 2, push.scalar_f64);
  std::copy(p.scalar_i64, p.scalar_i64 + 2, push.scalar_i64);
  ctx.dispatch(shader, spec, &push, sizeof(push), groups_for(static_cast<int64_t>(vec4 ? (n + 3) / 4 : n)));
}

}  // namespace scorch::backends::vulkan::kernels
