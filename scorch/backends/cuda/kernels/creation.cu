#include <atomic>
#include <cstring>
#include <vector>

#include "scorch/backends/common/random_stream.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/core/rng.h"

namespace scorch::backends::cuda::kernels {
namespace {

template <class E> __global__ void fill_kernel(E* out, int64_t n, dcompute_t<E> value) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) store(out + i, value);
}

// Philox4x32-10 (Salmon et al., SC'11): 4 random words for a 128-bit counter under a 64-bit key.
struct Words {
  uint32_t w[4];
};
__device__ __forceinline__ Words philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    uint32_t hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {{c0, c1, c2, c3}};
}
__device__ __forceinline__ double unit(uint32_t lo, uint32_t hi) {  // [0, 1) with 53 random bits
  return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * 0x1.0p-53;
}

// draw_base (set while a graph is captured) points at the device counter each replay advances.
template <class E> __global__ void random_kernel(E* out, int64_t n, Distribution dist, uint64_t key, uint64_t draw,
                                                 const uint64_t* draw_base) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (draw_base) draw += *draw_base;
  Words r = philox(static_cast<uint32_t>(i), static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32),
                   static_cast<uint32_t>(draw), static_cast<uint32_t>(draw >> 32), static_cast<uint32_t>(key),
                   static_cast<uint32_t>(key >> 32));
  double u = unit(r.w[0], r.w[1]), v = u;
  switch (dist.kind) {
    case Distribution::Kind::Default: break;
    case Distribution::Kind::Uniform: v = dist.a + (dist.b - dist.a) * u; break;
    case Distribution::Kind::Bernoulli: v = u < dist.a ? 1.0 : 0.0; break;
    case Distribution::Kind::Normal: {
      double radius = ::sqrt(-2.0 * ::log(1.0 - u));  // 1-u is in (0, 1]
      v = dist.a + dist.b * radius * ::cospi(2.0 * unit(r.w[2], r.w[3]));
      break;
    }
  }
  if constexpr (!kDeviceFloat<E> && !std::is_same_v<E, bool>) v = ::floor(v);
  store(out + i, v);
}

RandomStream& random_stream() {
  static RandomStream s;
  return s;
}

__global__ void advance_kernel(uint64_t* base, uint64_t draws) { *base += draws; }

// The random stream of a graph being captured on a device: its own key, draws counted from *base.
struct GraphRandom {
  uint64_t* base = nullptr;
  uint64_t key = 0;
  uint64_t draws = 0;
};
constexpr int kMaxGraphDevices = 64;
std::atomic<GraphRandom*> g_graph_random[kMaxGraphDevices] = {};

}  // namespace

T from_data(TensorData data, Device device) {
  check_device(device.index, "from_data");
  T out(data.shape(), data.dtype(), device);
  if (!data.bytes().empty())
    check(cudaMemcpyAsync(out.raw(), data.bytes().data(), data.bytes().size(), cudaMemcpyHostToDevice,
                          stream(device.index)),
          "from_data");
  return out;
}

TensorData into_data(T x) {
  x = contiguous(std::move(x));
  size_t bytes = x.numel() * dtype_size(x.dtype());
  std::vector<std::byte> buffer(bytes);
  if (bytes) {
    cudaStream_t s = stream(x.device().index);
    check(cudaMemcpyAsync(buffer.data(), x.raw(), bytes, cudaMemcpyDeviceToHost, s), "into_data");
    check(cudaStreamSynchronize(s), "into_data");
  }
  return TensorData::from_bytes(std::move(buffer), x.shape(), x.dtype());
}

T to_device(T x, Device device) {
  if (x.device() == device) return x;
  check_device(device.index, "to_device");
  x = contiguous(std::move(x));
  T out(x.shape(), x.dtype(), device);
  size_t bytes = x.numel() * dtype_size(x.dtype());
  if (bytes) {
    check(cudaStreamSynchronize(stream(device.index)), "to_device");
    cudaStream_t s = stream(x.device().index);
    check(cudaMemcpyPeerAsync(out.raw(), device.index, x.raw(), x.device().index, bytes, s), "to_device");
    check(cudaStreamSynchronize(s), "to_device");
  }
  return out;
}

T empty(Shape shape, Device device, DType dtype) {
  check_device(device.index, "empty");
  return T(shape, dtype, device);
}

T full(Shape shape, Scalar value, Device device, DType dtype) {
  T out = empty(shape, device, dtype);
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return out;
  visit_any("full", dtype, [&]<class E>() {
    fill_kernel<E><<<blocks_for(n), kThreads, 0, stream(device.index)>>>(out.data<E>(), n, scalar_as<E>(value));
  });
  check_launch("full");
  return out;
}

T random(Shape shape, Distribution dist, Device device, DType dtype) {
  T out = empty(shape, device, dtype);
  auto n = static_cast<int64_t>(out.numel());
  if (n == 0) return out;
  RandomStream& rs = random_stream();
  GraphRandom* graph = device.index < kMaxGraphDevices ? g_graph_random[device.index].load() : nullptr;
  uint64_t key = graph ? graph->key : rs.key.load(), draw = graph ? graph->draws++ : rs.draws.fetch_add(1);
  const uint64_t* base = graph ? graph->base : nullptr;
  visit_any("random", dtype, [&]<class E>() {
    random_kernel<E><<<blocks_for(n), kThreads, 0, stream(device.index)>>>(out.data<E>(), n, dist, key, draw, base);
  });
  check_launch("random");
  return out;
}

void begin_graph_random(int device, uint64_t* base) {
  if (device < 0 || device >= kMaxGraphDevices) throw DeviceError("cuda.graph", "device index out of range");
  uint64_t serial = random_stream().draws.fetch_add(1);  // from the seeded stream: seed() reproduces graphs' draws
  auto* graph = new GraphRandom{base, mix64(random_stream().key.load() ^ mix64(serial + 0x6a09e667f3bcc909ULL)), 0};
  delete g_graph_random[device].exchange(graph);
}

uint64_t end_graph_random(int device, bool advance) {
  if (device < 0 || device >= kMaxGraphDevices) return 0;
  GraphRandom* graph = g_graph_random[device].exchange(nullptr);
  if (!graph) return 0;
  uint64_t draws = graph->draws;
  if (advance && draws > 0) {
    advance_kernel<<<1, 1, 0, stream(device)>>>(graph->base, draws);
    check_launch("cuda.graph");
  }
  delete graph;
  return draws;
}

uint64_t random_seed(CudaDevice device) {
  if (device.index >= 0 && device.index < kMaxGraphDevices && g_graph_random[device.index].load())
    throw ValueError("random_seed",
                     "a seed drawn on the host would be frozen into a captured step (each replay would drop the same "
                     "elements); use dropout outside the fused attention op in captured steps");
  RandomStream& rs = random_stream();
  return mix64(rs.key.load() ^ mix64(rs.draws.fetch_add(1) + 0xbb67ae8584caa73bULL));
}

void seed(uint64_t s) { random_stream().seed(s); }

}  // namespace scorch::backends::cuda::kernels
