#pragma once
// Batcher and DataLoader. A loader cuts a dataset into batches (shuffled with seed + epoch when
// asked), turns each batch's items into the model's input with a Batcher, and lets worker
// threads prefetch batches. Batches come out in the same order for any number of workers.
//
//   auto loader = dataloader_builder(std::make_shared<MnistBatcher<B>>())
//                     .batch_size(64).shuffle(42).num_workers(2).build(dataset);
//   for (const auto& batch : loader->iter()) { ... }
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "scorch/core/error.h"
#include "scorch/data/transforms.h"
#include "scorch/data/worker_pool.h"

namespace scorch::data {

/// Turns a batch of items into the model's input on a device.
template <class B, class I, class O> class Batcher {
 public:
  using Backend = B;
  using Input = I;
  using Output = O;
  virtual ~Batcher() = default;
  virtual O batch(std::vector<I> items, const typename B::Device& device) const = 0;
};

/// How far an epoch has got.
struct Progress {
  size_t items_processed = 0, items_total = 0;
};

template <class B, class I, class O> class DataLoader;

/// One epoch of a DataLoader: next() gives batches in order, then nullopt.
template <class B, class I, class O> class EpochIterator {
 public:
  /// The next batch (waiting for a worker if needed), or nullopt at the end of the epoch.
  std::optional<O> next() {
    if (next_ >= batches_) return std::nullopt;
    schedule();
    O out = loader_->take(*state_, next_);
    progress_.items_processed += loader_->batch_len(next_++, progress_.items_total);
    schedule();
    return out;
  }
  /// Items delivered so far / items in the epoch.
  Progress progress() const { return progress_; }

  /// Range-for support: for (const auto& batch : loader->iter()).
  struct End {};
  class Cursor {
   public:
    explicit Cursor(EpochIterator* it) : it_(it), current_(it->next()) {}
    const O& operator*() const { return *current_; }
    Cursor& operator++() {
      current_ = it_->next();
      return *this;
    }
    bool operator!=(End) const { return current_.has_value(); }

   private:
    EpochIterator* it_;
    std::optional<O> current_;
  };
  Cursor begin() { return Cursor(this); }
  End end() { return {}; }

 private:
  friend class DataLoader<B, I, O>;
  struct State {
    std::vector<size_t> order;
    std::mutex mutex;
    std::condition_variable done;
    std::map<size_t, O> ready;
    BatchErrors errors;
  };
  EpochIterator(std::shared_ptr<const DataLoader<B, I, O>> loader, std::vector<size_t> order)
      : loader_(std::move(loader)), state_(std::make_shared<State>()) {
    progress_.items_total = order.size();
    batches_ = loader_->num_batches();
    state_->order = std::move(order);
  }
  /// Keeps up to two batches per worker in flight.
  void schedule() {
    size_t window = 2 * loader_->workers();
    while (submitted_ < batches_ && submitted_ < next_ + window) loader_->submit(state_, submitted_++);
  }

  std::shared_ptr<const DataLoader<B, I, O>> loader_;
  std::shared_ptr<State> state_;
  size_t batches_ = 0, next_ = 0, submitted_ = 0;
  Progress progress_;
};

/// Batches of a dataset, prefetched by persistent workers; iter() starts a new epoch.
template <class B, class I, class O> class DataLoader : public std::enable_shared_from_this<DataLoader<B, I, O>> {
 public:
  using Device = typename B::Device;
  DataLoader(DatasetPtr<I> dataset, std::shared_ptr<const Batcher<B, I, O>> batcher, size_t batch_size,
             std::optional<uint64_t> seed, size_t workers, Device device)
      : dataset_(dataset),
        batcher_(batcher),
        batch_size_(batch_size),
        seed_(seed),
        device_(device),
        source_(std::make_shared<const Source>(Source{std::move(dataset), std::move(batcher), batch_size, device})) {
    if (workers > 0) pool_ = std::make_unique<WorkerPool>(workers);
  }
  /// A new epoch: the dataset's order (reshuffled with seed + epoch when shuffling) in batches.
  EpochIterator<B, I, O> iter() const { return iter_at(epoch_++); }
  /// The iterator of a given epoch (from 0): the same order iter() gives at that epoch, so a
  /// resumed run sees the batches it would have seen.
  EpochIterator<B, I, O> iter_at(uint64_t epoch) const {
    std::vector<size_t> order = epoch_order(dataset_->len(), seed_, epoch);
    if (shard_) order = shard_->take(order);
    return EpochIterator<B, I, O>(this->shared_from_this(), std::move(order));
  }
  /// Items of one epoch (this rank's share when sharded).
  size_t num_items() const { return shard_ ? shard_->share(dataset_->len()) : dataset_->len(); }
  size_t num_batches() const { return (num_items() + batch_size_ - 1) / batch_size_; }
  /// This loader's share for rank of world data-parallel ranks: each epoch's order (shuffled alike on every rank:
  /// the same seed) dealt out item by item, rank r taking items r, r + world, ... (as PyTorch's
  /// DistributedSampler), so batch k of all ranks together is batch k of a loader of world × batch_size items.
  /// even: every rank gets n / world items (the last n % world of each epoch's order are skipped: the ranks run
  /// the same number of steps); otherwise ranks below n % world get one more. No item is seen twice in an epoch.
  std::shared_ptr<DataLoader> shard(size_t rank, size_t world, bool even = true) const {
    if (world == 0 || rank >= world)
      throw ValueError("DataLoader::shard",
                       "rank " + std::to_string(rank) + " is not in a world of " + std::to_string(world));
    if (shard_) throw ValueError("DataLoader::shard", "the loader is already a shard");
    auto out = std::make_shared<DataLoader>(dataset_, batcher_, batch_size_, seed_, workers(), device_);
    out->shard_ = Shard{rank, world, even};
    return out;
  }
  /// True for a loader made by shard().
  bool sharded() const { return shard_.has_value(); }
  size_t batch_size() const { return batch_size_; }
  size_t workers() const { return pool_ ? pool_->size() : 0; }
  const Device& device() const { return device_; }
  /// A loader over items start..end-1 with the same settings.
  std::shared_ptr<DataLoader> slice(size_t start, size_t end) const {
    return std::make_shared<DataLoader>(share(PartialDataset<I>(dataset_, start, end)), batcher_, batch_size_, seed_,
                                        workers(), device_);
  }
  /// The same loader producing batches on another device.
  std::shared_ptr<DataLoader> to_device(const Device& device) const {
    auto out = std::make_shared<DataLoader>(dataset_, batcher_, batch_size_, seed_, workers(), device);
    out->shard_ = shard_;
    return out;
  }

 private:
  friend class EpochIterator<B, I, O>;
  using State = typename EpochIterator<B, I, O>::State;

  /// Rank `rank`'s items of an epoch's order.
  struct Shard {
    size_t rank, world;
    bool even;
    size_t share(size_t n) const { return even ? n / world : n / world + (rank < n % world ? 1 : 0); }
    std::vector<size_t> take(const std::vector<size_t>& order) const {
      std::vector<size_t> mine(share(order.size()));
      for (size_t k = 0; k < mine.size(); ++k) mine[k] = order[rank + k * world];
      return mine;
    }
  };
  size_t batch_len(size_t b, size_t total) const { return std::min(batch_size_, total - b * batch_size_); }
  /// What a worker needs to make a batch; tasks hold this, never the loader (whose destructor
  /// joins the workers).
  struct Source {
    DatasetPtr<I> dataset;
    std::shared_ptr<const Batcher<B, I, O>> batcher;
    size_t batch_size;
    Device device;
    /// Reads batch b's items in order and batches them.
    O make_batch(const std::vector<size_t>& order, size_t b) const {
      std::vector<I> items;
      size_t begin = b * batch_size, end = std::min(begin + batch_size, order.size());
      items.reserve(end - begin);
      for (size_t k = begin; k < end; ++k) {
        auto item = dataset->get(order[k]);
        if (!item)
          throw ValueError("DataLoader", "the dataset gave no item at index " + std::to_string(order[k]) + " of " +
                                             std::to_string(dataset->len()));
        items.push_back(std::move(*item));
      }
      return batcher->batch(std::move(items), device);
    }
  };
  O make_batch(const State& state, size_t b) const { return source_->make_batch(state.order, b); }
  void submit(const std::shared_ptr<State>& state, size_t b) const {
    if (!pool_) return;
    pool_->submit([source = source_, state, b] {
      std::optional<O> out;
      std::exception_ptr error;
      try {
        out.emplace(source->make_batch(state->order, b));
      } catch (...) { error = std::current_exception(); }
      std::lock_guard lock(state->mutex);
      if (out) state->ready.emplace(b, std::move(*out));
      else state->errors.add(b, error);
      state->done.notify_all();
    });
  }
  /// Batch b: made here without workers, else waited for (the worker's error for b is rethrown).
  O take(State& state, size_t b) const {
    if (!pool_) return make_batch(state, b);
    std::unique_lock lock(state.mutex);
    state.done.wait(lock, [&] { return state.ready.count(b) || state.errors.has(b); });
    state.errors.rethrow(b);
    auto it = state.ready.find(b);
    O out = std::move(it->second);
    state.ready.erase(it);
    return out;
  }

  DatasetPtr<I> dataset_;
  std::shared_ptr<const Batcher<B, I, O>> batcher_;
  size_t batch_size_;
  std::optional<uint64_t> seed_;
  Device device_;
  std::shared_ptr<const Source> source_;
  std::unique_ptr<WorkerPool> pool_;
  mutable std::atomic<uint64_t> epoch_{0};
  std::optional<Shard> shard_;
};

/// Configures and builds a DataLoader. Defaults: batch size 1, the dataset's order (no shuffling), no worker threads
/// (batches are made on the caller's thread when asked for), the backend's default device.
template <class B, class I, class O> class DataLoaderBuilder {
 public:
  explicit DataLoaderBuilder(std::shared_ptr<const Batcher<B, I, O>> batcher) : batcher_(std::move(batcher)) {}
  /// Items per batch (default 1; 0 is refused by build); an epoch's last batch holds what is left.
  DataLoaderBuilder& batch_size(size_t n) {
    batch_size_ = n;
    return *this;
  }
  /// Shuffles every epoch (epoch e uses seed + e); default: the dataset's order.
  DataLoaderBuilder& shuffle(uint64_t seed) {
    seed_ = seed;
    return *this;
  }
  /// Worker threads prefetching batches (default 0: batches are made on the caller's thread).
  DataLoaderBuilder& num_workers(size_t n) {
    workers_ = n;
    return *this;
  }
  /// The device the batcher makes batches on (default: the backend's default device).
  DataLoaderBuilder& set_device(const typename B::Device& device) {
    device_ = device;
    return *this;
  }
  template <class D> std::shared_ptr<DataLoader<B, I, O>> build(D dataset) const {
    if (batch_size_ == 0) throw ValueError("DataLoaderBuilder", "batch_size must be positive");
    if (!batcher_) throw ValueError("DataLoaderBuilder", "no batcher");
    return std::make_shared<DataLoader<B, I, O>>(share(std::move(dataset)), batcher_, batch_size_, seed_, workers_,
                                                 device_);
  }

 private:
  std::shared_ptr<const Batcher<B, I, O>> batcher_;
  size_t batch_size_ = 1, workers_ = 0;
  std::optional<uint64_t> seed_;
  typename B::Device device_{};
};

/// A builder for batcher (B, I, O come from the batcher's `Batcher<B, I, O>` base).
template <class Bt> auto dataloader_builder(std::shared_ptr<Bt> batcher) {
  using Base = Batcher<typename Bt::Backend, typename Bt::Input, typename Bt::Output>;
  return DataLoaderBuilder<typename Bt::Backend, typename Bt::Input, typename Bt::Output>(
      std::shared_ptr<const Base>(std::move(batcher)));
}

/// One loader per device, each over its own consecutive part of the dataset.
template <class B, class I, class O>
std::vector<std::shared_ptr<DataLoader<B, I, O>>> split_dataloader(const DataLoader<B, I, O>& loader,
                                                                   const std::vector<typename B::Device>& devices) {
  if (devices.empty()) throw ValueError("split_dataloader", "no devices");
  std::vector<std::shared_ptr<DataLoader<B, I, O>>> out;
  size_t total = loader.num_items(), start = 0;
  for (size_t k = 0; k < devices.size(); ++k) {
    size_t size = total / devices.size() + (k < total % devices.size() ? 1 : 0);
    out.push_back(loader.slice(start, start + size)->to_device(devices[k]));
    start += size;
  }
  return out;
}

}  // namespace scorch::data
