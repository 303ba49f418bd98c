#pragma once
// One thread that runs a group's collectives in the order they were submitted, so the ranks (which must start
// collectives in one order) can hand buckets to it while their own thread goes on computing.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace scorch::distributed {

/// Runs submitted tasks one at a time, in submission order, on its own thread.
class CommThread {
 public:
  CommThread();
  /// Finishes the tasks already submitted, then joins.
  ~CommThread();
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;
  /// Queues task; the future holds its completion (or what it threw).
  std::future<void> submit(std::function<void()> task);

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace scorch::distributed
