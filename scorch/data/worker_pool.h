#pragma once
// A fixed set of worker threads running queued tasks; the DataLoader keeps one for its whole
// life, so epochs reuse the same threads (no thread or memory growth per epoch).
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scorch::data {

/// Threads that run submitted tasks in submission order; pending tasks are dropped on destruction.
class WorkerPool {
 public:
  explicit WorkerPool(size_t threads) {
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      tasks_.clear();
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  /// Queues task for the next free worker.
  void submit(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }
  size_t size() const { return threads_.size(); }

 private:
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (stopping_) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

}  // namespace scorch::data
