#pragma once
// scorch-server's loop (scorch/remote/README.md): a ZeroMQ ROUTER socket serving clients' sessions, each over the
// backend the server was started with. A session opens with the shared token; it is freed when its client
// disconnects or says bye. Malformed, oversized or unauthenticated messages get an error reply (or, for an op,
// the session's next reply) and the server keeps serving.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scorch/remote/protocol.h"

namespace scorch::remote {

/// Whether a request of kind gets a reply (ops and seeds do not).
constexpr bool expects_reply(RequestKind kind) { return kind != RequestKind::Op && kind != RequestKind::Seed; }

/// One client's state on the server (a Session over the server's backend).
class SessionBase {
 public:
  virtual ~SessionBase() = default;
  /// Frees the tensors ids names (unknown ids are ignored).
  virtual void release(const std::vector<uint64_t>& ids) = 0;
  /// Runs request (its drops released already); the reply to send, none for an op or a seed.
  virtual std::optional<Reply> handle(Request& request) = 0;
  /// Notes error as the reply owed for an op or seed that could not be read (sent with the next reply).
  virtual void fail_op(Reply error) = 0;
  virtual uint64_t tensors() const = 0;
  virtual uint64_t bytes() const = 0;
};

/// A new session over the server's backend and device, limited to memory_limit bytes of tensors.
using SessionFactory = std::function<std::unique_ptr<SessionBase>(uint64_t memory_limit)>;

struct ServerOptions {
  /// Where to listen: a ZeroMQ endpoint ("tcp://127.0.0.1:7878"; port * picks a free one).
  std::string endpoint = "tcp://127.0.0.1:7878";
  /// The token a client's hello must carry; a server refuses to start without one.
  std::string token;
  /// Larger messages get an error reply (ZeroMQ cuts off a connection sending one over this plus 64 KiB).
  uint64_t max_message_bytes = uint64_t{1} << 30;
  /// Each session's tensors may take this many bytes.
  uint64_t session_memory_bytes = uint64_t{8} << 30;
  /// Hellos beyond this many open sessions are refused.
  uint64_t max_sessions = 64;
  /// Handshakes beyond this many open connections that presented the token are refused ("the server is full"), as
  /// is a connection's first message when that many others sent theirs.
  /// With kQueuedMessages a connection, what the server may hold unread is at most max_connections ×
  /// kQueuedMessages × max_message_bytes.
  uint64_t max_connections = 128;
  /// Messages ZeroMQ queues for one connection before it stops reading its socket.
  static constexpr int kQueuedMessages = 32;
};

class Server {
 public:
  /// Binds options.endpoint; throws DeviceError when it cannot, ValueError without a token or on a non-loopback
  /// endpoint unless allow_remote.
  Server(ServerOptions options, SessionFactory factory, bool allow_remote = false);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The endpoint bound (with the port chosen for *).
  std::string endpoint() const;
  /// Serves until stop() (from any thread or a signal handler).
  void run();
  void stop() { stopping_ = true; }
  /// What every session holds now.
  ServerStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::atomic<bool> stopping_{false};
};

/// A session factory over Cpu (the default device).
SessionFactory cpu_sessions();
/// A session factory over Cuda (device 0); defined where the Cuda backend is built (SCORCH_HAVE_CUDA).
SessionFactory cuda_sessions();

}  // namespace scorch::remote
