#pragma once
// The command-line convention every Scorch binary follows: -h or --help prints the usage to stdout and exits 0,
// before anything else runs (no file opened, no training started).
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>

namespace scorch::cli {

/// True when an argument before a lone "--" is -h or --help.
inline bool asks_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) return true;
  }
  return false;
}

/// When argv asks for help: writes usage (ending in a newline) to stdout and exits with status 0.
inline void answer_help(int argc, char** argv, std::string_view usage) {
  if (!asks_help(argc, argv)) return;
  std::cout << usage;
  if (usage.empty() || usage.back() != '\n') std::cout << '\n';
  std::cout.flush();
  std::exit(0);
}

}  // namespace scorch::cli
