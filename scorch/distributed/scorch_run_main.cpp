// scorch-run: starts a program once per rank on this machine, with torchrun's environment (RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and the rendezvous store served by the launcher itself
// (SCORCH_STORE_SERVED=1, a port the OS picks unless --master-port). When a rank exits with an error or a signal,
// the others are stopped and scorch-run exits with that rank's code, naming it: no rank waits for a dead peer.
//   scorch-run --nproc N [--master-port P] [--timeout-ms T] [--] program args...
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "scorch/distributed/store.h"

namespace {

constexpr const char* kUsage = "usage: scorch-run --nproc N [--master-port P] [--timeout-ms T] [--] program args...\n";

struct Launch {
  int nproc = 1;
  int port = 0;
  long timeout_ms = 30000;
  std::vector<char*> argv;
};

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
    long v = std::strtol(argv[++i], nullptr, 10);
    if (a == "--nproc" && v >= 1 && v <= 1024) l.nproc = int(v);
    else if (a == "--master-port" && v >= 0 && v <= 65535) l.port = int(v);
    else if (a == "--timeout-ms" && v >= 1) l.timeout_ms = v;
    else return false;
  }
  for (; i < argc; ++i) l.argv.push_back(argv[i]);
  l.argv.push_back(nullptr);
  return l.argv.size() > 1;
}

pid_t spawn(const Launch& l, int rank, uint16_t port) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);  // its own process group: stopping a rank stops what it started too
  auto set = [](const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); };
  set("RANK", std::to_string(rank)), set("LOCAL_RANK", std::to_string(rank));
  set("WORLD_SIZE", std::to_string(l.nproc)), set("LOCAL_WORLD_SIZE", std::to_string(l.nproc));
  set("MASTER_ADDR", "127.0.0.1"), set("MASTER_PORT", std::to_string(port)), set("SCORCH_STORE_SERVED", "1");
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
    scorch::distributed::TcpStore store("127.0.0.1", uint16_t(l.port), true, std::chrono::milliseconds(l.timeout_ms));
    std::vector<pid_t> ranks;
    for (int r = 0; r < l.nproc; ++r) ranks.push_back(spawn(l, r, store.port()));
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
