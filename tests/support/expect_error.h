#pragma once
// expect_error<E>(f, prefix): f throws E and its message starts with prefix;
// expect_error_mentions<E>(f, parts): its message contains each part; expect_rejected(f, op, file, part): a
// hostile file gives a scorch::Error naming op and file, without a large allocation.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "scorch/core/error.h"

namespace scorch::testing {

template <class E, class F> void expect_error(F f, const std::string& prefix) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << prefix;
  } catch (const E& e) { EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what(); }
}

/// f throws E and its message contains every one of parts.
template <class E, class F> void expect_error_mentions(F f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << parts.front();
  } catch (const E& e) {
    for (const auto& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what() << "\n  lacks: " << part;
  }
}

/// Peak resident memory of this process so far, in MiB.
inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

/// f throws a scorch::Error whose message starts with "[op] file" and mentions part, raising the peak memory by
/// less than 100 MiB (a hostile file must not make Scorch allocate what it claims); prints the time it took and the
/// peak's growth (a lower bound: an earlier test may have raised the peak already).
template <class F> void expect_rejected(F f, const std::string& op, const std::string& file, const std::string& part) {
  double before = peak_rss_mib();
  auto start = std::chrono::steady_clock::now();
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << part;
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("[" + op + "] " + file, 0), 0u) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what << "\n  lacks: " << part;
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("[adversarial] %s (%s): rejected in %.1f ms, peak memory +%.1f MiB\n", file.c_str(), op.c_str(), ms,
              peak_rss_mib() - before);
  EXPECT_LT(peak_rss_mib() - before, 100.0) << part;
}

}  // namespace scorch::testing
