// The TorchTensor handle, the Scorch <-> ATen maps, and creation, data, casts and random draws.
#include <ATen/Parallel.h>

#include <cstring>

#include "scorch/backends/libtorch/interop.h"

namespace scorch::backends::libtorch {
namespace {
using ImplPtr = c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>;
c10::TensorImpl* as_impl(void* p) { return static_cast<c10::TensorImpl*>(p); }
}  // namespace

TorchTensor::TorchTensor(const TorchTensor& other)
    : impl_(other.impl_), shape_(other.shape_), dtype_(other.dtype_), device_(other.device_) {
  if (impl_) c10::raw::intrusive_ptr::incref(as_impl(impl_));
}
TorchTensor::TorchTensor(TorchTensor&& other) noexcept
    : impl_(other.release()), shape_(other.shape_), dtype_(other.dtype_), device_(other.device_) {}
TorchTensor& TorchTensor::operator=(TorchTensor other) noexcept {
  std::swap(impl_, other.impl_);
  shape_ = other.shape_;
  dtype_ = other.dtype_;
  device_ = other.device_;
  return *this;
}
TorchTensor::~TorchTensor() {
  if (impl_) c10::raw::intrusive_ptr::decref(as_impl(impl_));
}
void* TorchTensor::release() noexcept { return std::exchange(impl_, nullptr); }
TorchTensor TorchTensor::adopt(void* impl, Shape shape, DType dtype, TorchDevice device) {
  TorchTensor t;
  t.impl_ = impl;
  t.shape_ = shape;
  t.dtype_ = dtype;
  t.device_ = device;
  return t;
}

namespace detail {

at::ScalarType to_torch(DType dtype) {
  switch (dtype) {
    case DType::F64: return at::kDouble;
    case DType::F32: return at::kFloat;
    case DType::F16: return at::kHalf;
    case DType::BF16: return at::kBFloat16;
    case DType::I64: return at::kLong;
    case DType::I32: return at::kInt;
    case DType::I16: return at::kShort;
    case DType::I8: return at::kChar;
    case DType::U8: return at::kByte;
    case DType::Bool: return at::kBool;
  }
  throw DTypeError("libtorch", "unknown dtype");
}

DType from_torch(at::ScalarType type) {
  switch (type) {
    case at::kDouble: return DType::F64;
    case at::kFloat: return DType::F32;
    case at::kHalf: return DType::F16;
    case at::kBFloat16: return DType::BF16;
    case at::kLong: return DType::I64;
    case at::kInt: return DType::I32;
    case at::kShort: return DType::I16;
    case at::kChar: return DType::I8;
    case at::kByte: return DType::U8;
    case at::kBool: return DType::Bool;
    default:
      throw DTypeError("libtorch", std::string("LibTorch dtype ") + c10::toString(type) + " has no Scorch dtype");
  }
}

at::Device to_torch(TorchDevice device) {
  if (device.kind == TorchDevice::Kind::Cpu) return at::Device(at::kCPU);
  if (!at::hasCUDA())
    throw DeviceError("libtorch", "device " + device.to_string() + ": the linked LibTorch has no CUDA");
  return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device.index));
}

TorchDevice from_torch(const at::Device& device) {
  return device.is_cuda() ? TorchDevice::cuda(device.index() < 0 ? 0 : device.index()) : TorchDevice::cpu();
}

at::TensorOptions options(DType dtype, TorchDevice device) {
  return at::TensorOptions().dtype(to_torch(dtype)).device(to_torch(device));
}

std::vector<int64_t> sizes(const Shape& shape) { return {shape.begin(), shape.end()}; }
std::vector<int64_t> sizes(const std::vector<size_t>& dims) { return {dims.begin(), dims.end()}; }

at::Tensor get(const TorchTensor& t) {
  if (!t.defined()) return {};
  return at::Tensor(ImplPtr::reclaim_copy(as_impl(t.impl())));
}

at::Tensor take(TorchTensor& t) {
  if (!t.defined()) return {};
  return at::Tensor(ImplPtr::reclaim(as_impl(t.release())));
}

TorchTensor wrap(at::Tensor x) {
  if (x.dim() > static_cast<int64_t>(kMaxRank))
    throw ShapeError("libtorch", "rank " + std::to_string(x.dim()) + " exceeds Scorch's maximum rank");
  Shape shape;
  if (x.dim() == 0) {
    shape = Shape{1};
    x = x.reshape({1});
  } else {
    std::vector<size_t> dims(x.sizes().begin(), x.sizes().end());
    shape = Shape(dims);
  }
  DType dtype = from_torch(x.scalar_type());
  TorchDevice device = from_torch(x.device());
  return TorchTensor::adopt(x.unsafeReleaseTensorImpl(), shape, dtype, device);
}

bool unique(const at::Tensor& x) {
  return x.defined() && x.use_count() == 1 && x.storage().use_count() == 1 && x.is_non_overlapping_and_dense();
}

int64_t wrapped_int(DType dtype, Scalar s) {
  switch (dtype) {
    case DType::I32: return s.as<int32_t>();
    case DType::I16: return s.as<int16_t>();
    case DType::I8: return s.as<int8_t>();
    case DType::U8: return s.as<uint8_t>();
    default: return s.to_int();
  }
}

at::Scalar scalar_for(DType dtype, Scalar s) {
  if (is_float(dtype)) return at::Scalar(s.to_double());
  if (is_int(dtype)) return at::Scalar(wrapped_int(dtype, s));
  return at::Scalar(s.to_bool());
}

bool low_precision_host(const at::Tensor& x) {
  return x.device().is_cpu() && (x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16);
}

at::Tensor widened(const at::Tensor& x) { return low_precision_host(x) ? x.to(at::kFloat) : x; }

void check_indices(const char* op, const at::Tensor& indices, int64_t size) {
  if (indices.numel() == 0) return;
  auto [lo, hi] = at::aminmax(indices);
  int64_t min = lo.item<int64_t>(), max = hi.item<int64_t>();
  if (min < 0 || max >= size)
    throw ShapeError(op, "index " + std::to_string(min < 0 ? min : max) + " is out of range for a dim of size " +
                             std::to_string(size));
}

void check_divisor(const char* op, const at::Tensor& divisor) {
  if (at::isIntegralType(divisor.scalar_type(), false) && divisor.eq(0).any().item<bool>())
    throw ValueError(op, "integer division by zero");
}

std::string first_line(const char* message) {
  std::string s(message);
  return s.substr(0, s.find('\n'));
}

}  // namespace detail

namespace ops {
using namespace detail;

T from_data(TensorData data, TorchDevice device) {
  return guarded("from_data", [&] {
    at::Tensor host = at::empty(sizes(data.shape()), at::TensorOptions().dtype(to_torch(data.dtype())));
    if (!data.bytes().empty()) std::memcpy(host.data_ptr(), data.bytes().data(), data.bytes().size());
    return wrap(device.kind == TorchDevice::Kind::Cpu ? host : host.to(to_torch(device)));
  });
}

TensorData into_data(T x) {
  return guarded("into_data", [&] {
    Shape shape = x.shape();
    DType dtype = x.dtype();
    at::Tensor host = take(x).to(at::kCPU).contiguous();
    std::vector<std::byte> bytes(host.numel() * host.element_size());
    if (!bytes.empty()) std::memcpy(bytes.data(), host.data_ptr(), bytes.size());
    return TensorData::from_bytes(std::move(bytes), shape, dtype);
  });
}

T to_device(T x, TorchDevice device) {
  return guarded("to_device", [&] { return wrap(take(x).to(to_torch(device))); });
}

T empty(Shape shape, TorchDevice device, DType dtype) {
  return guarded("empty", [&] { return wrap(at::empty(sizes(shape), options(dtype, device))); });
}

T full(Shape shape, Scalar value, TorchDevice device, DType dtype) {
  return guarded("full", [&] {
    // Integers are filled in i64 and narrowed, so out-of-range values wrap as a cast does.
    if (is_int(dtype))
      return wrap(at::full(sizes(shape), scalar_for(dtype, value), options(DType::I64, device)).to(to_torch(dtype)));
    return wrap(at::full(sizes(shape), scalar_for(dtype, value), options(dtype, device)));
  });
}

T random(Shape shape, Distribution dist, TorchDevice device, DType dtype) {
  return guarded("random", [&] {
    // Draws in f64 for ints (then floors, as the contract says) and f32 for f16/bf16.
    DType draw = is_float(dtype) && dtype_size(dtype) >= 4 ? dtype : (is_float(dtype) ? DType::F32 : DType::F64);
    at::Tensor x = at::empty(sizes(shape), options(draw, device));
    switch (dist.kind) {
      case Distribution::Kind::Default: x.uniform_(0.0, 1.0); break;
      case Distribution::Kind::Uniform: x.uniform_(dist.a, dist.b); break;
      case Distribution::Kind::Bernoulli: x.bernoulli_(dist.a); break;
      case Distribution::Kind::Normal: x.normal_(dist.a, dist.b); break;
    }
    if (!is_float(dtype)) x = x.floor_();
    return wrap(draw == dtype ? x : x.to(to_torch(dtype)));
  });
}

T cast(T x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return guarded("cast", [&] { return wrap(take(x).to(to_torch(dtype))); });
}

uint64_t random_seed(TorchDevice) {  // LibTorch's default CPU generator: at::manual_seed (seed above) restarts it
  return guarded("random_seed", [] {
    at::Tensor words = at::randint(0, int64_t{1} << 62, {2}, at::TensorOptions().dtype(at::kLong));
    return (static_cast<uint64_t>(words[0].item<int64_t>()) << 2) ^ static_cast<uint64_t>(words[1].item<int64_t>());
  });
}

void seed(uint64_t s) { at::manual_seed(s); }

void sync(TorchDevice device) {
  if (device.kind == TorchDevice::Kind::Cpu) return;
  // A blocking copy of one element waits for everything queued before it on the device.
  guarded("sync", [&] { (void)at::zeros({1}, options(DType::F32, device)).to(at::kCPU); });
}

bool cuda_available() { return at::hasCUDA(); }
size_t num_threads() { return static_cast<size_t>(at::get_num_threads()); }
void set_num_threads(size_t n) { at::set_num_threads(static_cast<int>(n)); }

}  // namespace ops
}  // namespace scorch::backends::libtorch
