#include "scorch/distributed/data_parallel.h"

namespace scorch::distributed {

Record broadcast_record(ProcessGroup& group, const Record& record, int root) {
  std::vector<std::byte> bytes;
  if (group.rank() == root) bytes = BinBytesRecorder<>().record(record);
  uint64_t n = bytes.size();
  group.broadcast(&n, sizeof n, root);
  bytes.resize(size_t(n));
  group.broadcast(bytes.data(), bytes.size(), root);
  return group.rank() == root ? record : BinBytesRecorder<>().load(std::span<const std::byte>(bytes));
}

}  // namespace scorch::distributed
