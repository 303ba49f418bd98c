#pragma once
// A scorch-server child process on loopback for tests: started with a free port and a token, stopped (or killed)
// on request or destruction. SCORCH_SERVER_PATH names the binary (tests/CMakeLists.txt); it serves Cpu, or the
// backend $SCORCH_TEST_SERVER_BACKEND names (cuda on a GPU machine).
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <zmq.hpp>

namespace scorch::testing {

/// Gives a raw DEALER socket the credentials of scorch-server's ZeroMQ PLAIN handshake (the token as password), as
/// remote::Client does; without them the server never reads the socket's messages.
inline void present_token(zmq::socket_t& socket, const std::string& token) {
  socket.set(zmq::sockopt::plain_username, std::string("scorch"));
  socket.set(zmq::sockopt::plain_password, token);
}

class ServerProcess {
 public:
  /// Starts scorch-server with token and extra flags; waits for the line naming its endpoint.
  explicit ServerProcess(const std::string& token, std::vector<std::string> flags = {}) {
    // Everything the child needs is made before fork: a process with threads may only exec after it.
    const char* backend = std::getenv("SCORCH_TEST_SERVER_BACKEND");
    std::vector<std::string> args = {SCORCH_SERVER_PATH, "--bind", "tcp://127.0.0.1:*", "--backend",
                                     backend && *backend ? backend : "cpu"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<std::string> env = {"SCORCH_SERVER_TOKEN=" + token};
    for (char** e = environ; *e; ++e)
      if (std::string(*e).rfind("SCORCH_SERVER_TOKEN=", 0) != 0) env.emplace_back(*e);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    for (auto& e : env) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    auto at = line.rfind(" on ");
    if (at == std::string::npos) {
      kill();
      throw std::runtime_error("scorch-server did not start: '" + line + "'");
    }
    endpoint_ = line.substr(at + 4);
  }
  ~ServerProcess() { stop(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  const std::string& endpoint() const { return endpoint_; }
  /// SIGKILL: the server dies mid-stream.
  /// The server's process id (-1 once it was stopped).
  pid_t pid() const { return pid_; }
  void kill() { end(SIGKILL); }
  /// SIGTERM: the server stops serving and exits.
  void stop() { end(SIGTERM); }

 private:
  void end(int signal) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  pid_t pid_ = -1;
  std::string endpoint_;
};

}  // namespace scorch::testing
