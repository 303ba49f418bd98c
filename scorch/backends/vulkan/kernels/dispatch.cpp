// The elementwise launcher and the shared launch helpers (dispatch.h).
#include "scorch/backends/vulkan/kernels/dispatch.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "scorch/core/error.h"

namespace scorch::backends::vulkan::kernels {
namespace {

// The largest element index a kernel may reach: below 2^31 by the grid-stride loops' largest step (65535·256, and
// reduce.comp's 256·4096), so no loop counter wraps.
constexpr int64_t kIndexLimit = std::numeric_limits<int32_t>::max() - (int64_t{1} << 26);

bool fits(int64_t v) { return v >= -kIndexLimit && v <= kIndexLimit; }

OperandParams operand(const VulkanTensor& x, const Shape& shape) {
  OperandParams p;
  split_words(p.addr, address_of(x));
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

uint64_t address_of(const VulkanTensor& x) { return x.storage() ? x.storage()->address() : 0; }

void split_words(uint32_t* slot, uint64_t v) {
  slot[0] = static_cast<uint32_t>(v);
  slot[1] = static_cast<uint32_t>(v >> 32);
}

detail::Context& context_of(const VulkanTensor& x) { return detail::Context::get(x.device().index); }

std::string variant(const char* name, std::initializer_list<DType> dtypes) {
  bool wide = std::any_of(dtypes.begin(), dtypes.end(), [](DType d) { return d == DType::F64 || d == DType::I64; });
  return std::string(name) + (wide ? "_wide" : "");
}

void check_index_range(const char* op, const VulkanTensor& x) {
  // Every element's index, offset plus Σ coordinate·stride, must lie in [0, kIndexLimit].
  int64_t lo = x.offset(), hi = x.offset();
  bool ok = x.numel() <= static_cast<size_t>(kIndexLimit);
  for (size_t d = 0; d < x.shape().rank() && ok && x.numel() > 0; ++d) {
    int64_t reach = x.strides()[d] * static_cast<int64_t>(x.shape()[d] - 1);
    (reach < 0 ? lo : hi) += reach;
    ok = fits(reach);
  }
  if (!ok || lo < 0 || hi > kIndexLimit)
    throw DeviceError(op, "tensor of shape " + x.shape().to_string() +
                              " exceeds the Vulkan kernels' 32-bit element indices (about 2^31 elements)");
}

uint32_t groups_for(int64_t n) { return static_cast<uint32_t>(std::clamp<int64_t>((n + 255) / 256, 1, 65535)); }

namespace {

// The shape, the operands and the scalar of launch into out, as map.comp's parameter block has them.
MapParams map_params(const char* name, const VulkanTensor& out, const MapLaunch& launch) {
  const Shape& shape = out.shape();
  MapParams p;
  p.rank = static_cast<int32_t>(shape.rank());
  p.n = static_cast<int32_t>(out.numel());
  for (size_t d = 0; d < shape.rank(); ++d) p.shape[d] = static_cast<int32_t>(shape[d]);
  p.out = operand(out, shape);
  for (auto [x, slot] : {std::pair{launch.a, &p.a}, {launch.b, &p.b}, {launch.c, &p.c}})
    if (x) {
      check_index_range(name, *x);
      *slot = operand(*x, shape);
    }
  if (launch.scalar) {
    const Scalar& s = *launch.scalar;
    DType sd = launch.form == FORM_FILL || !launch.a ? out.dtype() : launch.a->dtype();
    int64_t wrapped = wrap_int(s, sd);
    p.scalar_f = static_cast<float>(s.to_double());
    p.scalar_i = static_cast<int32_t>(wrapped);
    split_words(p.scalar_f64, std::bit_cast<uint64_t>(s.to_double()));
    split_words(p.scalar_i64, static_cast<uint64_t>(wrapped));
  }
  return p;
}

// True when launch can run four f32 elements per 16-byte load: dense operands, offsets multiples of 4.
bool vec4_eligible(const VulkanTensor& out, const MapLaunch& launch, bool contig) {
  bool f32 = out.dtype() == DType::F32 && (!launch.a || launch.a->dtype() == DType::F32) &&
             (!launch.b || launch.b->dtype() == DType::F32);
  bool plain_op = launch.kind == KIND_FLOAT && !launch.c && launch.form != FORM_FILL && launch.op < OP_EQ &&
                  launch.op != OP_IS_NAN && launch.op != OP_IS_INF && !launch.wide_scalar;
  if (!contig || !f32 || !plain_op) return false;
  for (const VulkanTensor* x : {&out, launch.a, launch.b})
    if (x && (x->offset() % 4 != 0 || address_of(*x) % 16 != 0)) return false;
  return true;
}

MapPush map_push(const MapParams& p, VkDeviceAddress params) {
  MapPush push;
  split_words(push.params, params);
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
  return push;
}

}  // namespace

void run_map(const char* name, const VulkanTensor& out, const MapLaunch& launch) {
  const Shape& shape = out.shape();
  size_t n = out.numel();
  if (n == 0) return;
  check_index_range(name, out);
  MapParams p = map_params(name, out, launch);
  DType da = launch.a ? launch.a->dtype() : out.dtype();
  DType db = launch.b ? launch.b->dtype() : da;
  DType dc = launch.c ? launch.c->dtype() : DType::Bool;
  bool contig = out.is_contiguous() && dense_in_order(launch.a, shape) && dense_in_order(launch.b, shape) &&
                dense_in_order(launch.c, shape);
  bool vec4 = vec4_eligible(out, launch, contig);
  auto code = [](DType d) { return static_cast<int32_t>(d); };
  int32_t bits = static_cast<int32_t>(dtype_size(da) * 8);
  detail::Context& ctx = context_of(out);
  MapPush push = map_push(p, 0);
  bool dynamic = ctx.dynamic_for(n);
  if (dynamic) {
    push.codes = launch.op | code(out.dtype()) << 8 | code(da) << 12 | code(db) << 16 | code(dc) << 20 |
                 launch.kind << 24 | launch.form << 28;
    push.bits = bits;
  }
  int32_t spec[] = {dynamic ? 0 : launch.op,
                    dynamic ? 0 : code(out.dtype()),
                    dynamic ? 0 : code(da),
                    dynamic ? 0 : code(db),
                    dynamic ? 0 : code(dc),
                    dynamic ? 0 : launch.kind,
                    dynamic ? 0 : launch.form,
                    contig ? 1 : 0,
                    dynamic ? 0 : bits,
                    vec4 ? 1 : 0,
                    dynamic ? 1 : 0};
  std::string shader = variant("map", {out.dtype(), da, db, launch.wide_scalar ? DType::F64 : da});
  uint32_t groups = groups_for(static_cast<int64_t>(vec4 ? (n + 3) / 4 : n));
  if (contig) ctx.dispatch(shader, spec, &push, sizeof(push), groups);
  else ctx.dispatch_with_params(shader, spec, &p, sizeof(p), &push, sizeof(push), groups);  // shape and strides
}

void check_dim_in_range(const char* op, const VulkanTensor& x, size_t dim) {
  if (dim >= x.shape().rank())
    throw ShapeError(op, "dim " + std::to_string(dim) + " out of range for shape " + x.shape().to_string());
}

LanePush lanes_push(const VulkanTensor& x, const VulkanTensor& out, size_t dim) {
  size_t n = x.shape()[dim], inner = 1;
  for (size_t d = dim + 1; d < x.shape().rank(); ++d) inner *= x.shape()[d];
  LanePush p{};
  split_words(p.x_addr, address_of(x));
  split_words(p.out_addr, address_of(out));
  p.x_offset = static_cast<int32_t>(x.offset());
  p.lanes = static_cast<int32_t>(n == 0 ? 0 : x.numel() / n);
  p.n = static_cast<int32_t>(n);
  p.inner = static_cast<int32_t>(inner);
  return p;
}

bool exceeds_loop_cap(const detail::Context& ctx, size_t iterations) {
  return ctx.info().name.starts_with("llvmpipe") && iterations > 65000;
}

}  // namespace scorch::backends::vulkan::kernels
