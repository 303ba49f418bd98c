// The fused optimizer steps: the multi-tensor Adam/AdamW and SGD steps (module_adam_update_many,
// module_sgd_update_many; module_adam_update is the list of one). One pass over a parameter reads it, its
// gradient and its state and writes the new tensors, in f32 (f64 for f64), where backend/provided's composition runs
// about 16 kernels per parameter. The multi-tensor kernels take a table of up to kMaxTensors parameters and
// kMaxChunks chunks of kChunk elements as kernel arguments (about 18 KiB: CUDA 12.1's large kernel parameters on
// sm_70 and later; no host-to-device copy, so a captured step replays it): a model of up to 128 parameters and 67M
// values steps in one launch. Each thread moves 4 values of each operand per vector load. Coefficients (1 − β,
// lr·weight_decay, bias corrections) are computed in double on the host, as the composition's scalars are. A result
// overwrites its input only when that input is uniquely owned (reuse_or_alloc); the optimizer keeps its moments
// until every group of a step has succeeded, so it gets fresh ones.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "scorch/backend/provided/optim_defaults.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/kernels/reduce.cuh"

namespace scorch::backends::cuda::kernels {
namespace {

template <class C> struct AdamCoefficients {
  C lr, beta_1, beta_2, one_minus_beta_1, one_minus_beta_2, epsilon, weight_decay, lr_weight_decay, correction_1,
      correction_2;
  bool decoupled, decays;
};

template <class C> AdamCoefficients<C> adam_coefficients(const AdamStep& s) {
  auto c = [](double x) { return static_cast<C>(x); };
  return {c(s.lr),
          c(s.beta_1),
          c(s.beta_2),
          c(1.0 - s.beta_1),
          c(1.0 - s.beta_2),
          c(s.epsilon),
          c(s.weight_decay),
          c(s.lr * s.weight_decay),
          c(1.0 - std::pow(s.beta_1, s.step)),
          c(1.0 - std::pow(s.beta_2, s.step)),
          s.decoupled,
          s.weight_decay != 0};
}

template <class C> struct SgdCoefficients {
  C lr, weight_decay, momentum, one_minus_dampening;
  bool momentum_on, has_velocity, nesterov;
};

// ---- the multi-tensor table

constexpr int kMaxTensors = 128;
constexpr int kMaxChunks = 2048;
constexpr int64_t kChunk = 32768;
constexpr int kTableThreads = 512;

/// Up to kMaxTensors tensors' N pointers (in the kernel's order) and sizes, which chunk each block takes, and whether
/// every pointer is aligned for 4-value vector loads.
template <int N> struct TensorTable {
  void* pointers[N][kMaxTensors];
  int64_t numel[kMaxTensors];
  uint8_t chunk_tensor[kMaxChunks];
  int32_t chunk_index[kMaxChunks];
  bool vectorized;
};

template <class E> struct alignas(4 * sizeof(E)) Vec4 {
  E x[4];
};
/// W consecutive values at p in registers (one vector load for W = 4).
template <int W, class E, class C> __device__ __forceinline__ void load_n(const E* p, C (&out)[W]) {
  if constexpr (W == 4) {
    Vec4<E> v = *reinterpret_cast<const Vec4<E>*>(p);
#pragma unroll
    for (int k = 0; k < 4; ++k) out[k] = static_cast<C>(v.x[k]);
  } else {
    out[0] = load(p);
  }
}
template <int W, class E, class C> __device__ __forceinline__ void store_n(E* p, const C (&in)[W]) {
  if constexpr (W == 4) {
    Vec4<E> v;
#pragma unroll
    for (int k = 0; k < 4; ++k) v.x[k] = to_storage<E>(in[k]);
    *reinterpret_cast<Vec4<E>*>(p) = v;
  } else {
    store(p, in[0]);
  }
}

/// Calls step.run<W>(t, i) over the chunk this block takes (t its tensor's slot), 4 values per call where the table
/// is aligned for it, one at a time otherwise and at the chunk's ragged end.
template <int N, class Step> __device__ __forceinline__ void for_chunk(const TensorTable<N>& table, const Step& step) {
  int t = table.chunk_tensor[blockIdx.x];
  int64_t start = static_cast<int64_t>(table.chunk_index[blockIdx.x]) * kChunk;
  int64_t end = start + kChunk < table.numel[t] ? start + kChunk : table.numel[t];
  if (!table.vectorized) {
    for (int64_t i = start + threadIdx.x; i < end; i += blockDim.x) step.template run<1>(t, i);
    return;
  }
  for (int64_t i = start + 4 * threadIdx.x; i < end; i += 4 * blockDim.x) {
    if (i + 4 <= end) step.template run<4>(t, i);
    else
      for (int64_t j = i; j < end; ++j) step.template run<1>(t, j);
  }
}

/// Pointers: param, grad, moment 1, moment 2, then the three outputs.
template <class E> struct AdamMany {
  const TensorTable<7>& table;
  AdamCoefficients<dcompute_t<E>> c;
  template <int W> __device__ __forceinline__ void run(int t, int64_t i) const {
    using C = dcompute_t<E>;
    auto at = [&](int k) { return static_cast<E*>(table.pointers[k][t]) + i; };
    C p[W], g[W], m[W], v[W];
    load_n<W>(at(0), p), load_n<W>(at(1), g), load_n<W>(at(2), m), load_n<W>(at(3), v);
#pragma unroll
    for (int k = 0; k < W; ++k) {
      if (c.decays && !c.decoupled) g[k] += p[k] * c.weight_decay;
      m[k] = m[k] * c.beta_1 + g[k] * c.one_minus_beta_1;
      v[k] = v[k] * c.beta_2 + g[k] * g[k] * c.one_minus_beta_2;
      C direction = (m[k] / c.correction_1) / (::sqrt(v[k] / c.correction_2) + c.epsilon);
      if (c.decays && c.decoupled) p[k] -= p[k] * c.lr_weight_decay;
      p[k] -= direction * c.lr;
    }
    store_n<W>(at(4), p), store_n<W>(at(5), m), store_n<W>(at(6), v);
  }
};

/// Pointers: param, grad, velocity (or null), param out, velocity out (or null).
template <class E> struct SgdMany {
  const TensorTable<5>& table;
  SgdCoefficients<dcompute_t<E>> c;
  template <int W> __device__ __forceinline__ void run(int t, int64_t i) const {
    using C = dcompute_t<E>;
    auto at = [&](int k) { return static_cast<E*>(table.pointers[k][t]) + i; };
    C p[W], g[W], v[W];
    load_n<W>(at(0), p), load_n<W>(at(1), g);
    if (c.momentum_on && c.has_velocity) load_n<W>(at(2), v);
#pragma unroll
    for (int k = 0; k < W; ++k) {
      if (c.weight_decay != C(0)) g[k] += p[k] * c.weight_decay;
      if (c.momentum_on) {
        v[k] = c.has_velocity ? v[k] * c.momentum + g[k] * c.one_minus_dampening : g[k];
        g[k] = c.nesterov ? g[k] + v[k] * c.momentum : v[k];
      }
      p[k] -= g[k] * c.lr;
    }
    store_n<W>(at(3), p);
    if (c.momentum_on) store_n<W>(at(4), v);
  }
};

template <class E>
__global__ __launch_bounds__(kTableThreads) void adam_many_kernel(const __grid_constant__ TensorTable<7> table,
                                                                  AdamCoefficients<dcompute_t<E>> c) {
  for_chunk(table, AdamMany<E>{table, c});
}
template <class E>
__global__ __launch_bounds__(kTableThreads) void sgd_many_kernel(const __grid_constant__ TensorTable<5> table,
                                                                 SgdCoefficients<dcompute_t<E>> c) {
  for_chunk(table, SgdMany<E>{table, c});
}

/// Fills tables with the tensors (their N pointers and sizes; empty ones skipped) and calls launch(table, blocks)
/// for each: a table is launched when its chunks or its tensor slots run out. vector_bytes: the alignment 4-value
/// vector loads need (4 · the element size).
template <int N, class Launch>
void for_each_table(const std::vector<std::array<void*, N>>& pointers, const std::vector<int64_t>& numel,
                    size_t vector_bytes, Launch launch) {
  auto table = std::make_unique<TensorTable<N>>();  // about 18 KiB: off the stack
  table->vectorized = true;
  for (const auto& row : pointers)
    for (void* p : row) table->vectorized = table->vectorized && reinterpret_cast<uintptr_t>(p) % vector_bytes == 0;
  int slot = 0, chunks = 0;
  auto put = [&](int to, size_t tensor) {
    for (int k = 0; k < N; ++k) table->pointers[k][to] = pointers[tensor][k];
    table->numel[to] = numel[tensor];
  };
  for (size_t t = 0; t < numel.size(); ++t) {
    if (numel[t] == 0) continue;
    put(slot, t);
    int64_t count = (numel[t] + kChunk - 1) / kChunk;
    for (int64_t c = 0; c < count; ++c) {
      table->chunk_tensor[chunks] = static_cast<uint8_t>(slot);
      table->chunk_index[chunks] = static_cast<int32_t>(c);
      if (++chunks == kMaxChunks) {
        launch(*table, chunks);
        chunks = 0, slot = 0;
        put(0, t);  // the rest of this tensor's chunks go in the next table
      }
    }
    if (++slot == kMaxTensors) {
      if (chunks) launch(*table, chunks);
      chunks = 0, slot = 0;
    }
  }
  if (chunks) launch(*table, chunks);
}

/// x contiguous in dtype.
T dense(T x, DType dtype) { return contiguous(x.dtype() == dtype ? std::move(x) : cast(std::move(x), dtype)); }

/// Runs a multi-tensor kernel over params, one family of launches per (device, dtype) group: pointers(i, dtype)
/// prepares parameter i (its operands in that dtype, its outputs) and returns the kernel's N pointers for it;
/// launch.template operator()<E>(table, blocks, stream) launches the kernel for one table.
template <int N, class Pointers, class Launch>
void for_each_group(const char* op, const std::vector<T>& params, Pointers pointers, Launch launch) {
  std::map<std::pair<int, DType>, std::vector<size_t>> groups;
  for (size_t i = 0; i < params.size(); ++i) groups[{params[i].device().index, params[i].dtype()}].push_back(i);
  for (auto& [key, members] : groups) {
    std::vector<std::array<void*, N>> rows;
    std::vector<int64_t> numel;
    for (size_t i : members) {
      rows.push_back(pointers(i, key.second));
      numel.push_back(static_cast<int64_t>(params[i].numel()));
    }
    visit_float(op, key.second, [&]<class E>() {
      for_each_table<N>(rows, numel, 4 * sizeof(E), [&](const TensorTable<N>& table, int blocks) {
        launch.template operator()<E>(table, blocks, stream(key.first));
        check_launch(op);
      });
    });
  }
}

void* raw(T& t) { return t.numel() ? t.raw() : nullptr; }

}  // namespace

AdamUpdate<T> adam_update(T param, T grad, T moment_1, T moment_2, double lr, double beta_1, double beta_2,
                          double epsilon, double weight_decay, bool decoupled, double step) {
  return provided::adam_update_as_list<T>(adam_update_many, std::move(param), std::move(grad), std::move(moment_1),
                                          std::move(moment_2),
                                          {lr, beta_1, beta_2, epsilon, weight_decay, decoupled, step});
}

std::vector<AdamUpdate<T>> adam_update_many(std::vector<T> params, std::vector<T> grads, std::vector<T> moments_1,
                                            std::vector<T> moments_2, const AdamStep& s) {
  const char* op = "adam_update_many";
  provided::check_adam_lists(op, params, grads, moments_1, moments_2);
  std::vector<AdamUpdate<T>> out(params.size());
  auto pointers = [&](size_t i, DType dtype) -> std::array<void*, 7> {
    T p = contiguous(std::move(params[i])), g = dense(std::move(grads[i]), dtype);
    T m = dense(std::move(moments_1[i]), dtype), v = dense(std::move(moments_2[i]), dtype);
    const Shape& shape = p.shape();
    out[i] = {reuse_or_alloc(p, shape, dtype), reuse_or_alloc(m, shape, dtype), reuse_or_alloc(v, shape, dtype)};
    params[i] = std::move(p), grads[i] = std::move(g), moments_1[i] = std::move(m), moments_2[i] = std::move(v);
    return {raw(params[i]), raw(grads[i]), raw(moments_1[i]), raw(moments_2[i]), raw(out[i].param),
            raw(out[i].moment_1), raw(out[i].moment_2)};
  };
  for_each_group<7>(op, params, pointers, [&]<class E>(const TensorTable<7>& table, int blocks, cudaStream_t st) {
    adam_many_kernel<E><<<blocks, kTableThreads, 0, st>>>(table, adam_coefficients<dcompute_t<E>>(s));
  });
  return out;
}

std::vector<SgdUpdate<T>> sgd_update_many(std::vector<T> params, std::vector<T> grads, std::vector<T> velocities,
                                          const SgdStep& s) {
  const char* op = "sgd_update_many";
  bool has_velocity = provided::check_sgd_lists(op, params, grads, velocities);
  std::vector<SgdUpdate<T>> out(params.size());
  auto pointers = [&](size_t i, DType dtype) -> std::array<void*, 5> {
    T p = contiguous(std::move(params[i])), g = dense(std::move(grads[i]), dtype);
    const Shape& shape = p.shape();
    out[i].param = reuse_or_alloc(p, shape, dtype);
    if (has_velocity) velocities[i] = dense(std::move(velocities[i]), dtype);
    if (s.with_momentum)
      out[i].velocity = has_velocity ? reuse_or_alloc(velocities[i], shape, dtype) : T(shape, dtype, p.device());
    params[i] = std::move(p), grads[i] = std::move(g);
    return {raw(params[i]), raw(grads[i]), has_velocity ? raw(velocities[i]) : nullptr, raw(out[i].param),
            out[i].velocity ? raw(*out[i].velocity) : nullptr};
  };
  for_each_group<5>(op, params, pointers, [&]<class E>(const TensorTable<5>& table, int blocks, cudaStream_t st) {
    using C = dcompute_t<E>;
    SgdCoefficients<C> c{static_cast<C>(s.lr), static_cast<C>(s.weight_decay), static_cast<C>(s.momentum),
                         static_cast<C>(1.0 - s.dampening), s.with_momentum, has_velocity, s.nesterov};
    sgd_many_kernel<E><<<blocks, kTableThreads, 0, st>>>(table, c);
  });
  return out;
}

}  // namespace scorch::backends::cuda::kernels
