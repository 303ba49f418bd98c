// Hostile op records sent straight to a real scorch-server (a client that skips the front end's checks): each one the
// issue's campaign used to read or write server memory, crash or hang the server is refused with an error naming
// the op, the session goes on, and the server keeps serving other clients. Results over the session's limit are
// refused before they are made, every tensor's bookkeeping counts against it, and wrong tokens are answered slower
// and slower.
#include <gtest/gtest.h>

#include <utility>
#include <thread>
#include <fstream>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "scorch/remote/protocol.h"
#include "scorch/remote/remote.h"
#include "scorch/scorch.hpp"
#include "server_process.h"
#include "support/expect_error.h"

namespace scorch {
namespace {

using testing::ServerProcess;
namespace rec = ir::records;
constexpr const char* kHostileToken = "hostile-records-token";
constexpr size_t kHuge = size_t{1} << 40;

/// A raw session on a server: records go as they are, with no front end in between.
class RawClient {
 public:
  explicit RawClient(const std::string& endpoint) : socket_(context_, zmq::socket_type::dealer) {
    socket_.set(zmq::sockopt::rcvtimeo, 10000);
    socket_.set(zmq::sockopt::linger, 0);
    testing::present_token(socket_, kHostileToken);
    socket_.connect(endpoint);
    remote::Request hello;
    hello.kind = remote::RequestKind::Hello;
    hello.token = kHostileToken;
    EXPECT_EQ(exchange(hello).kind, remote::ReplyKind::Ok);
  }
  /// Sends record with fresh output ids (an op has no reply of its own).
  template <class R> std::vector<uint64_t> op(R record) {
    std::vector<uint64_t> ids;
    for (ir::TensorIr& o : record.out) ids.push_back(o.id = next_id_++);
    remote::Request request;
    request.kind = remote::RequestKind::Op;
    request.record = ir::OpRecord(std::move(record));
    request.drops = std::exchange(drops_, {});
    auto bytes = remote::encode_request(request);
    socket_.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
    return ids;
  }
  /// A tensor of zeros of shape and dtype on the server: its id.
  uint64_t zeros(Shape shape, DType dtype = DType::F32) {
    if (is_float(dtype)) return op(rec::FloatZeros{std::move(shape), {"Cpu"}, dtype, {}})[0];
    if (is_bool(dtype)) return op(rec::BoolZeros{std::move(shape), {"Cpu"}, dtype, {}})[0];
    return op(rec::IntZeros{std::move(shape), {"Cpu"}, dtype, {}})[0];
  }
  /// Waits for the ops sent so far: the first error among them, or Ok.
  remote::Reply sync() { return exchange(remote::Request{}); }
  /// Tells the server, with the next message, that the client no longer holds tensor id.
  void drop(uint64_t id) { drops_.push_back(id); }

 private:
  remote::Reply exchange(remote::Request request) {
    request.drops = std::exchange(drops_, {});
    auto bytes = remote::encode_request(request);
    socket_.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
    zmq::message_t reply;
    if (!socket_.recv(reply, zmq::recv_flags::none)) throw std::runtime_error("the server did not answer");
    return remote::decode_reply({static_cast<const std::byte*>(reply.data()), reply.size()});
  }

  zmq::context_t context_;
  zmq::socket_t socket_;
  uint64_t next_id_ = 1;
  std::vector<uint64_t> drops_;
};

ir::TensorIr t(uint64_t id) { return ir::TensorIr{id, {}, {}}; }

class HostileRecords : public ::testing::Test {
 protected:
  HostileRecords()
      : server_(kHostileToken, {"--backend", "cpu", "--session-memory-mb", "64"}), client_(server_.endpoint()) {}

  /// Sends record; the next sync must be an error naming op, then the session must answer Ok again.
  template <class R> void refused(R record, const std::string& op) {
    client_.op(std::move(record));
    remote::Reply reply = client_.sync();
    EXPECT_EQ(reply.kind, remote::ReplyKind::Error) << op << " must be refused";
    EXPECT_NE(reply.error_what.find(op), std::string::npos) << reply.error_what;
    EXPECT_EQ(client_.sync().kind, remote::ReplyKind::Ok) << "the session goes on after " << op;
  }
  bool server_alive() {
    int status = 0;
    return waitpid(server_.pid(), &status, WNOHANG) == 0;
  }
  void TearDown() override {
    EXPECT_TRUE(server_alive()) << "the server must survive every record";
    auto device = Remote::connect(server_.endpoint(), kHostileToken, std::chrono::milliseconds(5000));
    double total = Tensor<Remote, 1>::ones({3}, device).sum().into_scalar().to_double();
    EXPECT_EQ(total, 3.0) << "the server must keep serving other clients";
  }

  ServerProcess server_;
  RawClient client_;
};

TEST_F(HostileRecords, MatmulOfMismatchedInnerDimsReadsNothing) {
  uint64_t a = client_.zeros({64, 64}), b = client_.zeros({1, 1});
  refused(rec::FloatMatmul{t(a), t(b), {}}, "float_matmul");
  uint64_t scalar = client_.zeros({}), rank4 = client_.zeros({2, 2, 2, 2});
  refused(rec::FloatMatmul{t(scalar), t(rank4), {}}, "float_matmul");
}

TEST_F(HostileRecords, SliceAssignOutsideTheTensorWritesNothing) {
  uint64_t x = client_.zeros({2, 3}), values = client_.zeros({4096, 3});
  refused(rec::FloatSliceAssign{t(x), {{2, 4098, 1}, {0, 3, 1}}, t(values), {}}, "float_slice_assign");
  uint64_t ints = client_.zeros({2, 3}, DType::I64), big = client_.zeros({2, 3}, DType::I64);
  refused(rec::IntSliceAssign{t(ints), {{0, kHuge, 1}, {0, 3, 1}}, t(big), {}}, "int_slice_assign");
}

TEST_F(HostileRecords, EmptyCatIsAnError) {
  refused(rec::FloatCat{{}, 0, {}}, "float_cat");
  refused(rec::IntCat{{}, 0, {}}, "int_cat");
}

TEST_F(HostileRecords, DimsFarOutOfRangeAreErrors) {
  uint64_t x = client_.zeros({2, 3});
  for (size_t dim : {size_t{1} << 31, kHuge}) {
    refused(rec::FloatSoftmax{t(x), dim, {}}, "float_softmax");
    refused(rec::FloatCumsum{t(x), dim, {}}, "float_cumsum");
    refused(rec::FloatArgmin{t(x), dim, {}}, "float_argmin");
    refused(rec::FloatMaxDimWithIndices{t(x), dim, {}}, "float_max_dim_with_indices");
  }
  uint64_t ints = client_.zeros({2, 3}, DType::I64);
  refused(rec::IntPermute{t(ints), {0, 7}, {}}, "int_permute");
  refused(rec::FloatRepeatDim{t(x), 0, kHuge, {}}, "float_repeat_dim");
}

TEST_F(HostileRecords, WindowsWithZeroSizesOrStridesAreErrors) {
  uint64_t x = client_.zeros({2, 3, 8});
  refused(rec::FloatUnfold{t(x), 2, 0, 0, {}}, "float_unfold");
  uint64_t image = client_.zeros({1, 2, 8, 8}), w = client_.zeros({2, 2, 3, 3});
  ConvSpec groups_0{{1, 1}, {0, 0}, {1, 1}, {0, 0}, 0};
  ConvSpec stride_0{{0, 0}, {0, 0}, {1, 1}, {0, 0}, 1};
  refused(rec::ModuleConv{t(image), t(w), std::nullopt, groups_0, {}}, "module_conv");
  refused(rec::ModuleConv{t(image), t(w), std::nullopt, stride_0, {}}, "module_conv");
  PoolSpec pool_stride_0{{2, 2}, {0, 0}, {0, 0}, {1, 1}, false, true};
  refused(rec::ModuleMaxPool{t(image), pool_stride_0, {}}, "module_max_pool");
  PoolSpec empty_kernel{{}, {1, 1}, {0, 0}, {1, 1}, false, true};
  refused(rec::ModuleAvgPool{t(image), empty_kernel, {}}, "module_avg_pool");
  PoolSpec huge_padding{{2, 2}, {1, 1}, {kHuge, kHuge}, {1, 1}, false, true};
  refused(rec::ModuleMaxPool{t(image), huge_padding, {}}, "module_max_pool");  // was a hang
  refused(rec::ModuleInterpolate{t(image), InterpolateSpec{{}, InterpolateMode::Nearest, false}, {}},
          "module_interpolate");
}

TEST_F(HostileRecords, ModuleOpsOfTheWrongRankAreErrors) {
  uint64_t x = client_.zeros({4, 3}), weight = client_.zeros({3});
  refused(rec::ModuleLinear{t(x), t(weight), std::nullopt, false, {}}, "module_linear");
  uint64_t scalar = client_.zeros({});
  refused(rec::ModuleAdaptiveAvgPool{t(scalar), SpatialDims{2, 2}, {}}, "module_adaptive_avg_pool");
}

TEST_F(HostileRecords, OperandsOfTheWrongKindOrUnknownIdsAreErrors) {
  uint64_t ints = client_.zeros({2, 2}, DType::I64), floats = client_.zeros({2, 2});
  refused(rec::FloatExp{t(ints), {}}, "float_exp");
  refused(rec::FloatAdd{t(floats), t(999), {}}, "float_add");
  uint64_t f64 = client_.zeros({2, 2}, DType::F64);
  refused(rec::FloatAdd{t(floats), t(f64), {}}, "float_add");  // one dtype per elementwise op
  refused(rec::FloatCast{t(floats), DType::I64, {}}, "float_cast");
}

TEST_F(HostileRecords, ResultsOverTheLimitAreRefusedBeforeTheyAreMade) {
  uint64_t block = client_.zeros({4096, 1024});  // 16 MiB of a 64 MiB session
  rec::FloatCat cat{std::vector<ir::TensorIr>(8, t(block)), 0, {}};
  client_.op(std::move(cat));
  remote::Reply reply = client_.sync();
  EXPECT_EQ(reply.kind, remote::ReplyKind::Error);
  EXPECT_NE(reply.error_what.find("memory limit"), std::string::npos) << reply.error_what;
  uint64_t indices = client_.zeros({1 << 16}, DType::I64);
  refused(rec::FloatSelect{t(block), 1, t(indices), {}}, "float_select");  // [4096, 65536]: 1 GiB
}

TEST(RemoteLimits, EmptyTensorsCountAgainstTheLimit) {
  ServerProcess server(kHostileToken, {"--backend", "cpu", "--session-memory-mb", "1"});
  RawClient client(server.endpoint());
  for (int i = 0; i < 5000; ++i) client.zeros({0});  // 5,000 × 256 bytes of bookkeeping > 1 MiB
  remote::Reply reply = client.sync();
  EXPECT_EQ(reply.kind, remote::ReplyKind::Error);
  EXPECT_NE(reply.error_what.find("memory limit"), std::string::npos) << reply.error_what;
}

TEST(RemoteLimits, AKeptSliceIsChargedItsWholeBuffer) {
  ServerProcess server(kHostileToken, {"--backend", "cpu", "--session-memory-mb", "64"});
  RawClient client(server.endpoint());
  // 40 × (a 16 MB tensor, keep a 1-element slice of it, drop the tensor) held 650 MB under a 64 MB limit.
  std::vector<uint64_t> slices;
  for (int i = 0; i < 40; ++i) {
    uint64_t big = client.zeros({size_t{4} << 20});
    uint64_t slice = client.op(rec::FloatSlice{t(big), {{0, 1, 1}}, {}})[0];
    client.drop(big);
    remote::Reply reply = client.sync();
    if (reply.kind == remote::ReplyKind::Error) {
      EXPECT_NE(reply.error_what.find("memory limit"), std::string::npos) << reply.error_what;
      break;
    }
    slices.push_back(slice);
  }
  EXPECT_LE(slices.size(), 3u) << "each kept slice holds its 16 MB buffer: 64 MB hold fewer than 4 with a new one";
  EXPECT_GE(slices.size(), 2u);
  // Dropping the slices frees their buffers: the session holds 16 MB tensors again.
  for (uint64_t id : slices) client.drop(id);
  EXPECT_EQ(client.sync().kind, remote::ReplyKind::Ok);
  for (int i = 0; i < 2; ++i) client.zeros({size_t{4} << 20});  // (creation ops are checked at 8 bytes a value)
  remote::Reply after = client.sync();
  EXPECT_EQ(after.kind, remote::ReplyKind::Ok) << after.error_what;
}

/// A raw DEALER socket presenting token in the handshake (no lingering on close).
zmq::socket_t dealer(zmq::context_t& context, const std::string& token) {
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  testing::present_token(socket, token);
  return socket;
}

/// The server process's resident memory in KiB (VmRSS).
long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

TEST(RemoteHello, NothingIsReadFromAPeerBeforeItPresentsTheToken) {
  ServerProcess server(kHostileToken, {"--backend", "cpu"});
  long before = resident_kib(server.pid());
  // Six raw connections without the token each send a 256 MiB message (1 GiB messages held 3.3 GB before).
  zmq::context_t context;
  std::vector<zmq::socket_t> peers;
  std::vector<std::byte> big(size_t{256} << 20, std::byte{0x90});
  for (int i = 0; i < 6; ++i) {
    peers.emplace_back(context, zmq::socket_type::dealer);
    peers.back().set(zmq::sockopt::linger, 0);
    peers.back().set(zmq::sockopt::sndtimeo, 200);
    if (i % 2) testing::present_token(peers.back(), "a-guess");  // a wrong token, or no PLAIN credentials at all
    peers.back().connect(server.endpoint());
    (void)peers.back().send(zmq::buffer(big.data(), big.size()), zmq::send_flags::dontwait);
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  long after = resident_kib(server.pid());
  EXPECT_LT(after - before, 64 * 1024) << "the server grew from " << before << " KiB to " << after << " KiB";
  for (auto& peer : peers) {
    peer.set(zmq::sockopt::rcvtimeo, 100);
    zmq::message_t reply;
    EXPECT_FALSE(peer.recv(reply, zmq::recv_flags::none)) << "a peer without the token hears nothing";
  }
  RawClient client(server.endpoint());  // the right token is served at once
  EXPECT_EQ(client.sync().kind, remote::ReplyKind::Ok);
}

TEST(RemoteLimits, ConnectionsPastTheLimitAreRefusedInTheHandshake) {
  ServerProcess server(kHostileToken, {"--backend", "cpu", "--max-connections", "2"});
  auto first = std::make_unique<RawClient>(server.endpoint());
  RawClient second(server.endpoint());
  // A third connection with the right token is told the server is full (ZAP 300), not that its token is wrong.
  auto third = [&] { remote::Client(server.endpoint(), {kHostileToken, std::chrono::milliseconds(5000)}); };
  testing::expect_error_mentions<DeviceError>(third, {"as many connections as it takes", "--max-connections"});
  // Once a connection closes, its place is free again.
  first.reset();
  bool admitted = false;
  for (int attempt = 0; attempt < 40 && !admitted; ++attempt) {
    try {
      third();
      admitted = true;
    } catch (const DeviceError&) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }
  }
  EXPECT_TRUE(admitted);
  EXPECT_EQ(second.sync().kind, remote::ReplyKind::Ok);
}

TEST(RemoteLimits, AConnectionSilentPastItsAdmissionIsRefusedAtItsFirstMessageWhenFull) {
  ServerProcess server(kHostileToken, {"--backend", "cpu", "--max-connections", "1"});
  zmq::context_t context;
  zmq::socket_t silent = dealer(context, kHostileToken);
  silent.set(zmq::sockopt::rcvtimeo, 5000);
  silent.connect(server.endpoint());
  std::this_thread::sleep_for(std::chrono::milliseconds(5300));  // its admission lapses after 5 s without a message
  RawClient active(server.endpoint());                           // takes the one place
  remote::Request hello;
  hello.kind = remote::RequestKind::Hello;
  hello.token = kHostileToken;
  auto bytes = remote::encode_request(hello);
  silent.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
  zmq::message_t reply;
  ASSERT_TRUE(silent.recv(reply, zmq::recv_flags::none));
  remote::Reply answer = remote::decode_reply({static_cast<const std::byte*>(reply.data()), reply.size()});
  EXPECT_EQ(answer.kind, remote::ReplyKind::Error);
  EXPECT_NE(answer.error_what.find("--max-connections 1"), std::string::npos) << answer.error_what;
  EXPECT_EQ(active.sync().kind, remote::ReplyKind::Ok);
}

TEST(RemoteHello, WrongTokensInTheHandshakeAreAnsweredSlowerAndSlower) {
  ServerProcess server(kHostileToken, {"--backend", "cpu"});
  zmq::context_t context;
  zmq::socket_t guesser = dealer(context, "a-guess");
  guesser.set(zmq::sockopt::reconnect_ivl, 20);  // libzmq retries the handshake every 20 ms
  const std::string monitor_endpoint = "inproc://hostile-guesser";
  zmq_socket_monitor(guesser.handle(), monitor_endpoint.c_str(), ZMQ_EVENT_HANDSHAKE_FAILED_AUTH);
  zmq::socket_t monitor(context, zmq::socket_type::pair);
  monitor.set(zmq::sockopt::rcvtimeo, 100);
  monitor.connect(monitor_endpoint);
  guesser.connect(server.endpoint());
  int refusals = 0;
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2); std::chrono::steady_clock::now() < end;) {
    zmq::message_t event;
    if (!monitor.recv(event, zmq::recv_flags::none)) continue;
    if (event.more()) (void)monitor.recv(event, zmq::recv_flags::none);
    else continue;
    ++refusals;
  }
  EXPECT_GE(refusals, 1);
  EXPECT_LE(refusals, 8) << "handshakes retried every 20 ms for 2 s: the throttle answers a few";
  zmq_socket_monitor(guesser.handle(), nullptr, 0);
  RawClient client(server.endpoint());  // the right token is never held back
  EXPECT_EQ(client.sync().kind, remote::ReplyKind::Ok);
}

TEST(RemoteHello, WrongTokensAreAnsweredSlowerAndSlower) {
  ServerProcess server(kHostileToken, {"--backend", "cpu"});
  zmq::context_t context;
  zmq::socket_t socket = dealer(context, kHostileToken);
  socket.connect(server.endpoint());
  // Connected first (the handshake done): a request without a session is answered at once.
  socket.set(zmq::sockopt::rcvtimeo, 10000);
  auto no_session = remote::encode_request(remote::Request{});
  socket.send(zmq::buffer(no_session.data(), no_session.size()), zmq::send_flags::none);
  zmq::message_t first;
  ASSERT_TRUE(socket.recv(first, zmq::recv_flags::none));
  remote::Request hello;
  hello.kind = remote::RequestKind::Hello;
  hello.token = "a-guess";
  auto bytes = remote::encode_request(hello);
  for (int i = 0; i < 200; ++i) socket.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
  socket.set(zmq::sockopt::rcvtimeo, 1000);
  int answered = 0;
  for (zmq::message_t reply; socket.recv(reply, zmq::recv_flags::none);) ++answered;
  EXPECT_GE(answered, 1);
  EXPECT_LE(answered, 5) << "200 wrong hellos in a burst: at most a few answers in a second";
  // The right token is never held back.
  RawClient client(server.endpoint());
  EXPECT_EQ(client.sync().kind, remote::ReplyKind::Ok);
}

}  // namespace
}  // namespace scorch
