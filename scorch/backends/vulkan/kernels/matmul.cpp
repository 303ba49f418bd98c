// Batched matmul (matmul.comp, tiles of (16·TM)×128 outputs): operands read through their strides (transposed
// views in place), batch dims broadcast; an operand whose batches are not evenly strided is copied once. f16/bf16
// accumulate in f32, ints in the int compute type (wrapping as the Cpu backend's int64 accumulation truncated to the
// dtype does).
#include "scorch/backends/common/strided_layout.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

struct MatmulPush {
  uint32_t a_addr[2], b_addr[2], c_addr[2];
  int32_t a_offset, b_offset, c_offset, m, n, k, a_batch, a_row, a_col, b_batch, b_row, b_col, c_batch, batches, k_len;
};
static_assert(sizeof(MatmulPush) <= 128);

Shape batch_of(const Shape& s) {
  Shape b = s;
  b.remove(s.rank() - 1);
  b.remove(s.rank() - 2);
  return b;
}

// x's per-batch stride when its batches over batch are evenly spaced (stride 0: broadcast), else nullopt.
std::optional<int64_t> batch_stride(const T& x, const Shape& batch) {
  int64_t stride = 0;
  size_t span = 1;  // batches covered by the dims after d
  bool set = false;
  for (size_t d = batch.rank(); d-- > 0;) {
    if (batch[d] == 1) continue;
    int64_t s = x.shape()[d] == 1 ? 0 : x.strides()[d];
    if (!set) {
      if (span != 1) return std::nullopt;
      stride = s;
      set = true;
    } else if (s != stride * static_cast<int64_t>(span)) {
      return std::nullopt;
    }
    span *= batch[d];
  }
  return stride;
}

// x broadcast to batch and copied so its batches are evenly strided.
T even_batches(T x, const Shape& batch) {
  Shape full = batch;
  full.push_back(x.shape()[x.shape().rank() - 2]);
  full.push_back(x.shape()[x.shape().rank() - 1]);
  T expanded(x.storage(), full, broadcast_strides(x, full), x.offset(), x.dtype());
  VulkanTensor out(full, x.dtype(), x.device());
  assign_view(out, expanded);
  return out;
}

std::string shader_for(DType d) {
  switch (d) {
    case DType::F64: return "matmul_f64";
    case DType::I64: return "matmul_i64";
    case DType::F32:
    case DType::F16:
    case DType::BF16: return "matmul_f32";
    default: return "matmul_i32";
  }
}

struct CoopPush {
  uint32_t a_addr[2], b_addr[2], c_addr[2];
  int32_t a_offset, b_offset, c_offset, m, n, k, a_batch, a_outer, b_batch, b_outer, c_batch;
};
static_assert(sizeof(CoopPush) <= 128);

// How matmul_coop.comp reads a rows × cols operand: whether it is transposed (contiguous along rows) and its stride
// along the other dim; nullopt unless the contiguous dim's extent and the other stride are multiples of 8 (16 bytes).
struct CoopLayout {
  bool transposed;
  int64_t outer;
};
std::optional<CoopLayout> coop_layout(int64_t row_stride, int64_t col_stride, size_t rows, size_t cols) {
  if ((col_stride == 1 || cols == 1) && cols % 8 == 0 && (rows == 1 || row_stride % 8 == 0))
    return CoopLayout{false, rows == 1 ? 0 : row_stride};
  if ((row_stride == 1 || rows == 1) && rows % 8 == 0 && (cols == 1 || col_stride % 8 == 0))
    return CoopLayout{true, cols == 1 ? 0 : col_stride};
  return std::nullopt;
}

// A build of matmul_coop.comp: its name and output tile.
struct CoopShader {
  const char* name;
  size_t rows, cols;
};
// 128×256 tiles (eight subgroups, one shared buffer) for products of 256 columns or more, else 128×128 (four
// subgroups, two buffers). On an H200, f16 4096³: 0.82 ms against 1.06 ms for 128×128, 1.50 ms for 64-deep slices,
// 0.85 ms for 256×128, with 16-deep slices (two buffers fit in 48 KiB) 1.04 ms for 128×256, 1.53 ms for 128×128,
// and with fragments loaded straight from the operands (no shared staging, no barriers) 2.73 ms.
CoopShader coop_shader(size_t n) {
  return n >= 256 ? CoopShader{"matmul_coop_n256", 128, 256} : CoopShader{"matmul_coop", 128, 128};
}

// Runs the f16 product on cooperative matrices (matmul_coop.comp) when the device has them and both operands' chunks
// of 8 are aligned; false (nothing recorded) otherwise.
bool coop_matmul(const T& a, const T& b, T& out, int64_t a_batch, int64_t b_batch, size_t count) {
  size_t r = a.shape().rank();
  size_t m = a.shape()[r - 2], k = a.shape()[r - 1], n = b.shape()[r - 1];
  detail::Context& ctx = context_of(out);
  if (a.dtype() != DType::F16 || !ctx.info().cooperative_matrix_f16) return false;
  auto la = coop_layout(a.strides()[r - 2], a.strides()[r - 1], m, k);
  auto lb = coop_layout(b.strides()[r - 2], b.strides()[r - 1], k, n);
  if (!la || !lb || a.offset() % 8 || b.offset() % 8 || a_batch % 8 || b_batch % 8) return false;
  CoopShader shader = coop_shader(n);
  auto groups_x = static_cast<uint32_t>((n + shader.cols - 1) / shader.cols),
       groups_y = static_cast<uint32_t>((m + shader.rows - 1) / shader.rows);
  if (groups_x > 65535 || groups_y > 65535) return false;
  CoopPush p{};
  split_words(p.a_addr, address_of(a));
  split_words(p.b_addr, address_of(b));
  split_words(p.c_addr, address_of(out));
  p.m = static_cast<int32_t>(m);
  p.n = static_cast<int32_t>(n);
  p.k = static_cast<int32_t>(k);
  p.a_batch = static_cast<int32_t>(a_batch);
  p.a_outer = static_cast<int32_t>(la->outer);
  p.b_batch = static_cast<int32_t>(b_batch);
  p.b_outer = static_cast<int32_t>(lb->outer);
  p.c_batch = static_cast<int32_t>(m * n);
  int32_t spec[] = {la->transposed ? 1 : 0, lb->transposed ? 1 : 0};
  for (size_t first = 0; first < count; first += 65535) {
    size_t chunk = std::min<size_t>(count - first, 65535);
    p.a_offset = static_cast<int32_t>(a.offset() + static_cast<int64_t>(first) * a_batch);
    p.b_offset = static_cast<int32_t>(b.offset() + static_cast<int64_t>(first) * b_batch);
    p.c_offset = static_cast<int32_t>(first * m * n);
    ctx.dispatch(shader.name, spec, &p, sizeof(p), groups_x, groups_y, static_cast<uint32_t>(chunk));
    ctx.count(&WorkStats::cooperative_matrix_dispatches);
  }
  return true;
}

// matmul.comp's push constants for out = a · b over batches strided sa and sb, the whole k in one slice.
MatmulPush plain_push(const T& a, const T& b, const T& out, int64_t sa, int64_t sb) {
  size_t r = a.shape().rank();
  MatmulPush p{};
  split_words(p.a_addr, address_of(a));
  split_words(p.b_addr, address_of(b));
  split_words(p.c_addr, address_of(out));
  p.a_offset = static_cast<int32_t>(a.offset());
  p.b_offset = static_cast<int32_t>(b.offset());
  p.m = static_cast<int32_t>(a.shape()[r - 2]);
  p.n = static_cast<int32_t>(b.shape()[r - 1]);
  p.k = static_cast<int32_t>(a.shape()[r - 1]);
  p.a_batch = static_cast<int32_t>(sa);
  p.a_row = static_cast<int32_t>(a.strides()[r - 2]);
  p.a_col = static_cast<int32_t>(a.strides()[r - 1]);
  p.b_batch = static_cast<int32_t>(sb);
  p.b_row = static_cast<int32_t>(b.strides()[r - 2]);
  p.b_col = static_cast<int32_t>(b.strides()[r - 1]);
  p.c_batch = p.m * p.n;
  p.k_len = p.k;
  return p;
}

// The k slices (split-K) of a float product whose `tiles` output tiles cannot fill a GPU (fewer than 64) while k is
// long: enough slices for about 128 workgroups, each at least 128 deep; 1 otherwise.
size_t k_slices(size_t tiles, size_t k, size_t batches, DType dtype) {
  if (!is_float(dtype) || tiles >= 64 || k < 512) return 1;
  size_t slices = std::min((128 + tiles - 1) / tiles, k / 128);
  return slices * batches <= 65535 ? slices : 1;
}

// Throws unless a · b is a product of same-rank numeric operands on one device with matching inner dims.
void check_operands(const T& a, const T& b) {
  size_t r = a.shape().rank();
  if (r < 2 || b.shape().rank() != r)
    throw ShapeError("matmul", "needs operands of one rank of 2 or more, got " + a.shape().to_string() + " and " +
                                   b.shape().to_string());
  if (a.dtype() != b.dtype() || a.dtype() == DType::Bool)
    throw DTypeError("matmul", "operands of dtype " + std::string(dtype_name(a.dtype())) + " and " +
                                   std::string(dtype_name(b.dtype())));
  if (!(a.device() == b.device()))
    throw DeviceError("matmul", "operands on " + a.device().to_string() + " and " + b.device().to_string());
  if (b.shape()[r - 2] != a.shape()[r - 1])
    throw ShapeError("matmul", "inner dims differ: " + a.shape().to_string() + " · " + b.shape().to_string());
}

// Whether an f16/bf16 product off the tensor cores runs faster as casts to f32, the f32 product (vec4 reads of its
// tiles) and a cast back: the same f32 accumulation and final rounding; on an H200, bf16 4096³ took 8.2 ms directly.
// Small products keep the direct path (two more dispatches would cost more than they save).
bool widen_first(DType d, size_t m, size_t n, size_t k) {
  return (d == DType::F16 || d == DType::BF16) && k >= 256 && m * n >= 65536;
}

}  // namespace

T matmul(T a, T b) {
  check_operands(a, b);
  size_t r = a.shape().rank();
  size_t m = a.shape()[r - 2], k = a.shape()[r - 1], n = b.shape()[r - 1];
  Shape batch = broadcast_shapes("matmul", batch_of(a.shape()), batch_of(b.shape()));
  Shape out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  T out(out_shape, a.dtype(), a.device());
  if (out.numel() == 0) return out;
  if (k == 0) {
    MapLaunch fill;
    fill.form = FORM_FILL;
    fill.kind = is_float(a.dtype()) ? KIND_FLOAT : KIND_INT;
    fill.scalar = Scalar(0);
    run_map("matmul", out, fill);
    return out;
  }
  auto sa = batch_stride(a, batch);
  if (!sa) a = even_batches(std::move(a), batch), sa = batch_stride(a, batch);
  auto sb = batch_stride(b, batch);
  if (!sb) b = even_batches(std::move(b), batch), sb = batch_stride(b, batch);
  for (const T* x : {&a, &b, &out}) check_index_range("matmul", *x);
  size_t count = batch.num_elements();
  if (coop_matmul(a, b, out, *sa, *sb, count)) return out;
  if (DType d = a.dtype(); widen_first(d, m, n, k))  // (out, unused, returns to the pool)
    return cast(matmul(cast(std::move(a), DType::F32), cast(std::move(b), DType::F32)), d);
  MatmulPush p = plain_push(a, b, out, *sa, *sb);
  // 128-row tiles, or 32-row ones (the _short variants) for products of up to 32 rows.
  uint32_t rows = m <= 32 ? 32 : 128;
  std::string shader = shader_for(a.dtype()) + (rows == 32 ? "_short" : "");
  detail::Context& ctx = context_of(out);
  auto groups_x = static_cast<uint32_t>((n + 127) / 128), groups_y = static_cast<uint32_t>((m + rows - 1) / rows);
  if (groups_x > 65535 || groups_y > 65535)
    throw DeviceError("matmul", "a product of " + std::to_string(m) + " rows and " + std::to_string(n) +
                                    " columns exceeds the 65535 × 128 rows and columns one Vulkan dispatch covers");
  if (size_t slices = k_slices(size_t{groups_x} * groups_y * count, k, count, a.dtype()); slices > 1) {
    // Split-K: each slice's partial products in f32 (f64 for f64), summed over the slices.
    DType partial_dtype = a.dtype() == DType::F64 ? DType::F64 : DType::F32;
    T partial(Shape{slices, count, m, n}, partial_dtype, out.device());
    split_words(p.c_addr, address_of(partial));
    p.batches = static_cast<int32_t>(count);
    p.k_len = static_cast<int32_t>((k + slices - 1) / slices);
    int32_t spec[] = {static_cast<int32_t>(a.dtype()), static_cast<int32_t>(partial_dtype)};
    ctx.dispatch(shader, spec, &p, sizeof(p), groups_x, groups_y, static_cast<uint32_t>(slices * count));
    return cast(strided_layout::reshape(sum_dim(std::move(partial), 0), out_shape), a.dtype());
  }
  int32_t spec[] = {static_cast<int32_t>(a.dtype()), -1};
  for (size_t first = 0; first < count; first += 65535) {
    size_t chunk = std::min<size_t>(count - first, 65535);
    p.a_offset = static_cast<int32_t>(a.offset() + static_cast<int64_t>(first) * *sa);
    p.b_offset = static_cast<int32_t>(b.offset() + static_cast<int64_t>(first) * *sb);
    p.c_offset = static_cast<int32_t>(first * m * n);
    p.batches = static_cast<int32_t>(chunk);
    ctx.dispatch(shader, spec, &p, sizeof(p), groups_x, groups_y, static_cast<uint32_t>(chunk));
  }
  return out;
}

namespace {

/// matmul.comp's ConvParams (std430).
struct ConvParams {
  int32_t groups, channels, k_count, a_groups;
  std::array<int32_t, 3> in_size, out_size, kernel, stride, padding, dilation;
};
static_assert(sizeof(ConvParams) == 88, "must match matmul.comp");

/// The IM2COL build's push constants: the parameter block's address, then matmul.comp's own.
struct ConvPush {
  uint32_t params[2];
  MatmulPush matmul;
};
static_assert(sizeof(ConvPush) <= 128);

}  // namespace

std::optional<T> conv_product(const T& a, const T& x, const ConvWindow& w, bool transposed) {
  size_t count = static_cast<size_t>(w.samples) * w.groups, taps = static_cast<size_t>(w.channels) * w.k_count;
  size_t m = a.shape()[2], k = transposed ? w.l_count : taps, n = transposed ? taps : w.l_count;
  if (count > 65535) return std::nullopt;
  T out(Shape{static_cast<size_t>(w.samples), static_cast<size_t>(w.groups), m, n}, a.dtype(), a.device());
  if (out.numel() == 0) return out;
  T ac = contiguous(a);
  if (k == 0) return full(out.shape(), Scalar(0), out.device(), out.dtype());
  for (const T* t : std::initializer_list<const T*>{&ac, &x, &out}) check_index_range("conv", *t);
  uint32_t rows = m <= 32 ? 32 : 128;
  auto groups_x = static_cast<uint32_t>((n + 127) / 128), groups_y = static_cast<uint32_t>((m + rows - 1) / rows);
  if (groups_x > 65535 || groups_y > 65535) return std::nullopt;
  ConvPush p{};
  split_words(p.matmul.a_addr, address_of(ac));
  split_words(p.matmul.b_addr, address_of(x));
  split_words(p.matmul.c_addr, address_of(out));
  MatmulPush& q = p.matmul;
  q.a_offset = static_cast<int32_t>(ac.offset());
  q.b_offset = static_cast<int32_t>(x.offset());
  q.m = static_cast<int32_t>(m), q.n = static_cast<int32_t>(n), q.k = static_cast<int32_t>(k);
  q.a_batch = q.m * q.k, q.a_row = q.k, q.a_col = 1;
  q.c_batch = q.m * q.n, q.batches = static_cast<int32_t>(count), q.k_len = q.k;
  ConvParams c{w.groups, w.channels, w.k_count, transposed ? 0 : w.groups, w.in_size, w.out_size, w.kernel,
               w.stride, w.padding,  w.dilation};
  int32_t spec[] = {static_cast<int32_t>(a.dtype()), -1, transposed ? 1 : 0};
  std::string shader =
      std::string(a.dtype() == DType::F64 ? "matmul_f64_im2col" : "matmul_f32_im2col") + (rows == 32 ? "_short" : "");
  context_of(out).dispatch_with_params(shader, spec, &c, sizeof(c), &p, sizeof(p), groups_x, groups_y,
                                       static_cast<uint32_t>(count));
  return out;
}

}  // namespace scorch::backends::vulkan::kernels
