#include "scorch/backends/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#ifdef __linux__
#include <sched.h>
#endif

namespace scorch::backends::cpu {
namespace {

/// The CPUs this process may run on: its affinity mask's count (taskset, a container's cpuset), else the machine's.
size_t allowed_cpus() {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return size_t(CPU_COUNT(&set));
#endif
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

std::atomic<size_t> g_threads{default_num_threads()};

/// Spins until done() or about kSpinMicros have passed; true when done() held. Back-to-back ops (a model's layers)
/// then find their workers awake instead of paying a futex wake-up each.
constexpr int64_t kSpinMicros = 100;
template <class F> bool spin_until(F done) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::microseconds(kSpinMicros)) return done();
  }
}

// One job at a time: workers take chunk indices from a shared counter.
class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }
  void run(size_t chunks, const std::function<void(size_t)>& task, size_t workers) {
    std::unique_lock submit(submit_mutex_);
    grow(workers);
    {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return active_ == 0; });  // no worker still inside the last job
      task_ = &task;
      chunks_ = chunks;
      next_.store(0);
      pending_ = chunks;
      error_ = nullptr;
      generation_.store(generation_.load() + 1);
    }
    wake_.notify_all();
    drain();
    spin_until([&] { return pending_.load() == 0 && active_.load() == 0; });
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0 && active_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void grow(size_t workers) {
    while (threads_.size() < workers) threads_.emplace_back([this] { loop(); });
  }
  void drain() {
    for (;;) {
      size_t i = next_.fetch_add(1);
      if (i >= chunks_) return;
      try {
        (*task_)(i);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_all();
    }
  }
  void loop() {
    size_t seen = 0;
    for (;;) {
      spin_until([&] { return generation_.load() != seen; });
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && task_ != nullptr); });
        if (stop_) return;
        seen = generation_;
        ++active_;
      }
      drain();
      std::lock_guard lock(mutex_);
      if (--active_ == 0) done_.notify_all();
    }
  }

  std::mutex submit_mutex_, mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(size_t)>* task_ = nullptr;
  size_t chunks_ = 0;
  std::atomic<size_t> pending_{0}, generation_{0}, active_{0};  // written under mutex_, also read while spinning
  std::atomic<size_t> next_{0};
  std::exception_ptr error_;
  bool stop_ = false;
};

thread_local bool t_inside_pool = false;

}  // namespace

size_t default_num_threads() {
  if (const char* env = std::getenv("SCORCH_NUM_THREADS")) {
    long v = std::strtol(env, nullptr, 10);
    if (v > 0) return static_cast<size_t>(v);
  }
  return allowed_cpus();
}

size_t num_threads() { return g_threads.load(); }

void set_num_threads(size_t n) { g_threads.store(std::max<size_t>(1, n)); }

void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body) {
  if (n == 0) return;
  size_t threads = num_threads();
  size_t chunks = std::min(threads, (n + std::max<size_t>(grain, 1) - 1) / std::max<size_t>(grain, 1));
  if (chunks <= 1 || t_inside_pool) {
    body(0, n);
    return;
  }
  size_t step = (n + chunks - 1) / chunks;
  std::function<void(size_t)> task = [&](size_t c) {
    struct Inside {  // marks the thread as inside the pool for the chunk, also when body throws
      bool was = t_inside_pool;
      Inside() { t_inside_pool = true; }
      ~Inside() { t_inside_pool = was; }
    } inside;
    size_t begin = c * step, end = std::min(n, begin + step);
    if (begin < end) body(begin, end);
  };
  Pool::instance().run(chunks, task, threads - 1);
}

}  // namespace scorch::backends::cpu
