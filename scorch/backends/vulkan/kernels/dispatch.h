#pragma once
// How the Vulkan kernels queue shaders (internal to backends/vulkan): the elementwise shader's parameter block
// (mirroring map.comp's MapParams), operand descriptions, the wide/narrow variant choice and the map launcher
// every elementwise kernel goes through.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "scorch/backends/vulkan/context.h"
#include "scorch/backends/vulkan/shaders/op_codes.h"
#include "scorch/backends/vulkan/vulkan_tensor.h"
#include "scorch/core/scalar.h"

namespace scorch::backends::vulkan::kernels {

/// One operand of map.comp: address, element offset and strides over the kernel's shape (48 bytes, std430).
struct OperandParams {
  uint32_t addr[2] = {0, 0};
  int32_t offset = 0;
  int32_t pad = 0;
  int32_t strides[kMaxRank] = {};
};
/// map.comp's MapParams.
struct MapParams {
  int32_t rank = 0, n = 0, pad0 = 0, pad1 = 0;
  int32_t shape[kMaxRank] = {};
  OperandParams out, a, b, c;
  float scalar_f = 0;
  int32_t scalar_i = 0;
  uint32_t scalar_f64[2] = {0, 0};
  uint32_t scalar_i64[2] = {0, 0};
  uint32_t pad2[2] = {0, 0};
};
static_assert(sizeof(OperandParams) == 48 && sizeof(MapParams) == 272, "must match map.comp");
/// map.comp's push constants.
struct MapPush {
  uint32_t params[2] = {0, 0};
  uint32_t out_addr[2] = {0, 0}, a_addr[2] = {0, 0}, b_addr[2] = {0, 0}, c_addr[2] = {0, 0};
  uint32_t scalar_f64[2] = {0, 0}, scalar_i64[2] = {0, 0};
  int32_t base_out = 0, base_a = 0, base_b = 0, base_c = 0;
  int32_t n = 0;
  float scalar_f = 0;
  int32_t scalar_i = 0;
  int32_t codes = 0;  // op, dtypes, kind and form for the DYNAMIC pipelines (map.comp)
  int32_t bits = 0;
};
static_assert(sizeof(MapPush) == 92, "must match map.comp's push constants");

/// x's device address (0 for an empty tensor).
uint64_t address_of(const VulkanTensor& x);
/// Writes v into two 32-bit words, low first: the shaders' uvec2 addresses and 64-bit values.
void split_words(uint32_t* slot, uint64_t v);

/// The context of x's device.
detail::Context& context_of(const VulkanTensor& x);
/// The shader's variant name: name + "_wide" when any dtype is f64 or i64.
std::string variant(const char* name, std::initializer_list<DType> dtypes);
/// Throws DeviceError (naming op) unless every index of a kernel over numel elements of x fits 32 bits.
void check_index_range(const char* op, const VulkanTensor& x);
/// Workgroups of 256 covering n items, at most 65535 (the shaders loop over the rest).
uint32_t groups_for(int64_t n);

/// True on llvmpipe (lavapipe) when one invocation would run more than 65000 loop iterations: llvmpipe stops an
/// invocation's loops after 65535 in all, so such launches go to the host (or are refused) there.
bool exceeds_loop_cap(const detail::Context& ctx, size_t iterations);

/// Throws ShapeError (naming op) unless dim is one of x's dims.
void check_dim_in_range(const char* op, const VulkanTensor& x, size_t dim);

/// The push constants of the shaders that walk one dim of a contiguous input viewed as [outer, n, inner]
/// (softmax.comp, scan.comp): input and output, the input's offset, the lanes or rows, the dim and the inner size.
struct LanePush {
  uint32_t x_addr[2], out_addr[2];
  int32_t x_offset, lanes, n, inner;
};
/// lanes_push(x, out, dim): x's layout around dim (x contiguous), `lanes` being outer · inner.
LanePush lanes_push(const VulkanTensor& x, const VulkanTensor& out, size_t dim);

/// A convolution's window geometry (1d and 2d padded with unit dims), as window.comp and matmul.comp's IM2COL build
/// read it: samples × groups matrices of channels (per group) · k_count taps by l_count output positions.
struct ConvWindow {
  int32_t samples, groups, channels, k_count, l_count;
  std::array<int32_t, 3> in_size, out_size, kernel, stride, padding, dilation;
};
/// Products with x's im2col matrix read in place (matmul.comp's IM2COL build; x contiguous [samples, groups ·
/// channels, spatial]): out[s, g] = a[0, g] · cols[s, g] (a [1, groups, m, channels · k_count]), or transposed
/// out[s, g] = a[s, g] · cols[s, g]ᵀ (a [samples, groups, m, l_count]). nullopt beyond 65535 matrices (the caller
/// writes the columns out instead).
std::optional<VulkanTensor> conv_product(const VulkanTensor& a, const VulkanTensor& x, const ConvWindow& window,
                                         bool transposed);

/// An elementwise launch: out = op over the operands present, by form (op_codes.h).
struct MapLaunch {
  int op = OP_COPY;
  int form = FORM_UNARY;
  int kind = KIND_FLOAT;
  const VulkanTensor* a = nullptr;
  const VulkanTensor* b = nullptr;
  const VulkanTensor* c = nullptr;
  std::optional<Scalar> scalar;
  /// Compare against the scalar in double (the wide variant), as the Cpu backend does for float tensors.
  bool wide_scalar = false;
};
/// Runs launch into out (a fresh, dense, uniquely owned tensor, or any strided view for a copy).
void run_map(const char* name, const VulkanTensor& out, const MapLaunch& launch);

}  // namespace scorch::backends::vulkan::kernels
