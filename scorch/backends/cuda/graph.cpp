#include "scorch/backends/cuda/graph.h"

#include <cxxabi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/backends/cuda/runtime.h"
#include "scorch/core/error.h"

namespace scorch::backends::cuda {

struct CudaGraph::Impl {
  int device = 0;
  std::shared_ptr<PrivatePool> pool;
  uint64_t* draw_base = nullptr;  // the graph's random draws start here; each replay advances it
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  size_t kernels = 0;

  ~Impl() {
    cudaStreamSynchronize(stream(device));  // no replay may still use the pool's blocks
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (draw_base) cudaFree(draw_base);
    cudaGetLastError();
  }
};

namespace {
// Ends device's capture after a failure, dropping what was captured.
void abandon_capture(int device, cudaStream_t s) {
  kernels::end_graph_random(device, false);
  end_private_pool(device);
  cudaGraph_t partial = nullptr;
  cudaStreamEndCapture(s, &partial);
  if (partial) cudaGraphDestroy(partial);
  cudaGetLastError();
}
}  // namespace

std::unique_ptr<CudaGraph> CudaGraph::capture(int device, const std::function<void()>& fn) {
  check_device(device, "cuda.graph");
  cudaStream_t s = stream(device);
  if (is_capturing(s)) throw DeviceError("cuda.graph", "the device's stream is already being captured");
  auto impl = std::make_unique<Impl>();
  impl->device = device;
  check(cudaMalloc(reinterpret_cast<void**>(&impl->draw_base), sizeof(uint64_t)), "cuda.graph");
  check(cudaMemsetAsync(impl->draw_base, 0, sizeof(uint64_t), s), "cuda.graph");
  impl->pool = begin_private_pool(device);
  kernels::begin_graph_random(device, impl->draw_base);
  cudaError_t begun = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  if (begun != cudaSuccess) {
    kernels::end_graph_random(device, false);
    end_private_pool(device);
    check(begun, "cuda.graph");
  }
  try {
    fn();
    kernels::end_graph_random(device, true);  // the counter's advance is the graph's last node
  } catch (...) {
    abandon_capture(device, s);
    throw;
  }
  end_private_pool(device);
  cudaError_t ended = cudaStreamEndCapture(s, &impl->graph);
  if (ended != cudaSuccess)
    throw DeviceError("cuda.graph", std::string("the captured work cannot form a graph (CUDA ") +
                                        cudaGetErrorName(ended) + "): it waited on the device or used another stream");
  check(cudaGraphInstantiate(&impl->exec, impl->graph, 0), "cuda.graph");
  impl->kernels = count_launches(impl->graph).kernels;
  return std::unique_ptr<CudaGraph>(new CudaGraph(std::move(impl)));
}

CudaGraph::CudaGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CudaGraph::~CudaGraph() = default;

void CudaGraph::replay() {
  cudaStream_t s = stream(impl_->device);
  if (!is_capturing(s)) return check(cudaGraphLaunch(impl_->exec, s), "cuda.graph");
  // Inside another capture a launch is not allowed: the graph joins that capture as one child-graph node.
  cudaStreamCaptureStatus status{};
  cudaGraph_t outer = nullptr;
  const cudaGraphNode_t* dependencies = nullptr;
  size_t count = 0;
  check(cudaStreamGetCaptureInfo(s, &status, nullptr, &outer, &dependencies, nullptr, &count), "cuda.graph");
  cudaGraphNode_t node = nullptr;
  check(cudaGraphAddChildGraphNode(&node, outer, dependencies, count, impl_->graph), "cuda.graph");
  check(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies), "cuda.graph");
}

size_t CudaGraph::kernels() const { return impl_->kernels; }

namespace {
// "scorch::...::random_kernel" from a mangled kernel name (template and function arguments dropped).
std::string short_name(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  if (name.rfind("void ", 0) == 0) name = name.substr(5);  // a function template's name carries its return type
  for (size_t at; (at = name.find("(anonymous namespace)::")) != std::string::npos;) name.erase(at, 23);
  return name.substr(0, name.find_first_of("<("));
}
}  // namespace

std::vector<std::string> CudaGraph::kernel_names() const {
  size_t count = 0;
  check(cudaGraphGetNodes(impl_->graph, nullptr, &count), "cuda.graph");
  std::vector<cudaGraphNode_t> nodes(count);
  if (count) check(cudaGraphGetNodes(impl_->graph, nodes.data(), &count), "cuda.graph");
  std::vector<std::string> names;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    check(cudaGraphNodeGetType(node, &type), "cuda.graph");
    if (type != cudaGraphNodeTypeKernel) continue;
    cudaKernelNodeParams params{};
    const char* name = nullptr;
    if (cudaGraphKernelNodeGetParams(node, &params) == cudaSuccess && params.func &&
        cudaFuncGetName(&name, params.func) == cudaSuccess && name)
      names.push_back(short_name(name));
    else names.push_back("generated");
    cudaGetLastError();
  }
  return names;
}

}  // namespace scorch::backends::cuda
