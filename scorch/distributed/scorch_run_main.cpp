// scorch-run: starts a program once per rank on this machine, with torchrun's environment (RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and the rendezvous store served by the launcher itself
// (SCORCH_STORE_SERVED=1, a port the OS picks unless --master-port). When a rank exits with an error or a signal,
// the others are stopped and scorch-run exits with that rank's code, naming it: no rank waits for a dead peer.
// Across machines, one scorch-run per machine: --nnodes M --node-rank R --master host:port; node 0's serves the store
// at host:port, node R's ranks are R·N ... R·N + N − 1, and each rank is reached at this machine's host name
// (SCORCH_DIST_HOSTNAME unless set). A rank lost on another machine reaches the others as a collective's error.
//   scorch-run --nproc N [--nnodes M --node-rank R --master host:port] [--master-port P] [--timeout-ms T]
//              [--] program args...
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "scorch/distributed/store.h"

namespace {

constexpr const char* kUsage =
    "usage: scorch-run --nproc N [--nnodes M --node-rank R --master host:port] [--master-port P] [--timeout-ms T]\n"
    "                  [--] program args...\n";

struct Launch {
  int nproc = 1, nnodes = 1, node_rank = 0;
  int port = 0;
  std::string master_host = "127.0.0.1";
  long timeout_ms = 30000;
  std::vector<char*> argv;
};

// "host:port" into the launch; false when malformed.
bool parse_master(const std::string& text, Launch& l) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  char* end = nullptr;
  long port = std::strtol(text.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port < 1 || port > 65535) return false;
  l.master_host = text.substr(0, colon), l.port = int(port);
  return true;
}

bool parse(int argc, char** argv, Launch& l) {
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.rfind("--", 0) != 0) break;
    if (i + 1 >= argc) return false;
    if (a == "--master") {
      if (!parse_master(argv[++i], l)) return false;
      continue;
    }
    long v = std::strtol(argv[++i], nullptr, 10);
    if (a == "--nproc" && v >= 1 && v <= 1024) l.nproc = int(v);
    else if (a == "--nnodes" && v >= 1 && v <= 4096) l.nnodes = int(v);
    else if (a == "--node-rank" && v >= 0 && v < 4096) l.node_rank = int(v);
    else if (a == "--master-port" && v >= 0 && v <= 65535) l.port = int(v);
    else if (a == "--timeout-ms" && v >= 1) l.timeout_ms = v;
    else return false;
  }
  for (; i < argc; ++i) l.argv.push_back(argv[i]);
  l.argv.push_back(nullptr);
  if (l.node_rank >= l.nnodes) return false;
  if (l.nnodes > 1 && l.port == 0) return false;  // the machines must agree on the store's address: --master
  return l.argv.size() > 1;
}

// The name other machines reach this one at.
std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || !*name) return "127.0.0.1";
  return name;
}

pid_t spawn(const Launch& l, int rank, uint16_t port) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);  // its own process group: stopping a rank stops what it started too
  auto set = [](const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); };
  set("RANK", std::to_string(l.node_rank * l.nproc + rank)), set("LOCAL_RANK", std::to_string(rank));
  set("WORLD_SIZE", std::to_string(l.nnodes * l.nproc)), set("LOCAL_WORLD_SIZE", std::to_string(l.nproc));
  set("MASTER_ADDR", l.master_host), set("MASTER_PORT", std::to_string(port)), set("SCORCH_STORE_SERVED", "1");
  set("GROUP_RANK", std::to_string(l.node_rank));
  if (l.nnodes > 1 && !std::getenv("SCORCH_DIST_HOSTNAME")) set("SCORCH_DIST_HOSTNAME", this_host());
  set("SCORCH_DIST_TIMEOUT_MS", std::to_string(l.timeout_ms));
  ::execvp(l.argv[0], l.argv.data());
  std::fprintf(stderr, "scorch-run: cannot run '%s'\n", l.argv[0]);
  ::_exit(127);
}

}  // namespace

int main(int argc, char** argv) {
  Launch l;
  if (!parse(argc, argv, l)) return std::fputs(kUsage, stderr), 2;
  try {
    // Node 0's launcher serves the store (the server listens on every interface).
    std::optional<scorch::distributed::TcpStore> store;
    uint16_t port = uint16_t(l.port);
    if (l.node_rank == 0) {
      store.emplace(l.master_host, port, true, std::chrono::milliseconds(l.timeout_ms));
      port = store->port();
    }
    std::vector<pid_t> ranks;
    for (int r = 0; r < l.nproc; ++r) ranks.push_back(spawn(l, r, port));
    int result = 0, running = l.nproc;
    auto stop_deadline = std::chrono::steady_clock::time_point::max();
    while (running > 0) {
      int status = 0;
      pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid < 0) break;
      if (pid == 0) {  // nothing ended: past the grace period, stopped ranks are killed
        if (std::chrono::steady_clock::now() > stop_deadline)
          for (pid_t other : ranks) ::kill(-other, SIGKILL);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      --running;
      int rank = 0;
      while (rank < l.nproc && ranks[rank] != pid) ++rank;
      ::kill(-pid, SIGKILL);  // whatever the rank left behind
      int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      if (code != 0 && result == 0) {
        result = code;
        std::fprintf(stderr, "scorch-run: rank %d exited with %s %d; stopping the other ranks\n", rank,
                     WIFEXITED(status) ? "code" : "signal", WIFEXITED(status) ? code : WTERMSIG(status));
        for (pid_t other : ranks)
          if (other != pid) ::kill(-other, SIGTERM);
        stop_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      }
    }
    return result;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scorch-run: %s\n", e.what());
    return 1;
  }
}
