// Loss cases: inputs as PyTorch received them; the output is the reduced loss.
#include "nn_harness.h"

namespace scorch::nntest {
namespace {

template <class F> CaseFn loss(F body) {
  return [body](const CaseInputs& in) {
    CaseRun run;
    run.outputs = {body(in)};
    return run;
  };
}
std::vector<double> values_of(const TensorData& d) { return d.convert(DType::F64).to_vector<double>(); }

void add_classification(CaseTable& t) {
  auto ce = [](nn::CrossEntropyLossConfig c, nn::Reduction r = nn::Reduction::Mean) {
    return loss([=](const CaseInputs& in) { return c.init<AD>().forward(in.f<2>(0), in.i<1>(1), r); });
  };
  t["ce"] = ce({});
  t["ce_smoothing"] = ce(nn::CrossEntropyLossConfig().with_smoothing(0.1));
  t["ce_pad"] = ce(nn::CrossEntropyLossConfig().with_pad_tokens(std::vector<int64_t>{2}));
  t["ce_sum"] = ce({}, nn::Reduction::Sum);
  t["ce_weights"] = loss([](const CaseInputs& in) {
    auto c = nn::CrossEntropyLossConfig().with_weights(values_of(in.fixture().inputs[2]));
    return c.init<AD>().forward(in.f<2>(0), in.i<1>(1));
  });
  t["bce"] = loss([](const CaseInputs& in) {
    return nn::BinaryCrossEntropyLossConfig().init<AD>().forward(in.f<2>(0), in.f<2>(1));
  });
  t["bce_logits"] = loss([](const CaseInputs& in) {
    auto c = nn::BinaryCrossEntropyLossConfig().with_logits(true).with_weights(values_of(in.fixture().inputs[2]));
    return c.init<AD>().forward(in.f<2>(0), in.f<2>(1));
  });
  t["bce_logits_smoothing"] = loss([](const CaseInputs& in) {
    return nn::BinaryCrossEntropyLossConfig().with_logits(true).with_smoothing(0.1).init<AD>().forward(in.f<2>(0),
                                                                                                       in.f<2>(1));
  });
}

void add_regression(CaseTable& t) {
  t["mse"] = loss([](const CaseInputs& in) { return nn::MseLoss{}.forward(in.f<2>(0), in.f<2>(1)); });
  t["mse_sum"] =
      loss([](const CaseInputs& in) { return nn::MseLoss{}.forward(in.f<2>(0), in.f<2>(1), nn::Reduction::Sum); });
  t["huber"] =
      loss([](const CaseInputs& in) { return nn::HuberLossConfig(0.5).init().forward(in.f<2>(0), in.f<2>(1)); });
  t["smooth_l1"] = loss([](const CaseInputs& in) { return nn::SmoothL1Loss{0.5}.forward(in.f<2>(0), in.f<2>(1)); });
  t["l1"] = loss([](const CaseInputs& in) { return nn::LpLoss{1.0}.forward(in.f<2>(0), in.f<2>(1)); });
  t["kl_div_batchmean"] = loss(
      [](const CaseInputs& in) { return nn::KLDivLoss{}.forward(in.f<2>(0), in.f<2>(1), nn::Reduction::BatchMean); });
  t["kl_div_log_target"] =
      loss([](const CaseInputs& in) { return nn::KLDivLoss{true}.forward(in.f<2>(0), in.f<2>(1)); });
  t["gaussian_nll"] =
      loss([](const CaseInputs& in) { return nn::GaussianNllLoss{}.forward(in.f<2>(0), in.f<2>(1), in.f<2>(2)); });
  t["poisson_nll"] = loss([](const CaseInputs& in) { return nn::PoissonNllLoss{}.forward(in.f<2>(0), in.f<2>(1)); });
}

void add_margin(CaseTable& t) {
  t["cosine_embedding"] = loss([](const CaseInputs& in) {
    return nn::CosineEmbeddingLoss{0.2}.forward(in.f<2>(0), in.f<2>(1), in.constant<1>(2));
  });
  t["hinge_embedding"] =
      loss([](const CaseInputs& in) { return nn::HingeEmbeddingLoss{1.0}.forward(in.f<2>(0), in.constant<2>(1)); });
  t["margin_ranking"] = loss([](const CaseInputs& in) {
    return nn::MarginRankingLoss{0.1}.forward(in.f<1>(0), in.f<1>(1), in.constant<1>(2));
  });
  t["soft_margin"] =
      loss([](const CaseInputs& in) { return nn::SoftMarginLoss{}.forward(in.f<2>(0), in.constant<2>(1)); });
  t["triplet_margin"] =
      loss([](const CaseInputs& in) { return nn::TripletMarginLoss{}.forward(in.f<2>(0), in.f<2>(1), in.f<2>(2)); });
  for (auto [name, r] : {std::pair{"ctc", nn::Reduction::Mean}, std::pair{"ctc_sum", nn::Reduction::Sum}})
    t[name] = loss([r = r](const CaseInputs& in) {
      return nn::CtcLossConfig().init().forward(in.f<3>(0), in.i<2>(1), in.i<1>(2), in.i<1>(3), r);
    });
}

}  // namespace

void add_loss_cases(CaseTable& t) {
  add_classification(t);
  add_regression(t);
  add_margin(t);
}

}  // namespace scorch::nntest
