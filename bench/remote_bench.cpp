// Remote's workloads against a scorch-server started in this process on loopback TCP (its own thread, over the Local
// backend): the round trip of one op and a read, the cost per op of a stream of ops with one read at the end, and
// the guide CNN's inference (batch 64, logits read back) through Remote and on Local directly, in one run.
#include <thread>

#include "bench.h"
#include "guide/model.hpp"
#include "scorch/remote/remote.h"
#include "scorch/remote/server.h"

namespace scorch::bench {
namespace {

/// A server on tcp://127.0.0.1:* serving sessions, run on its own thread until destruction.
class InProcessServer {
 public:
  explicit InProcessServer(remote::SessionFactory sessions)
      : server_({"tcp://127.0.0.1:*", "bench-token"}, std::move(sessions)), thread_([this] { server_.run(); }) {}
  ~InProcessServer() {
    server_.stop();
    thread_.join();
  }
  Remote::Device device() { return Remote::connect(server_.endpoint(), "bench-token"); }

 private:
  remote::Server server_;
  std::thread thread_;
};

/// Options for workloads of backend B (its name; sync waits for device).
template <class B> Options on(const Options& o, const typename B::Device& device, const std::string& name) {
  Options out = o;
  out.backend_name = name;
  out.sync = [device] { B::sync(device); };
  return out;
}

void round_trips(const Options& o, const Remote::Device& device) {
  auto x = Tensor<Remote, 1>::ones({8}, device);
  run(
      o, "remote_op_roundtrip", 20, [&] { (void)(x + 1.0).to_data(); }, "us_per_roundtrip",
      [](double ms) { return ms * 1e3; });
  Tensor<Remote, 1> y;
  run(
      o, "remote_op_stream", 3,
      [&] {
        for (int i = 0; i < 1000; ++i) y = x + 1.0;
      },
      "us_per_op", [](double ms) { return ms; });  // ms per 1,000 ops (and one sync) = µs per op
}

/// The guide CNN's inference on B at device: forward on 64 images and the logits read back.
template <class B> void guide_inference(const Options& o, const typename B::Device& device, const Record& weights,
                                        const TensorData& images, const std::string& name) {
  auto model = guide::ModelConfig(10, 512).init_with<B>(weights, device);
  auto batch = Tensor<B, 3>::from_data(images, device);
  run(
      o, name, 5, [&] { (void)model.forward(batch).to_data(); }, "img_per_s", [](double ms) { return 64 / ms * 1e3; });
}

}  // namespace

template <class Local> void remote_workloads(const Options& o, remote::SessionFactory sessions) {
  InProcessServer server(std::move(sessions));
  auto device = server.device();
  Options remote = on<Remote>(o, device, "remote(" + Local::name() + ")");
  Local::seed(0);
  round_trips(remote, device);
  auto weights = guide::ModelConfig(10, 512).init<Local>().into_record();
  auto images = Tensor<Local, 3>::random({64, 28, 28}, Distribution::normal(0, 1)).to_data();
  guide_inference<Remote>(remote, device, weights, images, "remote_guide_infer_b64");
  guide_inference<Local>(on<Local>(o, typename Local::Device{}, Local::name()), {}, weights, images,
                         "local_guide_infer_b64");
}

template void remote_workloads<Cpu>(const Options&, remote::SessionFactory);
#ifdef SCORCH_HAVE_CUDA
template void remote_workloads<Cuda>(const Options&, remote::SessionFactory);
#endif

}  // namespace scorch::bench
