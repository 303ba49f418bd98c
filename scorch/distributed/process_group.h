#pragma once
// A process group: the ranks of a distributed run and their collectives, on Gloo over TCP (CPUs, loopback or across
// machines), rendezvous through a TcpStore. Host buffers here; collectives.h puts tensors of any backend on them.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace scorch::distributed {

/// How all_reduce and reduce_scatter combine the ranks' values.
enum class ReduceOp : uint8_t { sum, mean, max, min };

/// Where this rank stands in the run and where the store is.
struct ProcessGroupOptions {
  int rank = 0, world_size = 1;
  /// This process's rank among those of its machine (which of its GPUs it drives).
  int local_rank = 0;
  /// The store's host and port (rank 0's machine, or the launcher's).
  std::string master_addr = "127.0.0.1";
  uint16_t master_port = 29500;
  /// Rank 0 serves the store itself (false when a launcher, scorch-run, serves it).
  bool rank0_serves_store = true;
  /// The address other ranks reach this one at.
  std::string hostname = "127.0.0.1";
  /// How long rendezvous and each collective may wait for a peer before failing.
  std::chrono::milliseconds timeout{30000};
  /// The job's token that opens the store's connections ($SCORCH_STORE_TOKEN, which scorch-run sets); empty: none.
  std::string store_token;
};

/// Options from torchrun's environment: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT; SCORCH_STORE_SERVED=1
/// (the launcher serves the store), SCORCH_DIST_TIMEOUT_MS, SCORCH_DIST_HOSTNAME. Throws ValueError naming a bad
/// variable.
ProcessGroupOptions options_from_env();

/// The collectives of one group. Every rank calls the same collectives in the same order; a peer that is gone or
/// late past the timeout makes the call throw IoError naming the collective.
class ProcessGroup {
 public:
  /// Joins the group (rendezvous through the store, a Gloo TCP connection to every peer).
  explicit ProcessGroup(const ProcessGroupOptions& options);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int size() const;
  /// The rank among this machine's processes (ProcessGroupOptions::local_rank).
  int local_rank() const;
  /// How long a collective waits for a peer (ProcessGroupOptions::timeout).
  std::chrono::milliseconds timeout() const;
  /// data[0, n) combined across ranks, in place on every rank.
  void all_reduce(float* data, size_t n, ReduceOp op = ReduceOp::sum);
  void all_reduce(double* data, size_t n, ReduceOp op = ReduceOp::sum);
  /// root's bytes copied into every rank's data.
  void broadcast(void* data, size_t bytes, int root);
  /// out[r·n, (r + 1)·n) = rank r's in[0, n), on every rank.
  void all_gather(const float* in, size_t n, float* out);
  /// out[0, n) = rank r's share (values [r·n, (r + 1)·n)) of in combined across ranks.
  void reduce_scatter(const float* in, size_t n, float* out, ReduceOp op = ReduceOp::sum);
  /// Returns when every rank has reached it.
  void barrier();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// True when torchrun's environment names a world of more than one process (WORLD_SIZE > 1).
bool launched_distributed();
/// True in a single process and on rank 0 of a launched world (RANK): the process that writes files and prints
/// results, as the Learner's rank 0 does (PyTorch's `rank == 0` idiom), without joining the group.
bool is_main_process();
/// The process-wide group of torchrun's environment (options_from_env), joined at the first call as
/// torch.distributed.init_process_group; nullptr unless launched_distributed().
std::shared_ptr<ProcessGroup> default_group();

}  // namespace scorch::distributed
