#pragma once
// expect_error<E>(f, prefix): f throws E and its message starts with prefix;
// expect_error_mentions<E>(f, parts): its message contains each part.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace scorch::testing
