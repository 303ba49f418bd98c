// NcclCommunicator (scorch/backends/cuda/nccl.h): NCCL loaded with dlopen (types from the toolkit's nccl.h, no link),
// the unique id sent through the ProcessGroup, collectives queued on the Cuda op stream (tensor collectives) or on
// a stream of the communicator's own ordered by events (gradient buckets, overlapping the backward pass). A watchdog
// thread aborts the communicator when a collective outlives the group's timeout or NCCL reports an error (a peer
// gone), so the GPU streams waiting on it go on and the next collective throws IoError.
#include "scorch/backends/cuda/nccl.h"

#include <dlfcn.h>
#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/core/error.h"

namespace scorch::distributed {
namespace {

using backends::cuda::CudaTensor;

// The NCCL entry points this file uses.
struct NcclApi {
  ncclResult_t (*get_unique_id)(ncclUniqueId*) = nullptr;
  ncclResult_t (*comm_init_rank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*comm_abort)(ncclComm_t) = nullptr;
  ncclResult_t (*comm_async_error)(ncclComm_t, ncclResult_t*) = nullptr;
  ncclResult_t (*all_reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                             cudaStream_t) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*all_gather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*reduce_scatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                 cudaStream_t) = nullptr;
  const char* (*error_string)(ncclResult_t) = nullptr;
  std::string error;  // why loading failed
};

template <class F> void bind(void* lib, const char* name, F& fn, std::string& error) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  if (!fn && error.empty()) error = std::string("libnccl has no ") + name;
}

const NcclApi& api() {
  static const NcclApi loaded = [] {
    NcclApi a;
    ::setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast stays off unless asked for
    const char* path = std::getenv("SCORCH_NCCL_LIBRARY");
    void* lib = ::dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      a.error = std::string("cannot load NCCL: ") + ::dlerror();
      return a;
    }
    bind(lib, "ncclGetUniqueId", a.get_unique_id, a.error), bind(lib, "ncclCommInitRank", a.comm_init_rank, a.error);
    bind(lib, "ncclCommAbort", a.comm_abort, a.error);
    bind(lib, "ncclCommGetAsyncError", a.comm_async_error, a.error);
    bind(lib, "ncclAllReduce", a.all_reduce, a.error), bind(lib, "ncclBroadcast", a.broadcast, a.error);
    bind(lib, "ncclAllGather", a.all_gather, a.error), bind(lib, "ncclReduceScatter", a.reduce_scatter, a.error);
    bind(lib, "ncclGetErrorString", a.error_string, a.error);
    return a;
  }();
  return loaded;
}

void check(ncclResult_t status, const char* op) {
  if (status != ncclSuccess)
    throw DeviceError(op, std::string("NCCL: ") + (api().error_string ? api().error_string(status) : "error"));
}

ncclDataType_t nccl_type(DType dtype, const char* op) {
  switch (dtype) {
    case DType::F32: return ncclFloat32;
    case DType::F16: return ncclFloat16;
    case DType::BF16: return ncclBfloat16;
    case DType::F64: return ncclFloat64;
    case DType::I32: return ncclInt32;
    case DType::I64: return ncclInt64;
    default: throw DTypeError(op, "NCCL has no " + std::string(dtype_name(dtype)) + " collectives");
  }
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::mean: return ncclAvg;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::min: return ncclMin;
    default: return ncclSum;
  }
}

}  // namespace

bool nccl_available(std::string* why_not) {
  if (!api().error.empty() && why_not) *why_not = api().error;
  return api().error.empty();
}

struct NcclCommunicator::Impl {
  using Clock = std::chrono::steady_clock;
  ncclComm_t comm = nullptr;
  int rank = 0, size = 1, device = 0;
  cudaStream_t side = nullptr;  // the gradient buckets' stream
  struct Pending {
    CudaTensor flat;
    cudaEvent_t done;
  };
  std::deque<Pending> pending;
  // The watchdog's state, under mutex: collectives not yet seen finished, the failure that aborted comm.
  struct Watched {
    cudaEvent_t done;
    Clock::time_point since;
    const char* op;
  };
  std::mutex mutex;
  std::condition_variable wake, settled;  // the watchdog's; told after each of its checks
  std::deque<Watched> watched;
  std::string failure;
  bool stopping = false;
  std::chrono::milliseconds timeout{30000};
  std::thread watchdog;

  cudaStream_t op_stream() const { return backends::cuda::stream(device); }
  /// x's values in a fresh contiguous tensor (the collective's output, or its in-place buffer).
  CudaTensor fresh_copy(const CudaTensor& x, const char* op) const {
    CudaTensor src = x.is_contiguous() ? x : Cuda::float_mul_scalar(x, Scalar(1.0));
    CudaTensor out(x.shape(), x.dtype(), {device});
    size_t bytes = x.numel() * dtype_size(x.dtype());
    if (bytes)
      backends::cuda::check(cudaMemcpyAsync(out.raw(), src.raw(), bytes, cudaMemcpyDeviceToDevice, op_stream()), op);
    return out;
  }
  void check_device(const CudaTensor& x, const char* op) const {
    if (x.numel() > 0 && x.device().index != device)
      throw DeviceError(op, "the tensor is on cuda:" + std::to_string(x.device().index) +
                                ", the communicator on cuda:" + std::to_string(device));
  }
  /// The lock a collective holds while queuing; throws IoError once the communicator was aborted.
  std::unique_lock<std::mutex> enter(const char* op) {
    std::unique_lock lock(mutex);
    if (!failure.empty()) throw IoError(op, failure);
    return lock;
  }
  /// Has the watchdog follow the work queued on s so far (op's collective); the caller holds the lock.
  void watch(cudaStream_t s, const char* op) {
    cudaEvent_t done = nullptr;
    backends::cuda::check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), op);
    backends::cuda::check(cudaEventRecord(done, s), op);
    watched.push_back({done, Clock::now(), op});
  }
  /// Queues call(comm, op stream) (an NCCL collective) unless it has no elements, watched under the lock.
  template <class Call> void queue(const char* op, size_t elements, Call call) {
    auto lock = enter(op);
    if (elements) check(call(comm, op_stream()), op);
    watch(op_stream(), op);
  }
  /// Forgets the watched collectives that finished; aborts comm when the oldest is late or NCCL saw an error.
  void check_progress() {
    while (!watched.empty() && cudaEventQuery(watched.front().done) == cudaSuccess)
      cudaEventDestroy(watched.front().done), watched.pop_front();
    ncclResult_t async = ncclSuccess;
    if (comm) api().comm_async_error(comm, &async);
    bool late = !watched.empty() && Clock::now() - watched.front().since > timeout;
    if (!comm || !(late || (async != ncclSuccess && async != ncclInProgress))) return;
    failure = late ? std::string(watched.front().op) + " did not finish within " + std::to_string(timeout.count()) +
                         " ms (a peer is gone or stuck); the NCCL communicator was aborted"
                   : std::string("NCCL failed: ") + api().error_string(async) + "; the communicator was aborted";
    std::fprintf(stderr, "scorch: rank %d: %s\n", rank, failure.c_str());
    api().comm_abort(comm);  // NCCL's kernels see the abort flag and return: the streams go on
    comm = nullptr;
  }
  void run_watchdog() {
    cudaSetDevice(device);
    std::unique_lock lock(mutex);
    while (!stopping) {
      wake.wait_for(lock, std::chrono::milliseconds(20));
      check_progress();
      settled.notify_all();
    }
  }
};

NcclCommunicator::NcclCommunicator(ProcessGroup& group, int device) : impl_(std::make_unique<Impl>()) {
  const char* op = "distributed::NcclCommunicator";
  std::string why;
  if (!nccl_available(&why)) throw DeviceError(op, why + " (set SCORCH_NCCL_LIBRARY to libnccl.so.2's path)");
  backends::cuda::check_device(device, op);
  impl_->rank = group.rank(), impl_->size = group.size(), impl_->device = device, impl_->timeout = group.timeout();
  ncclUniqueId id{};
  if (group.rank() == 0) check(api().get_unique_id(&id), op);
  group.broadcast(&id, sizeof id, 0);
  impl_->op_stream();  // makes device current
  check(api().comm_init_rank(&impl_->comm, group.size(), id, group.rank()), op);
  backends::cuda::check(cudaStreamCreateWithFlags(&impl_->side, cudaStreamNonBlocking), op);
  impl_->watchdog = std::thread([impl = impl_.get()] { impl->run_watchdog(); });
}

// Waits until the queued collectives finish or the watchdog aborts them (a peer gone), then frees the communicator
// with ncclCommAbort, which waits for no peer (ncclCommDestroy would flush through the network).
NcclCommunicator::~NcclCommunicator() {
  {
    std::unique_lock lock(impl_->mutex);
    impl_->settled.wait(lock, [&] { return impl_->watched.empty() || !impl_->comm; });
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  impl_->watchdog.join();
  if (impl_->comm) api().comm_abort(impl_->comm);
  if (impl_->side) cudaStreamSynchronize(impl_->side), cudaStreamDestroy(impl_->side);
  for (auto& w : impl_->watched) cudaEventDestroy(w.done);
  for (auto& p : impl_->pending) cudaEventDestroy(p.done);
}

int NcclCommunicator::rank() const { return impl_->rank; }
int NcclCommunicator::size() const { return impl_->size; }
int NcclCommunicator::device() const { return impl_->device; }

NcclCommunicator::CudaTensor NcclCommunicator::all_reduce(const CudaTensor& x, ReduceOp op) {
  const char* name = "distributed::all_reduce";
  impl_->check_device(x, name);
  CudaTensor out = impl_->fresh_copy(x, name);
  impl_->queue(name, out.numel(), [&](ncclComm_t comm, cudaStream_t s) {
    return api().all_reduce(out.raw(), out.raw(), out.numel(), nccl_type(x.dtype(), name), nccl_op(op), comm, s);
  });
  return out;
}

NcclCommunicator::CudaTensor NcclCommunicator::broadcast(const CudaTensor& x, int root) {
  const char* name = "distributed::broadcast";
  if (root < 0 || root >= size())
    throw ValueError(name, "root " + std::to_string(root) + " is not a rank of " + std::to_string(size()));
  impl_->check_device(x, name);
  CudaTensor out = impl_->fresh_copy(x, name);
  impl_->queue(name, out.numel(), [&](ncclComm_t comm, cudaStream_t s) {
    return api().broadcast(out.raw(), out.raw(), out.numel(), nccl_type(x.dtype(), name), root, comm, s);
  });
  return out;
}

NcclCommunicator::CudaTensor NcclCommunicator::all_gather(const CudaTensor& x) {
  const char* name = "distributed::all_gather";
  impl_->check_device(x, name);
  CudaTensor in = impl_->fresh_copy(x, name);
  Shape shape{size_t(size())};
  for (size_t d : x.shape()) shape.push_back(d);
  CudaTensor out(shape, x.dtype(), {impl_->device});
  impl_->queue(name, in.numel(), [&](ncclComm_t comm, cudaStream_t s) {
    return api().all_gather(in.raw(), out.raw(), in.numel(), nccl_type(x.dtype(), name), comm, s);
  });
  return out;
}

NcclCommunicator::CudaTensor NcclCommunicator::reduce_scatter(const CudaTensor& x, ReduceOp op) {
  const char* name = "distributed::reduce_scatter";
  Shape shape = x.shape();
  if (shape.rank() == 0 || shape[0] % size_t(size()) != 0)
    throw ShapeError(name,
                     "dim 0 of " + shape.to_string() + " does not split in " + std::to_string(size()) + " equal parts");
  impl_->check_device(x, name);
  CudaTensor in = impl_->fresh_copy(x, name);
  shape[0] /= size_t(size());
  CudaTensor out(shape, x.dtype(), {impl_->device});
  impl_->queue(name, out.numel(), [&](ncclComm_t comm, cudaStream_t s) {
    return api().reduce_scatter(in.raw(), out.raw(), out.numel(), nccl_type(x.dtype(), name), nccl_op(op), comm, s);
  });
  return out;
}

void NcclCommunicator::start_sum(CudaTensor flat) {
  const char* name = "distributed::NcclCommunicator::start_sum";
  impl_->check_device(flat, name);
  if (flat.dtype() != DType::F32 || !flat.is_contiguous()) throw ValueError(name, "buckets are contiguous f32 tensors");
  auto lock = impl_->enter(name);
  cudaEvent_t ready = nullptr, done = nullptr;
  backends::cuda::check(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), name);
  backends::cuda::check(cudaEventRecord(ready, impl_->op_stream()), name);
  backends::cuda::check(cudaStreamWaitEvent(impl_->side, ready, 0), name);
  cudaEventDestroy(ready);  // released once recorded work completes
  if (flat.numel())
    check(api().all_reduce(flat.raw(), flat.raw(), flat.numel(), ncclFloat32, ncclSum, impl_->comm, impl_->side), name);
  backends::cuda::check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), name);
  backends::cuda::check(cudaEventRecord(done, impl_->side), name);
  impl_->watch(impl_->side, name);
  impl_->pending.push_back({std::move(flat), done});
}

NcclCommunicator::CudaTensor NcclCommunicator::finish_sum() {
  const char* name = "distributed::NcclCommunicator::finish_sum";
  auto lock = impl_->enter(name);
  if (impl_->pending.empty()) throw ValueError(name, "no sum was started");
  Impl::Pending p = std::move(impl_->pending.front());
  impl_->pending.pop_front();
  backends::cuda::check(cudaStreamWaitEvent(impl_->op_stream(), p.done, 0), name);
  cudaEventDestroy(p.done);
  return std::move(p.flat);
}

namespace {
class NcclBuckets final : public BucketAllReduce<CudaTensor> {
 public:
  NcclBuckets(ProcessGroup& group, int device) : comm_(group, device) {}
  void start(CudaTensor flat) override { comm_.start_sum(std::move(flat)); }
  CudaTensor finish() override { return comm_.finish_sum(); }

 private:
  NcclCommunicator comm_;
};
}  // namespace

std::unique_ptr<BucketAllReduce<CudaTensor>> device_bucket_all_reduce(const std::shared_ptr<ProcessGroup>& group,
                                                                      const backends::cuda::CudaDevice& device) {
  std::string why;
  if (nccl_available(&why)) return std::make_unique<NcclBuckets>(*group, device.index);
  static std::once_flag said;
  std::call_once(said,
                 [&] { std::fprintf(stderr, "scorch: %s; gradients go through host memory (Gloo)\n", why.c_str()); });
  return std::make_unique<HostBucketAllReduce<Cuda>>(group);
}

}  // namespace scorch::distributed
