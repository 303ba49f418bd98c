#pragma once
// Reading tests/optim/fixtures (from gen_optim_fixtures.py, PyTorch).
#include <string>

#include <nlohmann/json.hpp>

namespace scorch::optimtest {

/// The parsed fixture file name in tests/optim/fixtures.
nlohmann::json load_fixture(const std::string& file);

}  // namespace scorch::optimtest
