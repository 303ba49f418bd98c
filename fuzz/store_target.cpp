// The rendezvous store's server under fuzzing (target store_request): the bytes are what a client sends over one
// connection — requests with any op, lengths and values — to a TcpStore served on a free loopback port; the replies
// are read until the server closes the connection. A length field past the limits must end the connection, never
// allocate it.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "fuzz/targets.h"
#include "scorch/distributed/store.h"

namespace scorch::fuzz {

void store_request(std::span<const std::byte> bytes) {
  using namespace std::chrono_literals;
  static distributed::TcpStore store("127.0.0.1", 0, true, 2s);        // one server for the whole run
  distributed::TcpStore client("127.0.0.1", store.port(), false, 2s);  // a second connection, then raw bytes on it
  int fd = client.native_socket();
  timeval wait{0, 200000};  // a Get of a key nobody sets may wait: the reply read gives up after 0.2 s
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  char buffer[4096];
  while (::recv(fd, buffer, sizeof buffer, 0) > 0) {}
}

}  // namespace scorch::fuzz
