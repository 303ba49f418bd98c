#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/backends/cuda/runtime.h"
#include "scorch/core/error.h"

namespace scorch::backends::cuda {

void check(cudaError_t status, const char* op) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky non-fatal error so the next op starts clean
  throw DeviceError(op, std::string("CUDA ") + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

void check_launch(const char* op) {
  check(cudaGetLastError(), op);
  profile_mark(op);
}

int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

bool is_available() { return device_count() > 0; }

void check_device(int device, const char* op) {
  int n = device_count();
  if (device < 0 || device >= n)
    throw DeviceError(op, "Cuda(" + std::to_string(device) + ") does not exist: " + std::to_string(n) +
                              " CUDA device(s) visible" + (n == 0 ? " (no GPU or driver on this machine)" : ""));
}

namespace {
constexpr int kMaxDevices = 64;
struct Streams {
  std::mutex mutex;
  std::atomic<cudaStream_t> streams[kMaxDevices] = {};
  int sms[kMaxDevices] = {};
};
Streams& streams() {
  static Streams* s = new Streams();  // never destroyed: tensors may outlive static destructors
  return *s;
}
thread_local int t_current_device = -1;  // the device this thread last made current through stream()
}  // namespace

cudaStream_t stream(int device) {
  Streams& s = streams();
  if (device >= 0 && device < kMaxDevices && device == t_current_device) {  // fast path: no lock, no driver call
    if (cudaStream_t st = s.streams[device].load(std::memory_order_acquire)) return st;
  }
  check_device(device, "cuda.stream");
  if (device >= kMaxDevices)
    throw DeviceError("cuda.stream", "at most " + std::to_string(kMaxDevices) + " devices are supported");
  check(cudaSetDevice(device), "cuda.stream");
  t_current_device = device;
  if (cudaStream_t st = s.streams[device].load(std::memory_order_acquire)) return st;
  std::lock_guard lock(s.mutex);
  if (cudaStream_t st = s.streams[device].load(std::memory_order_relaxed)) return st;
  cudaStream_t st = nullptr;
  check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cuda.stream");
  check(cudaDeviceGetAttribute(&s.sms[device], cudaDevAttrMultiProcessorCount, device), "cuda.stream");
  s.streams[device].store(st, std::memory_order_release);
  return st;
}

int multiprocessors(int device) {
  stream(device);
  return streams().sms[device];
}

namespace {
struct Profile {
  std::mutex mutex;
  std::map<int, std::vector<std::pair<const char*, cudaEvent_t>>> marks;
};
Profile& profile() {
  static Profile* p = new Profile();
  return *p;
}
std::atomic<bool> g_profiling{std::getenv("SCORCH_CUDA_PROFILE") &&
                              std::string(std::getenv("SCORCH_CUDA_PROFILE")) == "1"};
}  // namespace

void set_profiling(bool enabled) { g_profiling = enabled; }

void profile_mark(const char* op) {
  if (!g_profiling) return;
  int device = 0;
  cudaGetDevice(&device);
  cudaEvent_t e;
  if (cudaEventCreate(&e) != cudaSuccess) return;
  cudaEventRecord(e, stream(device));
  Profile& p = profile();
  std::lock_guard lock(p.mutex);
  p.marks[device].emplace_back(op, e);
}

std::string profile_report(int device) {
  if (device >= device_count()) return "";
  synchronize(device);
  Profile& p = profile();
  std::lock_guard lock(p.mutex);
  auto& marks = p.marks[device];
  std::map<std::string, std::pair<double, int>> totals;
  for (size_t i = 1; i < marks.size(); ++i) {
    float ms = 0;
    cudaEventElapsedTime(&ms, marks[i - 1].second, marks[i].second);
    auto& t = totals[marks[i].first];
    t.first += ms;
    ++t.second;
  }
  for (auto& m : marks) cudaEventDestroy(m.second);
  marks.clear();
  std::vector<std::pair<std::string, std::pair<double, int>>> rows(totals.begin(), totals.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::string out;
  for (const auto& [op, t] : rows)
    out += op + "  " + std::to_string(t.first) + " ms  " + std::to_string(t.second) + "\n";
  return out;
}

void synchronize(int device) { check(cudaStreamSynchronize(stream(device)), "cuda.sync"); }

bool is_capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(s, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive;
}

LaunchCounts count_launches(cudaGraph_t graph) {
  size_t count = 0;
  cudaError_t status = cudaGraphGetNodes(graph, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  if (status == cudaSuccess && count > 0) status = cudaGraphGetNodes(graph, nodes.data(), &count);
  LaunchCounts counts;
  for (size_t i = 0; status == cudaSuccess && i < count; ++i) {
    cudaGraphNodeType type{};
    status = cudaGraphNodeGetType(nodes[i], &type);
    counts.kernels += type == cudaGraphNodeTypeKernel;
    counts.graphs += type == cudaGraphNodeTypeGraph;
    counts.copies += type == cudaGraphNodeTypeMemcpy || type == cudaGraphNodeTypeMemset;
  }
  check(status, "cuda.count_launches");
  return counts;
}

LaunchCounts count_launches(int device, const std::function<void()>& fn) {
  check_device(device, "cuda.count_launches");
  cudaStream_t s = stream(device);
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), "cuda.count_launches");
  cudaGraph_t graph = nullptr;
  try {
    fn();
  } catch (...) {
    cudaStreamEndCapture(s, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  check(cudaStreamEndCapture(s, &graph), "cuda.count_launches");
  try {
    LaunchCounts counts = count_launches(graph);
    cudaGraphDestroy(graph);
    return counts;
  } catch (...) {
    cudaGraphDestroy(graph);
    throw;
  }
}

size_t count_kernels(int device, const std::function<void()>& fn) { return count_launches(device, fn).kernels; }

}  // namespace scorch::backends::cuda
