#pragma once
// expect_error<E>(f, prefix): f throws E and its message starts with prefix.
#include <gtest/gtest.h>

#include <string>

namespace scorch::testing {

template <class E, class F> void expect_error(F f, const std::string& prefix) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << prefix;
  } catch (const E& e) {
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  }
}

}  // namespace scorch::testing
