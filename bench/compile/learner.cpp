// A newcomer's training program: y = sum of 4 inputs on 1,024 samples, the Learner with Adam, the model saved.
#include <random>

#include "model.hpp"

using namespace scorch;
using namespace newcomer;

int main() {
  using B = Autodiff<Cpu>;
  B::seed(1);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<Sample> samples(1024);
  for (auto& s : samples) {
    for (auto& v : s.x) v = normal(rng);
    s.y = s.x[0] + s.x[1] + s.x[2] + s.x[3];
  }
  auto learner = train::LearnerBuilder("/tmp/newcomer")
                     .metric_train_numeric(train::LossMetric{})
                     .metric_valid_numeric(train::LossMetric{})
                     .num_epochs(3)
                     .build(MlpConfig().init<B>(), optim::AdamConfig().init(), 1e-2);
  auto model = learner.fit(loader<B>(samples, 1), loader<Cpu>(samples));
  model.save_file("/tmp/newcomer/model", CompactRecorder{});
}
