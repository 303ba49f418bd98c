// Remote's workloads against a scorch-server started in this process on loopback TCP (its own thread, over the Local
// backend): the round trip of one op and a read, the cost per op of a stream of ops with one read at the end, and
// the guide CNN's inference (batch 64, logits read back) through Remote and on Local directly, in one run; and what
// the server's executor spends per op with its validation (ir::validate) and on validation alone.
#include <thread>

#include "bench.h"
#include "guide/model_forward.hpp"
#include "scorch/remote/remote.h"
#include "scorch/remote/server.h"
#include "scorch/remote/session.h"

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

/// The server's executor per op (a session on Local running x + 1 records: validation, kernel, bookkeeping), the
/// executor alone with and without validation, and the validation alone (ir::validate of the same record), in µs per
/// op.
template <class Local> void executor_costs(const Options& o) {
  remote::Session<Local> session(typename Local::Device{}, uint64_t{1} << 30);
  auto add_one = [](uint64_t out) {
    return ir::OpRecord(ir::records::FloatAddScalar{ir::TensorIr{1, {}, {}}, Scalar(1.0), {ir::TensorIr{out, {}, {}}}});
  };
  remote::Request make;
  make.kind = remote::RequestKind::Op;
  make.record = ir::OpRecord(ir::records::FloatOnes{Shape{8}, {"x"}, DType::F32, {ir::TensorIr{1, {}, {}}}});
  (void)session.handle(make);
  uint64_t next = 2;
  run(
      o, "record_execute", 3,
      [&] {
        for (int i = 0; i < 1000; ++i) {
          remote::Request op;
          op.kind = remote::RequestKind::Op;
          op.record = add_one(next);
          (void)session.handle(op);
          session.release({next++});
        }
      },
      "us_per_op", [](double ms) { return ms; });
  // The same op through the executor with its validation (record_execute_checked) and without it (the executor as
  // it was before ir::validate: record_execute_unchecked), in one run.
  auto direct = [&](const char* name, auto execute) {
    run(
        o, name, 3,
        [&] {
          for (int i = 0; i < 1000; ++i) {
            ir::OpRecord op = add_one(next);
            (void)execute(op);
            session.release({next++});
          }
        },
        "us_per_op", [](double ms) { return ms; });
  };
  direct("record_execute_checked", [&](ir::OpRecord& op) { return ir::execute<Local>(session, op); });
  direct("record_execute_unchecked", [&](ir::OpRecord& op) { return ir::execute_float<Local>(session, op); });
  ir::OpRecord record = add_one(0);
  run(
      o, "record_validate", 3,
      [&] {
        for (int i = 0; i < 1000; ++i) ir::validate(session, record);
      },
      "us_per_op", [](double ms) { return ms; });
}

}  // namespace

template <class Local> void remote_workloads(const Options& o, remote::SessionFactory sessions) {
  InProcessServer server(std::move(sessions));
  auto device = server.device();
  Options remote = on<Remote>(o, device, "remote(" + Local::name() + ")");
  Local::seed(0);
  round_trips(remote, device);
  executor_costs<Local>(on<Local>(o, typename Local::Device{}, Local::name()));
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
