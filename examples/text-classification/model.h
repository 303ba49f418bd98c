#pragma once
// The classifier: word and position embeddings, a transformer encoder that ignores padding, the mean of the
// non-padding positions, and a linear layer to the categories; with the batcher and the Learner's steps.
#include <scorch/data/dataloader.h>
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "corpus.h"

namespace textclass {

using namespace scorch;

/// A tokenized fortune.
struct EncodedFortune {
  std::vector<int64_t> ids;
  size_t label = 0;
};

/// ids [n, longest] padded with WordTokenizer::kPad, labels [n].
template <Backend B> struct FortuneBatch {
  Tensor<B, 2, Int> ids;
  Tensor<B, 1, Int> labels;
};

template <Backend B> struct FortuneBatcher final : data::Batcher<B, EncodedFortune, FortuneBatch<B>> {
  FortuneBatch<B> batch(std::vector<EncodedFortune> items, const typename B::Device& device) const override {
    size_t longest = 0;
    for (const auto& item : items) longest = std::max(longest, item.ids.size());
    std::vector<int64_t> ids(items.size() * longest, WordTokenizer::kPad), labels;
    for (size_t i = 0; i < items.size(); ++i) {
      std::copy(items[i].ids.begin(), items[i].ids.end(), ids.begin() + long(i * longest));
      labels.push_back(int64_t(items[i].label));
    }
    return {Tensor<B, 2, Int>::from_data(TensorData(ids, {items.size(), longest}), device),
            Tensor<B, 1, Int>::from_data(TensorData(labels, {items.size()}), device)};
  }
};

template <Backend B> struct TextClassifier {
  nn::Embedding<B> word, position;
  nn::TransformerEncoder<B> encoder;
  nn::LayerNorm<B> norm;
  nn::Linear<B> head;
  size_t max_tokens = 0;
  SCORCH_MODULE(TextClassifier, word, position, encoder, norm, head, max_tokens)

  /// ids [n, seq ≤ max_tokens] → logits [n, categories].
  Tensor<B, 2> forward(const Tensor<B, 2, Int>& ids) const {
    auto [n, seq] = ids.dims();
    if (seq == 0 || seq > max_tokens)
      throw ShapeError("TextClassifier::forward", "ids " + ids.shape().to_string() + " must have 1 to " +
                                                      std::to_string(max_tokens) + " positions");
    auto positions = Tensor<B, 1, Int>::arange(0, int64_t(seq), ids.device()).template reshape<2>({size_t{1}, seq});
    auto padding = ids.equal_elem(WordTokenizer::kPad);
    auto x = word.forward(ids) + position.forward(positions.expand_to({n, seq}));
    auto h = norm.forward(encoder.forward(nn::TransformerEncoderInput<B>(x).with_mask_pad(padding)));
    auto kept = padding.bool_not().float_().template unsqueeze_dim<3>(2);  // [n, seq, 1]
    auto mean = (h * kept).sum_dim(1) / kept.sum_dim(1);                   // [n, 1, d]
    return head.forward(mean.template reshape<2>({int64_t(n), -1}));
  }

  train::ClassificationOutput<B> forward_classification(const FortuneBatch<B>& batch) const {
    auto logits = forward(batch.ids);
    return {nn::CrossEntropyLossConfig().init<B>(logits.device()).forward(logits, batch.labels), logits, batch.labels};
  }
  train::TrainOutput<train::ClassificationOutput<B>> train_step(const FortuneBatch<B>& batch) const requires
      AutodiffBackend<B> {
    auto item = forward_classification(batch);
    return {*this, item.loss.backward(), item};
  }
  train::ClassificationOutput<B> valid_step(const FortuneBatch<B>& batch) const {
    return forward_classification(batch);
  }
};

struct TextClassifierConfig {
  size_t vocab_size, categories;
  size_t max_tokens = 64, d_model = 64, n_heads = 4, n_layers = 2, d_ff = 128;
  double dropout = 0.1;
  SCORCH_CONFIG(TextClassifierConfig, (vocab_size, categories), (max_tokens, d_model, n_heads, n_layers, d_ff, dropout))

  template <Backend B> TextClassifier<B> init(const typename B::Device& device = {}) const {
    auto small = nn::Initializer::normal(0.0, 0.02);
    return {nn::EmbeddingConfig(vocab_size, d_model).with_initializer(small).init<B>(device),
            nn::EmbeddingConfig(max_tokens, d_model).with_initializer(small).init<B>(device),
            nn::TransformerEncoderConfig(d_model, d_ff, n_heads, n_layers)
                .with_dropout(dropout)
                .with_norm_first(true)
                .template init<B>(device),
            nn::LayerNormConfig(d_model).init<B>(device),
            nn::LinearConfig(d_model, categories).init<B>(device),
            max_tokens};
  }
};

}  // namespace textclass
