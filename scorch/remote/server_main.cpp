// scorch-server: serves Remote clients on the backend it is started with (scorch/remote/README.md).
//   scorch-server --backend cpu|cuda [--port N | --bind ENDPOINT [--allow-remote]] [--token-file F]
//                 [--max-message-mb N] [--session-memory-mb N] [--max-sessions N] [--max-connections N]
// The token is the file's first line, else $SCORCH_SERVER_TOKEN; the server refuses to start without one.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "scorch/core/error.h"
#include "scorch/remote/server.h"
#include "scorch/core/cli.h"

namespace {
scorch::remote::Server* g_server = nullptr;

void on_signal(int) {
  if (g_server) g_server->stop();
}

const char* kUsage =
    "usage: scorch-server --backend cpu|cuda [--port N | --bind ENDPOINT [--allow-remote]] "
    "[--token-file F] [--max-message-mb N] [--session-memory-mb N] [--max-sessions N] [--max-connections N]\n";

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "scorch-server: " << why << "\n" << kUsage;
  std::exit(2);
}

/// A count from 1 to 2^20 (MiB flags stay far from overflowing when shifted to bytes).
uint64_t count(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end || text[0] == '-' || v == 0 || v > (1u << 20))
    usage(flag + " needs a count from 1 to 1048576, not '" + text + "'");
  return v;
}

std::string read_token(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token)) throw scorch::IoError("scorch-server", "cannot read a token from " + path);
  return token;
}

scorch::remote::SessionFactory sessions_for(const std::string& backend) {
  if (backend == "cpu") return scorch::remote::cpu_sessions();
#ifdef SCORCH_HAVE_CUDA
  if (backend == "cuda") return scorch::remote::cuda_sessions();
#endif
  usage("unknown or unbuilt backend '" + backend + "'");
}
}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      std::string(kUsage) +
          "Runs Remote's op records on a local backend for the clients that "
          "present the token ($SCORCH_SERVER_TOKEN or --token-file); listens on 127.0.0.1 unless "
          "--allow-remote.\nUnread messages take at most --max-connections (128) x 32 x --max-message-mb (1024).");
  scorch::remote::ServerOptions options;
  std::string backend = "cpu", token_file;
  bool allow_remote = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--allow-remote") {
      allow_remote = true;
      continue;
    }
    if (i + 1 >= argc) usage(flag + " needs a value");
    std::string value = argv[++i];
    if (flag == "--backend") backend = value;
    else if (flag == "--port") options.endpoint = "tcp://127.0.0.1:" + value;
    else if (flag == "--bind") options.endpoint = value;
    else if (flag == "--token-file") token_file = value;
    else if (flag == "--max-message-mb") options.max_message_bytes = count(flag, value) << 20;
    else if (flag == "--session-memory-mb") options.session_memory_bytes = count(flag, value) << 20;
    else if (flag == "--max-sessions") options.max_sessions = count(flag, value);
    else if (flag == "--max-connections") options.max_connections = count(flag, value);
    else usage("unknown option " + flag);
  }
  try {
    if (!token_file.empty()) options.token = read_token(token_file);
    else if (const char* t = std::getenv("SCORCH_SERVER_TOKEN")) options.token = t;
    scorch::remote::Server server(options, sessions_for(backend), allow_remote);
    g_server = &server;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    std::cout << "scorch-server: serving " << backend << " on " << server.endpoint() << std::endl;
    server.run();
    g_server = nullptr;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
