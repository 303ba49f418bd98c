// TcpStore (store.h): a blocking request/reply protocol over one TCP connection per client.
// Request: op (1 byte: 'S'et, 'G'et, 'W'ait, 'A'dd, 'H'ello), key length (u32), key, value length (u32), value.
// A store served with a token answers a connection only after its first request, a Hello, carries it as key.
// Reply: status (1 byte: 0 ok, 1 timed out), length (u32), data. Get, Wait and Add carry their timeout or delta in
// the value (8 bytes).
#include "scorch/distributed/store.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "scorch/core/error.h"
#include "scorch/core/secret.h"

namespace scorch::distributed {
namespace {

constexpr const char* kOp = "distributed::TcpStore";
constexpr uint32_t kMaxKey = 4096, kMaxValue = 64u << 20;  // a length field never allocates more
constexpr int64_t kMaxWaitMs = 86400000;                   // one day
constexpr size_t kMaxConnections = 16384;                  // open at once; more are closed at accept

bool send_all(int fd, const void* data, size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t sent = ::send(fd, p, n, MSG_NOSIGNAL);
    if (sent <= 0) return false;
    p += sent, n -= size_t(sent);
  }
  return true;
}

bool recv_all(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t got = ::recv(fd, p, n, 0);
    if (got <= 0) return false;
    p += got, n -= size_t(got);
  }
  return true;
}

bool send_block(int fd, const std::string& bytes) {
  uint32_t n = uint32_t(bytes.size());
  return send_all(fd, &n, 4) && send_all(fd, bytes.data(), bytes.size());
}

// A length-prefixed block of at most limit bytes.
bool recv_block(int fd, std::string& out, uint32_t limit) {
  uint32_t n = 0;
  if (!recv_all(fd, &n, 4) || n > limit) return false;
  out.resize(n);
  return recv_all(fd, out.data(), n);
}

int64_t read_i64(const std::string& s) {
  int64_t v = 0;
  if (s.size() == 8) std::memcpy(&v, s.data(), 8);
  return v;
}

std::string i64_bytes(int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

// The address the server listens on: host's own (loopback stays loopback); every interface only for "0.0.0.0".
in_addr_t interface_of(const std::string& host) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_INET, hints.ai_socktype = SOCK_STREAM;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || !found)
    throw IoError(kOp, "cannot resolve the store's host '" + host + "' to listen on");
  in_addr_t address = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr.s_addr;
  ::freeaddrinfo(found);
  return address;
}

}  // namespace

/// The map and the threads that serve it.
struct TcpStore::Server {
  int listener = -1;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::string> values;
  std::thread acceptor;
  std::map<int, std::thread> workers;  // by connection: a worker's fd is closed and it is joined once it ends
  std::vector<std::thread> ended;      // workers whose connection closed, joined by the acceptor (or at the end)
  bool stopping = false;
  std::string token;  // the job's: a connection's first request must present it (none: every connection is served)

  // Serves one connection until it closes.
  void serve(int fd) {
    for (bool opened = token.empty();;) {
      char op = 0;
      std::string key, value;
      // Before the token, a request is a Hello of a short key and no value: nothing larger is read.
      uint32_t key_limit = opened ? kMaxKey : 256, value_limit = opened ? kMaxValue : 0;
      if (!recv_all(fd, &op, 1) || !recv_block(fd, key, key_limit) || !recv_block(fd, value, value_limit)) break;
      if (!opened && !(op == 'H' && same_secret(key, token))) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a guess costs the guesser time
        break;
      }
      opened = true;
      char status = 0;
      std::string reply;
      {
        std::unique_lock lock(mutex);
        if (op == 'H') {
          // presented (or none asked): nothing to store
        } else if (op == 'S') values[key] = value, changed.notify_all();
        else if (op == 'A') {
          uint64_t sum =
              uint64_t(read_i64(values.count(key) ? values[key] : std::string())) + uint64_t(read_i64(value));
          // wraps at 2^63 as the counter's 64 bits would
          values[key] = reply = i64_bytes(int64_t(sum));
          changed.notify_all();
        } else {  // 'G' or 'W': wait for the key within the client's timeout
          int64_t ms = std::clamp<int64_t>(read_i64(value), 0, kMaxWaitMs);  // a client's number, bounded
          auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
          bool found = changed.wait_until(lock, until, [&] { return stopping || values.count(key) > 0; });
          if (!found || stopping) status = 1;
          else if (op == 'G') reply = values[key];
        }
      }
      if (!send_all(fd, &status, 1) || !send_block(fd, reply)) break;
    }
    std::lock_guard lock(mutex);
    ::close(fd);
    if (auto it = workers.find(fd); it != workers.end()) {  // this thread: joined later by the acceptor
      ended.push_back(std::move(it->second));
      workers.erase(it);
    }
  }

  // Joins the workers whose connections ended (a store opened and closed a million times keeps no threads).
  void join_ended() {
    std::vector<std::thread> done;
    {
      std::lock_guard lock(mutex);
      done.swap(ended);
    }
    for (auto& t : done) t.join();
  }

  void accept_loop() {
    for (;;) {
      int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);  // ranks a launcher starts inherit none
      if (fd < 0) return;                                            // the listener was shut down
      join_ended();
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard lock(mutex);
      if (stopping) {
        ::close(fd);
        return;
      }
      if (workers.size() >= kMaxConnections) {  // more connections than any job has ranks and launchers
        ::close(fd);
        continue;
      }
      workers.emplace(fd, std::thread([this, fd] { serve(fd); }));
    }
  }

  ~Server() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
      for (auto& [fd, worker] : workers) ::shutdown(fd, SHUT_RDWR);
    }
    changed.notify_all();
    ::shutdown(listener, SHUT_RDWR);
    if (acceptor.joinable()) acceptor.join();  // the acceptor first: then nothing adds workers
    if (listener >= 0) ::close(listener);
    for (;;) {  // each worker moves itself to `ended` as its connection closes
      join_ended();
      {
        std::lock_guard lock(mutex);
        if (workers.empty() && ended.empty()) break;
      }
      changed.notify_all();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
};

TcpStore::TcpStore(const std::string& host, uint16_t port, bool serve, std::chrono::milliseconds timeout,
                   const std::string& token)
    : port_(port), timeout_(timeout) {
  if (serve) {
    server_ = std::make_unique<Server>();
    server_->token = token;
    server_->listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(server_->listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET, addr.sin_port = htons(port), addr.sin_addr.s_addr = interface_of(host);
    if (::bind(server_->listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(server_->listener, 128) != 0)
      throw IoError(kOp, "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(errno) +
                             (errno == EADDRINUSE ? " (another job or program holds the port: pick another "
                                                    "--master-port, or leave it out for a free one)"
                                                  : ""));
    socklen_t len = sizeof addr;
    ::getsockname(server_->listener, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    server_->acceptor = std::thread([s = server_.get()] { s->accept_loop(); });
  }
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_INET, hints.ai_socktype = SOCK_STREAM;
  if (::getaddrinfo(host.c_str(), std::to_string(port_).c_str(), &hints, &found) != 0 || !found)
    throw IoError(kOp, "cannot resolve the store's host '" + host + "'");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    socket_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(socket_, found->ai_addr, found->ai_addrlen) == 0) break;
    ::close(socket_);
    socket_ = -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ::freeaddrinfo(found);
      throw IoError(kOp, "no store at " + host + ":" + std::to_string(port_) + " within " +
                             std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::freeaddrinfo(found);
  int one = 1;
  ::setsockopt(socket_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (token.empty()) return;
  try {
    request('H', token, {});
  } catch (const IoError&) {
    ::close(socket_);
    socket_ = -1;
    throw IoError(kOp, "the store at " + host + ":" + std::to_string(port_) +
                           " refused this job's token: every scorch-run of a job needs the same SCORCH_STORE_TOKEN");
  }
}

TcpStore::~TcpStore() {
  if (socket_ >= 0) ::close(socket_);
  server_.reset();
}

std::vector<char> TcpStore::request(char op, const std::string& key, const std::vector<char>& value) {
  if (key.size() > kMaxKey || value.size() > kMaxValue)
    throw ValueError(kOp, "key '" + key.substr(0, 64) + "' or its value is too long");
  std::string v(value.begin(), value.end()), reply;
  char status = 0;
  if (!send_all(socket_, &op, 1) || !send_block(socket_, key) || !send_block(socket_, v) ||
      !recv_all(socket_, &status, 1) || !recv_block(socket_, reply, kMaxValue))
    throw IoError(kOp, "the store closed the connection (rank 0 gone?) during '" + key + "'");
  if (status != 0) throw IoError(kOp, "key '" + key + "' not set within " + std::to_string(timeout_.count()) + " ms");
  return {reply.begin(), reply.end()};
}

void TcpStore::set(const std::string& key, const std::vector<char>& value) { request('S', key, value); }

std::vector<char> TcpStore::get(const std::string& key) {
  std::string t = i64_bytes(timeout_.count());
  return request('G', key, {t.begin(), t.end()});
}

void TcpStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::string t = i64_bytes(timeout.count());
  for (const auto& key : keys) request('W', key, {t.begin(), t.end()});
}

int64_t TcpStore::add(const std::string& key, int64_t delta) {
  std::string d = i64_bytes(delta);
  std::vector<char> sum = request('A', key, {d.begin(), d.end()});
  return read_i64(std::string(sum.begin(), sum.end()));
}

}  // namespace scorch::distributed
