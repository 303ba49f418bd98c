// A newcomer's mistake that must not compile, with a sentence saying what to do: the validation loader built on the
// Autodiff backend, while model.valid() runs on the inner one. tests/diagnostics/check.sh expects the message.
// expect: Learner::fit: model.valid().valid_step does not take the validation loader's batches
#include "train/learner_fixture.h"

int main() {
  using namespace learner_fixture;
  auto train = data::dataloader_builder(std::make_shared<ItemBatcher<AD>>()).batch_size(16).build(dataset(32, 1));
  auto valid = data::dataloader_builder(std::make_shared<ItemBatcher<AD>>()).batch_size(16).build(dataset(32, 2));
  auto learner = LearnerBuilder("/tmp/never").num_epochs(1).build(fresh_model(), optim::SgdConfig().init(), 0.1);
  (void)learner.fit(train, valid);
}
