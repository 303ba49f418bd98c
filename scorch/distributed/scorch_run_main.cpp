// scorch-run: starts a program once per rank on this machine, with torchrun's environment (RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and the rendezvous store served by the launcher itself
// (SCORCH_STORE_SERVED=1, a port the OS picks unless --master-port). When a rank exits with an error or a signal,
// the others are stopped and scorch-run exits with that rank's code, naming it: no rank waits for a dead peer.
// Across machines, one scorch-run per machine: --nnodes M --node-rank R --master host:port; node 0's serves the store
// at host:port, node R's ranks are R·N ... R·N + N − 1, and each rank is reached at this machine's host name
// (SCORCH_DIST_HOSTNAME unless set). A rank lost on another machine reaches the others as a collective's error.
// The ranks die with the launcher: SIGINT or SIGTERM to scorch-run stops them (SIGKILL after 5 s), and a launcher
// killed outright takes them along (each rank's parent-death signal). A busy --master-port and a node rank that two
// launchers claim are errors within seconds; the store listens on --master's interface only (loopback by default)
// and answers only connections that present the job's token (SCORCH_STORE_TOKEN, or a random one on one machine).
//   scorch-run --nproc N [--nnodes M --node-rank R --master host:port] [--master-port P] [--timeout-ms T]
//              [--] program args...
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/distributed/store.h"

namespace {

constexpr const char* kUsage =
    "usage: scorch-run --nproc N [--nnodes M --node-rank R --master host:port] [--master-port P] [--timeout-ms T]\n"
    "                  [--] program args...\n"
    "Starts program once per rank with torchrun's environment and serves the rendezvous store (node 0).\n"
    "  --nproc N          ranks on this machine (1 to 1024)\n"
    "  --nnodes M         machines (one scorch-run each), --node-rank R this one's place (0 serves the store)\n"
    "  --master host:port the store's address (node 0's interface); --master-port P alone: on 127.0.0.1\n"
    "  --timeout-ms T     how long a rank waits for its peers (default 30000)\n"
    "The store answers only this job's ranks: SCORCH_STORE_TOKEN (required, the same, on every machine of a\n"
    "multi-machine run; on one machine a random one is made), passed to the ranks in their environment.\n";

/// Set by SIGINT / SIGTERM: the launcher stops its ranks and exits.
volatile sig_atomic_t g_stop_signal = 0;

struct Launch {
  int nproc = 1, nnodes = 1, node_rank = 0;
  int port = 0;
  std::string master_host = "127.0.0.1";
  long timeout_ms = 30000;
  std::vector<char*> argv;
  std::string token;  // the job's store token (job_token)
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
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);                     // its own process group: stopping a rank stops what it started too
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the launcher killed outright takes its ranks along
  if (::getppid() != parent) ::_exit(128 + SIGKILL);  // it died before the signal was set
  auto set = [](const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); };
  set("RANK", std::to_string(l.node_rank * l.nproc + rank)), set("LOCAL_RANK", std::to_string(rank));
  set("WORLD_SIZE", std::to_string(l.nnodes * l.nproc)), set("LOCAL_WORLD_SIZE", std::to_string(l.nproc));
  set("MASTER_ADDR", l.master_host), set("MASTER_PORT", std::to_string(port)), set("SCORCH_STORE_SERVED", "1");
  set("GROUP_RANK", std::to_string(l.node_rank));
  if (l.nnodes > 1 && !std::getenv("SCORCH_DIST_HOSTNAME")) set("SCORCH_DIST_HOSTNAME", this_host());
  set("SCORCH_DIST_TIMEOUT_MS", std::to_string(l.timeout_ms));
  set("SCORCH_STORE_TOKEN", l.token);
  ::execvp(l.argv[0], l.argv.data());
  std::fprintf(stderr, "scorch-run: cannot run '%s'\n", l.argv[0]);
  ::_exit(127);
}

/// The job's store token: $SCORCH_STORE_TOKEN, or on one machine a fresh random one (the ranks inherit it). Several
/// machines must share one, so there it is required.
std::string job_token(const Launch& l) {
  if (const char* given = std::getenv("SCORCH_STORE_TOKEN"); given && *given) return given;
  if (l.nnodes > 1)
    throw scorch::ValueError("scorch-run", "a run over " + std::to_string(l.nnodes) +
                                               " machines needs one job token on every machine: set "
                                               "SCORCH_STORE_TOKEN to the same secret for each scorch-run");
  unsigned char bytes[16];
  std::ifstream random("/dev/urandom", std::ios::binary);
  if (!random.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw scorch::IoError("scorch-run", "cannot read /dev/urandom for the job token");
  std::string token;
  for (unsigned char b : bytes) token += "0123456789abcdef"[b >> 4], token += "0123456789abcdef"[b & 15];
  return token;
}

/// Claims this launcher's node rank in the store: an IoError when another launcher holds it already.
void claim_node_rank(scorch::distributed::TcpStore& store, const Launch& l) {
  if (store.add("scorch-run/node/" + std::to_string(l.node_rank), 1) != 1)
    throw scorch::IoError("scorch-run", "node rank " + std::to_string(l.node_rank) + " of " + std::to_string(l.nnodes) +
                                            " is claimed by another scorch-run already: give each machine its own "
                                            "--node-rank");
}

void on_stop_signal(int signal) { g_stop_signal = signal; }

/// Whether the arguments before "--" ask for the usage.
bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc && std::string(argv[i]) != "--"; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") return true;
  return false;
}

/// SIGINT and SIGTERM set g_stop_signal (the wait loop stops the ranks).
void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  if (wants_help(argc, argv)) return std::fputs(kUsage, stdout), 0;
  Launch l;
  if (!parse(argc, argv, l)) return std::fputs(kUsage, stderr), 2;
  catch_stop_signals();
  try {
    // Node 0's launcher serves the store (the server listens on every interface).
    l.token = job_token(l);
    std::optional<scorch::distributed::TcpStore> store;
    uint16_t port = uint16_t(l.port);
    if (l.node_rank == 0) {
      store.emplace(l.master_host, port, true, std::chrono::milliseconds(l.timeout_ms), l.token);
      port = store->port();
    }
    if (l.nnodes > 1) {  // every launcher claims its node rank, so two claiming one are told within seconds
      std::optional<scorch::distributed::TcpStore> client;
      if (!store) client.emplace(l.master_host, port, false, std::chrono::milliseconds(l.timeout_ms), l.token);
      claim_node_rank(store ? *store : *client, l);
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
        if (g_stop_signal && stop_deadline == std::chrono::steady_clock::time_point::max()) {
          std::fprintf(stderr, "scorch-run: signal %d; stopping the ranks\n", int(g_stop_signal));
          for (pid_t other : ranks) ::kill(-other, SIGTERM);
          stop_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          result = 128 + int(g_stop_signal);
        }
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
