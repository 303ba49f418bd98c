// The rendezvous store's server under fuzzing (target store_request): the bytes are what a client sends over one
// connection — requests with any op, lengths and values — to a TcpStore served on a free loopback port, with or
// without the job token that scorch-run's store asks first; the replies are read until the server closes the
// connection. A length field past the limits must end the connection, never allocate it.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "fuzz/targets.h"
#include "scorch/distributed/store.h"

namespace scorch::fuzz {

void store_request(std::span<const std::byte> bytes) {
  using namespace std::chrono_literals;
  static distributed::TcpStore store("127.0.0.1", 0, true, 2s);  // one server for the whole run
  // The rendezvous as scorch-run serves it: a job token opens each connection.
  static distributed::TcpStore guarded("127.0.0.1", 0, true, 2s, "fuzz-job-token");
  // The first byte picks the connection: the open store; the guarded one after presenting the token; the guarded
  // one with no token presented (what reaches it before the hello: a short hello or nothing).
  int mode = bytes.empty() ? 0 : std::to_integer<int>(bytes[0]) % 3;
  if (!bytes.empty()) bytes = bytes.subspan(1);
  uint16_t port = mode == 0 ? store.port() : guarded.port();
  distributed::TcpStore client("127.0.0.1", port, false, 2s, mode == 1 ? "fuzz-job-token" : "");
  int fd = client.native_socket();
  timeval wait{0, 200000};  // a Get of a key nobody sets may wait: the reply read gives up after 0.2 s
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  char buffer[4096];
  while (::recv(fd, buffer, sizeof buffer, 0) > 0) {}
}

}  // namespace scorch::fuzz
