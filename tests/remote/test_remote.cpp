// Remote against scorch-server processes on loopback: values, deferred errors and their types, the session's memory
// limit, faults (server killed, client killed), 8 clients at once, a bad token, and malformed, oversized and garbage
// messages the server answers with an error and survives.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <zmq.hpp>

#include "scorch/remote/remote.h"
#include "scorch/scorch.hpp"
#include "server_process.h"

namespace scorch {
namespace {

using std::chrono::milliseconds;
using testing::ServerProcess;
using R = Remote;

constexpr const char* kToken = "remote-test-token";
/// The servers here run Cpu whatever $SCORCH_TEST_SERVER_BACKEND says: values are compared with Cpu's exactly.
const std::vector<std::string> kCpu = {"--backend", "cpu"};

/// A connection to server with a short reply timeout.
R::Device connect(const ServerProcess& server, milliseconds timeout = milliseconds(5000)) {
  return R::connect(server.endpoint(), kToken, timeout);
}

std::vector<float> iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 17) - 3.0f;
  return v;
}

TEST(Remote, OpsRunOnTheServerWithCpuValues) {
  ServerProcess server(kToken, kCpu);
  auto device = connect(server);
  auto a_data = TensorData(iota(12, 0.5f), {3, 4});
  auto b_data = TensorData(iota(8, 0.25f), {4, 2});
  auto a = Tensor<R, 2>::from_data(a_data, device);
  auto b = Tensor<R, 2>::from_data(b_data, device);
  auto remote = (a.matmul(b).exp() + 1.0).sum_dim(1).to_data();
  auto local =
      (Tensor<Cpu, 2>::from_data(a_data).matmul(Tensor<Cpu, 2>::from_data(b_data)).exp() + 1.0).sum_dim(1).to_data();
  EXPECT_EQ(remote.shape(), (Shape{3, 1}));
  EXPECT_EQ(remote.to_vector<float>(), local.to_vector<float>());
  EXPECT_EQ(a.device(), device);
  EXPECT_EQ(device.to_string(), "Remote(" + server.endpoint() + ")");
}

TEST(Remote, AnOpsErrorComesBackAtTheNextReadWithItsType) {
  ServerProcess server(kToken, kCpu);
  auto device = connect(server);
  auto x = Tensor<R, 1>::from_data(TensorData(std::vector<float>{1, 2, 3}, {3}), device);
  auto bad = Tensor<R, 1, Int>::from_data(TensorData(std::vector<int64_t>{0, 7}, {2}), device);
  auto picked = x.select(0, bad);  // index 7 is out of range: the server's Cpu kernel raises
  try {
    picked.to_data();
    FAIL() << "an out-of-range index must raise";
  } catch (const ShapeError& e) {  // Cpu's select raises a ShapeError; it comes back as one
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
  // The session goes on serving.
  EXPECT_EQ((x * 2.0).to_data().to_vector<float>(), (std::vector<float>{2, 4, 6}));
}

TEST(Remote, TheSessionsMemoryLimitIsAnErrorNotACrash) {
  ServerProcess server(kToken, {"--backend", "cpu", "--session-memory-mb", "1"});
  auto device = connect(server);
  auto small = Tensor<R, 1>::ones({1000}, device);
  EXPECT_THROW((Tensor<R, 1>::zeros({1 << 20}, device).to_data()), ValueError);  // 4 MiB > 1 MiB
  // Results far larger than their operands are refused before the server allocates them.
  auto column = Tensor<R, 2>::ones({4096, 1}, device), row = Tensor<R, 2>::ones({1, 4096}, device);
  for (auto* make : {+[](Tensor<R, 2> c, Tensor<R, 2> r) { return c + r; },
                     +[](Tensor<R, 2> c, Tensor<R, 2> r) { return c.matmul(r); }}) {
    try {
      (void)make(column, row).to_data();
      FAIL() << "a 4096 x 4096 result must exceed a 1 MiB session";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("exceeds the session's memory limit"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(small.sum().into_scalar().to_double(), 1000.0);
}

TEST(Remote, TensorsOnTwoServersMeetOnlyThroughToDevice) {
  ServerProcess first(kToken, kCpu), second(kToken, kCpu);
  auto on_first = connect(first);
  auto a = Tensor<R, 1>::ones({4}, on_first);
  auto b = Tensor<R, 1>::ones({4}, connect(second));
  try {
    (void)(a + b);
    FAIL() << "operands on two servers must raise";
  } catch (const DeviceError& e) { EXPECT_NE(std::string(e.what()).find("two servers"), std::string::npos); }
  auto moved = b.to_device(on_first);
  EXPECT_EQ((a + moved).to_data().to_vector<float>(), (std::vector<float>{2, 2, 2, 2}));
  // A new connection to the same server is a new session: its tensors do not mix with the old one's.
  auto again = Tensor<R, 1>::ones({4}, connect(first));
  EXPECT_THROW((void)(a + again), DeviceError);
}

TEST(Remote, ABadTokenIsRefused) {
  ServerProcess server(kToken, kCpu);
  auto device = R::connect(server.endpoint(), "wrong-token", milliseconds(5000));
  try {
    Tensor<R, 1>::ones({2}, device);
    FAIL() << "a bad token must be refused";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("the server refused the token; set SCORCH_REMOTE_TOKEN"), std::string::npos)
        << e.what();
  }
}

TEST(Remote, AKilledServerIsADeviceErrorWithinTheTimeout) {
  ServerProcess server(kToken, kCpu);
  auto device = connect(server, milliseconds(1500));
  auto x = Tensor<R, 2>::ones({64, 64}, device);
  EXPECT_EQ(x.sum().into_scalar().to_double(), 4096.0);
  server.kill();
  auto start = std::chrono::steady_clock::now();
  auto stream = [&] {
    for (int i = 0; i < 10; ++i) x = x.matmul(x);  // ops sent to no one
    return x.to_data();
  };
  EXPECT_THROW(stream(), DeviceError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_THROW((Tensor<R, 1>::ones({2}, device).to_data()), DeviceError);  // nobody serves there any more
}

/// Runs body in a child process (its own connection); true when it exits with status 0.
template <class Fn> pid_t spawn(Fn body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int status = 1;
    try {
      status = body() ? 0 : 1;
    } catch (...) {}
    _exit(status);
  }
  return pid;
}

bool exited_cleanly(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

remote::ServerStats stats_of(const R::Device& device) { return remote::Client::of(device)->stats(); }

TEST(Remote, AKilledClientsTensorsAreFreed) {
  ServerProcess server(kToken, kCpu);
  auto device = connect(server);
  ASSERT_EQ(stats_of(device).tensors, 0u);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  // The child reaches the server by another name, so it opens its own connection.
  std::string other = "tcp://localhost:" + server.endpoint().substr(server.endpoint().rfind(':') + 1);
  pid_t child = ::fork();
  if (child == 0) {
    try {
      auto mine = R::connect(other, kToken, milliseconds(5000));
      auto big = Tensor<R, 2>::ones({512, 1024}, mine);  // 2 MiB
      Remote::sync(mine);
      char c = 'r';
      (void)!write(ready[1], &c, 1);
      for (int i = 0; i < 1000; ++i) big = big * 1.0001;  // mid-stream when it dies
      kill(getpid(), SIGKILL);
    } catch (...) {}
    _exit(1);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  EXPECT_GE(stats_of(device).bytes, uint64_t{2} << 20);
  waitpid(child, nullptr, 0);
  remote::ServerStats now{};
  for (int i = 0; i < 100; ++i) {
    now = stats_of(device);
    if (now.sessions == 1 && now.bytes == 0) break;
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(now.sessions, 1u) << "the killed client's session must be closed";
  EXPECT_EQ(now.tensors, 0u);
  EXPECT_EQ(now.bytes, 0u);
  close(ready[0]);
}

TEST(Remote, EightClientsAtOnceAreIsolated) {
  ServerProcess server(kToken, kCpu);
  std::vector<pid_t> children;
  for (int client = 0; client < 8; ++client)
    children.push_back(spawn([&, client] {
      auto device = R::connect(server.endpoint(), kToken, milliseconds(20000));
      auto data = TensorData(iota(64, 0.1f * static_cast<float>(client + 1)), {8, 8});
      auto x = Tensor<R, 2>::from_data(data, device);  // every client's first ids are the same numbers
      auto expected = Tensor<Cpu, 2>::from_data(data);
      for (int step = 0; step < 50; ++step) {
        x = (x.matmul(x.transpose()) * 0.01 + 0.5).tanh();
        expected = (expected.matmul(expected.transpose()) * 0.01 + 0.5).tanh();
        if (step % 10 == 9 && x.to_data().to_vector<float>() != expected.to_data().to_vector<float>()) return false;
      }
      return true;
    }));
  for (pid_t child : children) EXPECT_TRUE(exited_cleanly(child));
}

/// Sends bytes on a raw DEALER socket and returns the server's reply.
remote::Reply raw_exchange(zmq::socket_t& socket, const std::vector<std::byte>& bytes) {
  socket.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
  zmq::message_t reply;
  EXPECT_TRUE(socket.recv(reply, zmq::recv_flags::none)) << "the server must answer";
  return remote::decode_reply({static_cast<const std::byte*>(reply.data()), reply.size()});
}

TEST(Remote, MalformedOversizedAndGarbageMessagesGetAnErrorAndTheServerGoesOn) {
  ServerProcess server(kToken, {"--backend", "cpu", "--max-message-mb", "1"});
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::rcvtimeo, 5000);
  socket.set(zmq::sockopt::linger, 0);
  testing::present_token(socket, kToken);
  socket.connect(server.endpoint());
  auto expect_error = [&](const std::vector<std::byte>& bytes, const std::string& what) {
    remote::Reply reply = raw_exchange(socket, bytes);
    EXPECT_EQ(reply.kind, remote::ReplyKind::Error) << what;
    EXPECT_NE(reply.error_what.find(what), std::string::npos) << reply.error_what;
  };
  expect_error({std::byte{0xc1}, std::byte{0xff}}, "decode_message");
  expect_error(std::vector<std::byte>((1 << 20) + 1024, std::byte{0x90}), "exceeds the limit");
  remote::Request sync;
  auto other_version = remote::encode_request(sync);
  other_version[1] = std::byte{0x7f};  // [version, ...]: version 127
  expect_error(other_version, "protocol version 127");
  expect_error(remote::encode_request(sync), "no session");  // no hello yet
  remote::Request hello;
  hello.kind = remote::RequestKind::Hello;
  hello.token = kToken;
  EXPECT_EQ(raw_exchange(socket, remote::encode_request(hello)).kind, remote::ReplyKind::Ok);
  // A truncated op gets no reply of its own: its error is the session's next reply.
  remote::Request op;
  op.kind = remote::RequestKind::Op;
  op.record = ir::records::FloatZeros{Shape{2}, ir::DeviceIr{"Cpu"}, DType::F32, {ir::TensorIr{1, {}, {}}}};
  auto truncated = remote::encode_request(op);
  truncated.resize(truncated.size() - 3);
  socket.send(zmq::buffer(truncated.data(), truncated.size()), zmq::send_flags::none);
  expect_error(remote::encode_request(sync), "decode_op");
  // The server still serves well-formed clients.
  auto device = connect(server);
  EXPECT_EQ((Tensor<R, 1>::ones({3}, device).sum().into_scalar().to_double()), 3.0);
}

}  // namespace
}  // namespace scorch
