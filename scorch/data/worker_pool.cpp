#include "scorch/data/worker_pool.h"

#include "scorch/data/transforms.h"

namespace scorch::data {

WorkerPool::WorkerPool(size_t threads) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    tasks_.clear();
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void WorkerPool::work() {
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

void BatchErrors::add(size_t batch, std::exception_ptr error) { errors_.emplace(batch, std::move(error)); }

bool BatchErrors::has(size_t batch) const { return errors_.count(batch) > 0; }

void BatchErrors::rethrow(size_t batch) const {
  if (auto e = errors_.find(batch); e != errors_.end()) std::rethrow_exception(e->second);
}

std::vector<size_t> epoch_order(size_t n, std::optional<uint64_t> seed, uint64_t epoch) {
  if (seed) return shuffled_indices(n, *seed + epoch);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  return order;
}

}  // namespace scorch::data
