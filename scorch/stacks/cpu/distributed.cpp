// The data-parallel reducer's model-free part and the host communicator for Cpu tensors, compiled once.
#include "scorch/stacks/cpu/train.h"

namespace scorch::distributed {

template class BucketReducer<Cpu>;
template class HostBucketAllReduce<Cpu>;
template std::unique_ptr<BucketAllReduce<Cpu::FloatTensor>> bucket_all_reduce_for<Cpu>(std::shared_ptr<ProcessGroup>,
                                                                                       const Cpu::Device&);

}  // namespace scorch::distributed
