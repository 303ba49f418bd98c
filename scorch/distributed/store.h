#pragma once
// The rendezvous store of a distributed run, as PyTorch's TCPStore: rank 0 serves a key-value map over TCP, every
// rank sets and reads keys (blocking until they exist, within a timeout). Process groups exchange their addresses
// through it. A job token, when given, opens each connection.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace scorch::distributed {

/// A client of the store (and, on the rank that hosts it, the server too).
class TcpStore {
 public:
  /// Connects to host:port, retrying until timeout; with serve, first listens on port and serves the map from a
  /// background thread for as long as this object lives. Throws IoError naming host and port. With a token (the
  /// job's: scorch-run's $SCORCH_STORE_TOKEN), a served store answers only connections whose first request presents
  /// it, and this client presents it; a refused one is an IoError saying so.
  TcpStore(const std::string& host, uint16_t port, bool serve, std::chrono::milliseconds timeout,
           const std::string& token = "");
  ~TcpStore();
  TcpStore(const TcpStore&) = delete;
  TcpStore& operator=(const TcpStore&) = delete;

  /// Stores value under key (replacing it).
  void set(const std::string& key, const std::vector<char>& value);
  /// The value under key, waiting until some rank sets it; IoError naming the key after the timeout.
  std::vector<char> get(const std::string& key);
  /// Waits until every key exists; IoError naming the first missing key after timeout.
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
  /// Adds delta to the integer under key (0 when absent) and returns the sum: counters, barriers.
  int64_t add(const std::string& key, int64_t delta);
  std::chrono::milliseconds timeout() const { return timeout_; }
  /// The port the server listens on (the one asked for, or the one the OS gave for port 0).
  uint16_t port() const { return port_; }
  /// The client connection's socket (the store's fuzz target writes raw requests on it).
  int native_socket() const { return socket_; }

 private:
  struct Server;
  std::vector<char> request(char op, const std::string& key, const std::vector<char>& value);
  std::unique_ptr<Server> server_;
  int socket_ = -1;
  uint16_t port_;
  std::chrono::milliseconds timeout_;
};

}  // namespace scorch::distributed
