#pragma once
// A check the importers' tests share: a load refused with a FormatError whose message starts with "[load]" and
// names the file and the reason.
#include <gtest/gtest.h>

#include <string>

#include "scorch/core/error.h"

namespace scorch::testing {

/// load() throws FormatError whose message starts with "[load]" and holds file and expected.
template <class Load> void expect_load_error(Load load, const std::string& file, const std::string& expected) {
  SCOPED_TRACE(file);
  try {
    load();
    FAIL() << "must throw";
  } catch (const FormatError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("[load]", 0), 0u) << what;
    EXPECT_NE(what.find(file), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  }
}

}  // namespace scorch::testing
