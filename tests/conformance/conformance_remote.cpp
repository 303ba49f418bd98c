// The conformance suite on Remote: every case runs on a scorch-server over Cpu that this binary starts on loopback
// (tests/remote/server_process.h); ops stream to it as IR records and values come back as PyTorch's.
#include <cstdlib>

#include "../remote/server_process.h"
#include "runner.h"

namespace scorch::conformance {
namespace {

/// The server every case talks to, and the environment that points Remote's default device at it.
class RemoteServerEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    server_ = std::make_unique<testing::ServerProcess>("conformance-token");
    setenv("SCORCH_REMOTE_ENDPOINT", server_->endpoint().c_str(), 1);
    setenv("SCORCH_REMOTE_TOKEN", "conformance-token", 1);
  }
  void TearDown() override { server_.reset(); }

 private:
  std::unique_ptr<testing::ServerProcess> server_;
};

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new RemoteServerEnvironment);

SCORCH_CONFORMANCE_SUITE(RemoteConformance, Remote)
}  // namespace
}  // namespace scorch::conformance
