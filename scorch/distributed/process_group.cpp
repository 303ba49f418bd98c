// ProcessGroup (process_group.h) on Gloo: a TCP device, a full mesh connected through the TcpStore, Gloo's
// collective algorithms; Gloo's exceptions (a peer gone, a timeout) become IoError naming the collective.
#include "scorch/distributed/process_group.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <csignal>

#include <algorithm>
#include <mutex>
#include <cstdlib>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/distributed/store.h"

namespace scorch::distributed {
namespace {

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

// The TcpStore as Gloo's rendezvous store.
class GlooStore final : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(TcpStore& store) : store_(store) {}
  void set(const std::string& key, const std::vector<char>& data) override { store_.set(key, data); }
  std::vector<char> get(const std::string& key) override { return store_.get(key); }
  void wait(const std::vector<std::string>& keys) override { store_.wait(keys, store_.timeout()); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_.wait(keys, timeout);
  }

 private:
  TcpStore& store_;
};

template <class T> ReduceFn reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::max: return &gloo::max<T>;
    case ReduceOp::min: return &gloo::min<T>;
    default: return &gloo::sum<T>;
  }
}

long env_number(const char* name, long fallback, long lo, long hi) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < lo || v > hi)
    throw ValueError("distributed::options_from_env", std::string(name) + "='" + text + "' is not an integer in [" +
                                                          std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

// Runs a Gloo collective, turning its exceptions into IoError naming it.
template <class F> void guarded(const char* op, F&& f) {
  try {
    f();
  } catch (const Error&) { throw; } catch (const std::exception& e) {
    throw IoError(op, std::string("a peer failed or timed out: ") + e.what());
  }
}

}  // namespace

ProcessGroupOptions options_from_env() {
  ProcessGroupOptions o;
  o.world_size = int(env_number("WORLD_SIZE", 1, 1, 1 << 20));
  o.rank = int(env_number("RANK", 0, 0, o.world_size - 1));
  o.local_rank = int(env_number("LOCAL_RANK", 0, 0, o.world_size - 1));
  if (const char* addr = std::getenv("MASTER_ADDR"); addr && *addr) o.master_addr = addr;
  o.master_port = uint16_t(env_number("MASTER_PORT", 29500, 1, 65535));
  o.rank0_serves_store = std::getenv("SCORCH_STORE_SERVED") == nullptr;
  o.timeout = std::chrono::milliseconds(env_number("SCORCH_DIST_TIMEOUT_MS", 30000, 1, 86400000));
  if (const char* host = std::getenv("SCORCH_DIST_HOSTNAME"); host && *host) o.hostname = host;
  if (const char* token = std::getenv("SCORCH_STORE_TOKEN"); token && *token) o.store_token = token;
  return o;
}

struct ProcessGroup::Impl {
  std::unique_ptr<TcpStore> store;
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::mutex mutex;  // one collective at a time: Gloo's context is not shared between calls
  int local_rank = 0;
  std::chrono::milliseconds timeout{30000};

  template <class T> void all_reduce(T* data, size_t n, ReduceOp op, int size) {
    if (n == 0) return;
    std::lock_guard lock(mutex);
    guarded("distributed::all_reduce", [&] {
      gloo::AllreduceOptions o(context);
      o.setOutput(data, n);
      o.setReduceFunction(reduce_fn<T>(op));
      gloo::allreduce(o);
    });
    if (op == ReduceOp::mean)
      for (size_t i = 0; i < n; ++i) data[i] /= T(size);
  }
};

ProcessGroup::ProcessGroup(const ProcessGroupOptions& o) : impl_(std::make_unique<Impl>()) {
  ::signal(SIGPIPE, SIG_IGN);  // a peer gone mid-send is an error Gloo reports, not a signal that ends the process
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size)
    throw ValueError("distributed::ProcessGroup",
                     "rank " + std::to_string(o.rank) + " is not in a world of " + std::to_string(o.world_size));
  impl_->local_rank = o.local_rank, impl_->timeout = o.timeout;
  bool serve = o.rank == 0 && o.rank0_serves_store;
  impl_->store = std::make_unique<TcpStore>(o.master_addr, o.master_port, serve, o.timeout, o.store_token);
  guarded("distributed::ProcessGroup", [&] {
    gloo::transport::tcp::attr attr;
    attr.hostname = o.hostname;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    GlooStore store(*impl_->store);
    gloo::rendezvous::PrefixStore prefixed("scorch", store);
    impl_->context = std::make_shared<gloo::rendezvous::Context>(o.rank, o.world_size);
    impl_->context->setTimeout(o.timeout);
    impl_->context->connectFullMesh(prefixed, device);
  });
}

ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::rank() const { return impl_->context->rank; }
int ProcessGroup::size() const { return impl_->context->size; }

int ProcessGroup::local_rank() const { return impl_->local_rank; }
std::chrono::milliseconds ProcessGroup::timeout() const { return impl_->timeout; }

void ProcessGroup::all_reduce(float* data, size_t n, ReduceOp op) { impl_->all_reduce(data, n, op, size()); }
void ProcessGroup::all_reduce(double* data, size_t n, ReduceOp op) { impl_->all_reduce(data, n, op, size()); }

void ProcessGroup::broadcast(void* data, size_t bytes, int root) {
  if (root < 0 || root >= size())
    throw ValueError("distributed::broadcast",
                     "root " + std::to_string(root) + " is not a rank of " + std::to_string(size()));
  if (bytes == 0) return;
  std::lock_guard lock(impl_->mutex);
  guarded("distributed::broadcast", [&] {
    gloo::BroadcastOptions o(impl_->context);
    o.setOutput(static_cast<char*>(data), bytes);
    o.setRoot(root);
    gloo::broadcast(o);
  });
}

void ProcessGroup::all_gather(const float* in, size_t n, float* out) {
  if (n == 0) return;
  std::lock_guard lock(impl_->mutex);
  guarded("distributed::all_gather", [&] {
    gloo::AllgatherOptions o(impl_->context);
    o.setInput(const_cast<float*>(in), n);
    o.setOutput(out, n * size_t(size()));
    gloo::allgather(o);
  });
}

void ProcessGroup::reduce_scatter(const float* in, size_t n, float* out, ReduceOp op) {
  // All-reduce, then this rank's share: twice the traffic of a ring reduce-scatter, Gloo's tested path.
  std::vector<float> all(in, in + n * size_t(size()));
  all_reduce(all.data(), all.size(), op);
  std::copy(all.begin() + std::ptrdiff_t(n) * rank(), all.begin() + std::ptrdiff_t(n) * (rank() + 1), out);
}

void ProcessGroup::barrier() {
  std::lock_guard lock(impl_->mutex);
  guarded("distributed::barrier", [&] {
    gloo::BarrierOptions o(impl_->context);
    gloo::barrier(o);
  });
}

bool launched_distributed() { return env_number("WORLD_SIZE", 1, 1, 1 << 20) > 1; }
bool is_main_process() { return !launched_distributed() || options_from_env().rank == 0; }

std::shared_ptr<ProcessGroup> default_group() {
  static std::mutex mutex;
  static std::shared_ptr<ProcessGroup> group;
  std::lock_guard lock(mutex);
  if (!group && launched_distributed()) group = std::make_shared<ProcessGroup>(options_from_env());
  return group;
}

}  // namespace scorch::distributed
