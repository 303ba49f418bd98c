#pragma once
// A fixed set of worker threads running queued tasks; the DataLoader keeps one for its whole
// life, so epochs reuse the same threads (no thread or memory growth per epoch).
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <optional>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scorch::data {

/// Threads that run submitted tasks in submission order; pending tasks are dropped on destruction.
class WorkerPool {
 public:
  explicit WorkerPool(size_t threads);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool();
  /// Queues task for the next free worker.
  void submit(std::function<void()> task);
  size_t size() const { return threads_.size(); }

 private:
  void work();
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

/// The errors of a loader's batches that failed on a worker, by batch index (the caller holds the epoch's lock).
class BatchErrors {
 public:
  void add(size_t batch, std::exception_ptr error);
  bool has(size_t batch) const;
  /// Rethrows batch's error, if it has one.
  void rethrow(size_t batch) const;

 private:
  std::map<size_t, std::exception_ptr> errors_;
};

/// An epoch's item order: 0..n-1, or shuffled with seed + epoch when seed is given.
std::vector<size_t> epoch_order(size_t n, std::optional<uint64_t> seed, uint64_t epoch);

}  // namespace scorch::data
