#include "optim_fixtures.h"

#include <fstream>

#include <scorch/core/error.h>

namespace scorch::optimtest {

nlohmann::json load_fixture(const std::string& file) {
  std::string path = std::string(SCORCH_OPTIM_FIXTURE_DIR) + "/" + file;
  std::ifstream in(path);
  if (!in) throw IoError("load_fixture", "cannot open " + path);
  return nlohmann::json::parse(in);
}

}  // namespace scorch::optimtest
