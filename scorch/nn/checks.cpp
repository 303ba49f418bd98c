#include "scorch/nn/conv.h"

namespace scorch::nn::detail {

void check_groups(const char* op, size_t in, size_t out, size_t groups) {
  if (groups == 0 || in % groups != 0 || out % groups != 0)
    throw ValueError(op, "channels [" + std::to_string(in) + ", " + std::to_string(out) + "] do not split into " + std::to_string(groups) + " groups");
}

}  // namespace scorch::nn::detail
