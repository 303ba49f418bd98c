// Data-parallel training under scorch-run (2 and 4 ranks, ctest label distributed): sharded loaders cover each
// epoch once; the Learner training the guide's CNN data-parallel for 200 steps ends with the parameters (and logs
// the losses) of single-process training on the global batch; a stop on one rank stops all; resume continues the
// run; a rank that leaves mid-training makes the others fail within the timeout.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "distributed/launched_group.h"
#include "guide/model_forward.hpp"
#include "guide/training.hpp"
#include "scorch/distributed/collectives.h"
#ifdef SCORCH_HAVE_CUDA
#include "scorch/stacks/cuda/autodiff.h"
#endif

// training.hpp declares them extern (the guide compiles them in its own files).
template struct guide::Model<scorch::Cpu>;
template struct guide::Model<scorch::Autodiff<scorch::Cpu>>;

namespace scorch::distributed {
namespace {

using AD = Autodiff<Cpu>;

ProcessGroup& world() { return *launched_group(); }

// n items whose classes follow their index; each image lights a block that depends on its class, plus noise.
data::DatasetPtr<data::MnistItem> items(size_t n) {
  std::vector<data::MnistItem> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i].label = uint8_t((i * 7) % 10);
    size_t row = (out[i].label / 5) * 14 + 4, col = (out[i].label % 5) * 5 + 2;
    for (size_t p = 0; p < 784; ++p) out[i].image[p] = float((p * 31 + i * 17) % 53);
    for (size_t r = row; r < row + 6; ++r)
      for (size_t k = col; k < col + 4; ++k) out[i].image[r * 28 + k] = 255.0f;
  }
  return data::share(data::InMemDataset<data::MnistItem>(std::move(out)));
}

template <class B = AD>
std::shared_ptr<data::DataLoader<B, data::MnistItem, guide::MnistBatch<B>>> loader(size_t n, size_t batch,
                                                                                   typename B::Device device = {}) {
  return data::dataloader_builder(std::make_shared<guide::MnistBatcher<B>>())
      .batch_size(batch)
      .shuffle(5)
      .set_device(device)
      .build(items(n));
}

// The guide's model initialized on Cpu from seed (the same values on every rank and device), on device.
template <class B = AD> guide::Model<B> fresh_model(uint64_t seed, typename B::Device device = {}) {
  AD::seed(seed);
  auto config = guide::ModelConfig(10, 32).with_dropout(0.0);
  auto model = config.init<AD>();
  if constexpr (std::same_as<B, AD>) return model;
  else return config.init_with<B>(model.valid().into_record(), device);
}

template <class M> std::vector<float> flat_params(const M& m) {
  std::vector<float> out;
  auto record = m.valid().into_record();
  for (const char* layer : {"conv1", "conv2", "linear1", "linear2"})
    for (const char* field : {"weight", "bias"}) {
      auto v = record.at(layer).at(field).as_tensor().data.convert(DType::F32).template to_vector<float>();
      out.insert(out.end(), v.begin(), v.end());
    }
  return out;
}

// A directory every rank of this run names alike (scorch-run's port is this run's own).
std::string run_dir(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("scorch-dp-" + std::string(std::getenv("MASTER_PORT")) + "-" + name))
      .string();
}

// run_dir(name) emptied first by every rank (a directory an earlier run left under the same port must not leak into
// this one); every rank of the group calls it at once.
std::string fresh_run_dir(const std::string& name) {
  std::string dir = run_dir(name);
  std::error_code ignored;  // another rank may be removing the same files
  std::filesystem::remove_all(dir, ignored);
  world().barrier();
  return dir;
}

// The targets of one epoch of a loader, in order.
std::vector<int64_t> epoch_targets(
    const std::shared_ptr<data::DataLoader<AD, data::MnistItem, guide::MnistBatch<AD>>>& l, uint64_t epoch) {
  std::vector<int64_t> out;
  auto it = l->iter_at(epoch);
  while (auto batch = it.next()) {
    auto t = batch->targets.into_data().to_vector<int64_t>();
    out.insert(out.end(), t.begin(), t.end());
  }
  return out;
}

TEST(Distributed, ShardsCoverEachEpochOnceWithOneShuffle) {
  ProcessGroup& g = world();
  const size_t world = size_t(g.size()), n = 103;
  auto all = loader(n, 4);
  for (uint64_t epoch : {0, 3}) {
    auto whole = epoch_targets(all, epoch);
    for (bool even : {true, false})
      for (size_t r = 0; r < world; ++r) {  // rank r deals items r, r + world, ... of the epoch's order
        auto shard = all->shard(r, world, even);
        size_t share = even ? n / world : n / world + (r < n % world ? 1 : 0);
        EXPECT_EQ(shard->num_items(), share);
        EXPECT_EQ(shard->num_batches(), (share + 3) / 4);
        auto mine = epoch_targets(shard, epoch);
        ASSERT_EQ(mine.size(), share);
        for (size_t k = 0; k < share; ++k) ASSERT_EQ(mine[k], whole[r + k * world]) << "rank " << r << " item " << k;
      }
    // Every process shuffles alike: the shards the ranks drew are the ones this rank computes for them.
    auto mine = epoch_targets(all->shard(size_t(g.rank()), world), epoch);
    std::vector<float> sent(mine.begin(), mine.end()), got(sent.size() * world);
    g.all_gather(sent.data(), sent.size(), got.data());
    for (size_t r = 0; r < world; ++r)
      for (size_t k = 0; k < sent.size(); ++k) ASSERT_EQ(int64_t(got[r * sent.size() + k]), whole[r + k * world]);
  }
  EXPECT_THROW(all->shard(world, world), ValueError);
  EXPECT_THROW(all->shard(0, world)->shard(0, world), ValueError);
}

// Gradients that only some ranks produce average with zeros for the others; a parameter without a gradient on
// any rank gets none. linear1 has one on every rank, linear2 on even ranks only, the convolutions on none; small
// buckets, sent while backward runs or all at the end.
template <class B> void expect_partial_gradients_averaged(typename B::Device device) {
  using Inner = typename B::InnerBackend;
  ProcessGroup& g = world();
  auto model = fresh_model<B>(3, device);
  auto local_grads = [&](int rank) {
    std::vector<float> v(4 * 1024);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(std::sin(0.37 * double(i) + rank));
    auto x = Tensor<B, 2>::from_data(TensorData(v, Shape{4, 1024}), device);
    auto h = model.linear1.forward(x);
    auto loss = rank % 2 == 0 ? model.linear2.forward(activation::relu(h)).sum() : h.sum().mul_scalar(2.0);
    return optim::GradientsParams::from_grads(loss.backward(), model);
  };
  auto values = [](const auto& t) { return t.into_data().convert(DType::F32).template to_vector<float>(); };
  // The mean over ranks of parameter p's local gradients (absent ones as zeros), from every rank's loss here.
  auto expected = [&](const auto& param) {
    constexpr size_t D = std::decay_t<decltype(param.val())>::rank();
    std::vector<float> sum(param.val().shape().num_elements());
    for (int r = 0; r < g.size(); ++r)
      if (auto grad = local_grads(r).template get<Inner, D>(param.id())) {
        auto v = values(*grad);
        for (size_t i = 0; i < v.size(); ++i) sum[i] += v[i] / float(g.size());
      }
    return sum;
  };
  for (bool overlap : {true, false}) {
    auto reducer = make_gradient_reducer<guide::Model<B>>(launched_group(), device, {size_t(4) << 10, overlap});
    reducer->begin(model);
    auto grads = reducer->finish(model, local_grads(g.rank()));
    for (const auto* p : {&model.linear1.weight, &model.linear2.weight}) {
      auto got = grads.template get<Inner, 2>(p->id());
      ASSERT_TRUE(got.has_value()) << "overlap " << overlap;
      auto want = expected(*p), have = values(*got);
      ASSERT_EQ(have.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(have[i], want[i], 1e-5f) << "overlap " << overlap << " element " << i;
    }
    auto has = [&]<size_t D>(const Param<Tensor<B, D>>& p) { return grads.template get<Inner, D>(p.id()).has_value(); };
    EXPECT_TRUE(has(*model.linear2.bias));
    EXPECT_FALSE(has(model.conv1.weight)) << "no rank has a gradient";
    EXPECT_FALSE(has(*model.conv2.bias)) << "no rank has a gradient";
  }
}

TEST(Distributed, PartialGradientsAverageAcrossRanks) { expect_partial_gradients_averaged<AD>(Cpu::Device{}); }

// Single-process training with the global batch: the reference.
template <class B = AD>
std::pair<guide::Model<B>, std::vector<double>> reference_training(size_t n, size_t global_batch, double lr,
                                                                   typename B::Device device = {}) {
  auto model = fresh_model<B>(7, device);
  auto optim = optim::AdamConfig().init();
  std::vector<double> losses;
  auto it = loader<B>(n, global_batch, device)->iter_at(0);
  while (auto batch = it.next()) {
    auto out = model.train_step(*batch);
    losses.push_back(out.item.loss.inner().into_scalar().to_double());
    model = optim.step(lr, model, std::move(out.grads));
  }
  return {model, losses};
}

TEST(Distributed, LearnerTrainsTheGuideModelAsOneProcessWithTheGlobalBatch) {
  ProcessGroup& g = world();
  const size_t per_rank = 4, steps = 200, global = per_rank * size_t(g.size()), n = steps * global;
  const double lr = 1e-3;
  auto dir = fresh_run_dir("match-rank" + std::to_string(g.rank()));
  auto learner = train::LearnerBuilder(dir)
                     .data_parallel(launched_group(), {size_t(16) << 10, true})  // several buckets
                     .metric_train_numeric(train::LossMetric{})
                     .num_epochs(1)
                     .plots(false)
                     .renderer(std::make_shared<train::CliRenderer>(std::cerr, std::chrono::hours(1)))
                     .build(fresh_model(7 + uint64_t(g.rank())), optim::AdamConfig().init(), lr);  // rank 0's wins
  auto trained = learner.fit(loader(n, per_rank), loader<Cpu>(n / 10, per_rank));
  auto [reference, losses] = reference_training(n, global, lr);

  auto got = flat_params(trained), want = flat_params(reference);
  ASSERT_EQ(got.size(), want.size());
  float worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
  EXPECT_LT(worst, 2e-4f) << "largest parameter difference after " << steps << " steps";
  std::vector<float> low = got, high = got;  // every rank holds the same parameters
  g.all_reduce(low.data(), low.size(), ReduceOp::min), g.all_reduce(high.data(), high.size(), ReduceOp::max);
  EXPECT_EQ(low, high);
  if (g.rank() == 0) {  // the logged losses are the global batches' losses
    auto logged = learner.store().iteration_values(train::Split::Train, "Loss", 1);
    ASSERT_EQ(logged.size(), steps);
    for (size_t k = 0; k < steps; ++k) EXPECT_NEAR(logged[k], losses[k], 2e-4 * (1 + std::abs(losses[k]))) << k;
    EXPECT_TRUE(std::filesystem::exists(dir + "/experiment.log"));
  } else {
    EXPECT_FALSE(std::filesystem::exists(dir)) << "only rank 0 writes";
  }
  g.barrier();
  std::filesystem::remove_all(dir);
}

#ifdef SCORCH_HAVE_CUDA
// Partial gradients on Cuda: buckets and presence flags summed by NCCL (skipped without a GPU per rank).
TEST(Distributed, CudaPartialGradientsAverageAcrossRanks) {
  if (backends::cuda::device_count() < world().size()) GTEST_SKIP() << "needs a GPU per rank";
  expect_partial_gradients_averaged<Autodiff<Cuda>>(CudaDevice{world().local_rank()});
}

// The same on Cuda, one GPU per rank, gradients summed by NCCL during backward (skipped without a GPU per rank).
TEST(Distributed, CudaLearnerTrainsAsOneGpuWithTheGlobalBatch) {
  using CAD = Autodiff<Cuda>;
  ProcessGroup& g = world();
  if (backends::cuda::device_count() < g.size()) GTEST_SKIP() << "needs a GPU per rank";
  const size_t per_rank = 8, steps = 100, global = per_rank * size_t(g.size()), n = steps * global;
  std::vector<CudaDevice> devices;
  for (int r = 0; r < g.size(); ++r) devices.push_back({r});
  CudaDevice mine{g.local_rank()};
  auto learner = train::LearnerBuilder(fresh_run_dir("cuda-rank" + std::to_string(g.rank())))
                     .devices(devices)
                     .data_parallel(launched_group(), {size_t(16) << 10, true})
                     .metric_train_numeric(train::LossMetric{})
                     .num_epochs(1)
                     .plots(false)
                     .renderer(std::make_shared<train::CliRenderer>(std::cerr, std::chrono::hours(1)))
                     .build(fresh_model<CAD>(7, mine), optim::AdamConfig().init(), 1e-3);
  auto trained = learner.fit(loader<CAD>(n, per_rank), loader<Cuda>(n / 10, per_rank));
  EXPECT_EQ(scorch::devices(trained), std::vector<CudaDevice>{mine});
  auto [reference, losses] = reference_training<CAD>(n, global, 1e-3, mine);
  auto got = flat_params(trained), want = flat_params(reference);
  ASSERT_EQ(got.size(), want.size());
  float worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
  EXPECT_LT(worst, 5e-4f) << "largest parameter difference after " << steps << " steps";
  if (g.rank() == 0) {
    auto logged = learner.store().iteration_values(train::Split::Train, "Loss", 1);
    ASSERT_EQ(logged.size(), steps);
    for (size_t k = 0; k < steps; ++k) EXPECT_NEAR(logged[k], losses[k], 5e-4 * (1 + std::abs(losses[k]))) << k;
  }
  g.barrier();
  std::filesystem::remove_all(run_dir("cuda-rank" + std::to_string(g.rank())));
}
#endif

TEST(Distributed, AStopOnOneRankStopsEveryRank) {
  ProcessGroup& g = world();
  train::Interrupter interrupter;
  if (g.rank() == g.size() - 1) interrupter.stop("asked on the last rank");
  auto dir = fresh_run_dir("stop");
  auto learner = train::LearnerBuilder(dir)
                     .with_interrupter(interrupter)
                     .num_epochs(3)
                     .plots(false)
                     .renderer(std::make_shared<train::CliRenderer>(std::cerr, std::chrono::hours(1)))
                     .build(fresh_model(7), optim::AdamConfig().init(), 1e-3);
  learner.fit(loader(64 * size_t(g.size()), 4), loader<Cpu>(16, 4));
  EXPECT_TRUE(learner.report().interrupted);
  EXPECT_EQ(learner.report().epochs_completed, 0u);
  g.barrier();
  if (g.rank() == 0) std::filesystem::remove_all(dir);
}

TEST(Distributed, ResumeContinuesTheDataParallelRun) {
  ProcessGroup& g = world();
  const size_t n = 24 * 4 * size_t(g.size());
  auto fit = [&](const std::string& dir, size_t epochs, std::optional<size_t> resume, uint64_t seed) {
    auto builder = train::LearnerBuilder(dir);
    builder.with_file_checkpointer(BinFileRecorder<FullPrecisionSettings>{})
        .num_epochs(epochs)
        .plots(false)
        .metric_valid_numeric(train::LossMetric{})
        .renderer(std::make_shared<train::CliRenderer>(std::cerr, std::chrono::hours(1)));
    if (resume) builder.checkpoint(*resume);
    auto learner = builder.build(fresh_model(seed), optim::AdamConfig().init(), 1e-3);
    return learner.fit(loader(n, 4), loader<Cpu>(n / 4, 4));
  };
  auto straight = flat_params(fit(fresh_run_dir("straight"), 2, std::nullopt, 7));
  fit(fresh_run_dir("resumed"), 1, std::nullopt, 7);
  auto resumed = flat_params(fit(run_dir("resumed"), 2, 1, 99));  // everything from the checkpoint of epoch 1
  ASSERT_EQ(resumed.size(), straight.size());
  for (size_t i = 0; i < straight.size(); ++i) ASSERT_NEAR(resumed[i], straight[i], 1e-6f) << i;
  g.barrier();
  if (g.rank() == 0) std::filesystem::remove_all(run_dir("straight")), std::filesystem::remove_all(run_dir("resumed"));
}

// Rank 1 leaves during the fifth batch; rank 0's training fails with IoError within the timeout (run alone, 2
// ranks, by the ctest distributed_dead_peer_training; on Cuda by scripts/gpu-run.sh distributed).
template <class B = AD> struct LeavingBatcher final : data::Batcher<B, data::MnistItem, guide::MnistBatch<B>> {
  mutable size_t batches = 0;
  guide::MnistBatch<B> batch(std::vector<data::MnistItem> items, const typename B::Device& device) const override {
    if (world().rank() == 1 && ++batches == 5) std::_Exit(0);
    return guide::MnistBatcher<B>().batch(std::move(items), device);
  }
};

// Trains learner on a loader whose rank 1 leaves; expects IoError from a distributed:: op within 30 s.
template <class B, class L> void expect_gone_peer_fails(L& learner, typename B::Device device) {
  using Valid = typename B::InnerBackend;
  auto start = std::chrono::steady_clock::now();
  auto train = data::dataloader_builder(std::make_shared<LeavingBatcher<B>>())
                   .batch_size(4)
                   .set_device(device)
                   .build(items(400));
  try {
    learner.fit(train, std::shared_ptr<data::DataLoader<Valid, data::MnistItem, guide::MnistBatch<Valid>>>());
    ADD_FAILURE() << "training went on without rank 1";
  } catch (const IoError& e) { EXPECT_NE(std::string(e.what()).find("distributed::"), std::string::npos) << e.what(); }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(DistributedDeadPeerTraining, TrainingWithAGonePeerIsAnError) {
  auto learner = train::LearnerBuilder(fresh_run_dir("dead"))
                     .num_epochs(1)
                     .plots(false)
                     .renderer(std::make_shared<train::CliRenderer>(std::cerr, std::chrono::hours(1)))
                     .build(fresh_model(7), optim::AdamConfig().init(), 1e-3);
  expect_gone_peer_fails<AD>(learner, Cpu::Device{});
  std::filesystem::remove_all(run_dir("dead"));
}

#ifdef SCORCH_HAVE_CUDA
// The same on NCCL: the communicator's watchdog aborts the bucket all-reduce that waits for rank 1.
TEST(DistributedDeadPeerTraining, CudaTrainingWithAGonePeerIsAnError) {
  using CAD = Autodiff<Cuda>;
  if (backends::cuda::device_count() < world().size()) GTEST_SKIP() << "needs a GPU per rank";
  CudaDevice mine{world().local_rank()};
  auto learner = train::LearnerBuilder(fresh_run_dir("dead-cuda"))
                     .devices(std::vector<CudaDevice>{mine})
                     .data_parallel(launched_group())
                     .num_epochs(1)
                     .plots(false)
                     .renderer(std::make_shared<train::CliRenderer>(std::cerr, std::chrono::hours(1)))
                     .build(fresh_model<CAD>(7, mine), optim::AdamConfig().init(), 1e-3);
  expect_gone_peer_fails<CAD>(learner, mine);
  std::filesystem::remove_all(run_dir("dead-cuda"));
}
#endif

}  // namespace
}  // namespace scorch::distributed
