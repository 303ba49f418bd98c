#pragma once
// A decoder-only transformer (GPT) written once for every backend: token and position embeddings, a causal
// TransformerEncoder (pre-norm, GELU, d_ff = 4·d_model by default), a final LayerNorm and a linear head over the
// vocabulary. The text-generation example trains it on text; scorch-bench times its train step
// (gpt6_d512_s512_b16_train_step_*), as bench/anchors/torch_gpu_anchor.py does PyTorch's twin.
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

namespace textgen {

using namespace scorch;

template <Backend B> struct Gpt;

/// The model's shape (GPT-2's layout: learned positions, pre-norm blocks, a final norm, no head bias).
struct GptConfig {
  size_t vocab_size;
  size_t max_seq = 128;
  size_t d_model = 128;
  size_t n_heads = 4;
  size_t n_layers = 2;
  size_t d_ff = 512;
  double dropout = 0.1;
  SCORCH_CONFIG(GptConfig, (vocab_size), (max_seq, d_model, n_heads, n_layers, d_ff, dropout))
  template <Backend B> Gpt<B> init(const typename B::Device& device = {}) const;
};

/// Inputs and next-token targets, both [batch, seq] token ids.
template <Backend B> struct TokenBatch {
  Tensor<B, 2, Int> inputs, targets;
};

template <Backend B> struct Gpt {
  nn::Embedding<B> token, position;
  nn::TransformerEncoder<B> blocks;
  nn::LayerNorm<B> norm;
  nn::Linear<B> head;
  size_t max_seq = 0;
  SCORCH_MODULE(Gpt, token, position, blocks, norm, head, max_seq)

  /// ids [batch, seq ≤ max_seq] → logits [batch, seq, vocab]; position t attends to positions ≤ t only.
  Tensor<B, 3> forward(const Tensor<B, 2, Int>& ids) const {
    auto [batch, seq] = ids.dims();
    if (seq == 0 || seq > max_seq)
      throw ShapeError("Gpt::forward", "ids " + ids.shape().to_string() + " must have 1 to " +
                                           std::to_string(max_seq) + " positions");
    auto device = ids.device();
    auto positions = Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(seq), device)
                         .template reshape<2>({size_t{1}, seq})
                         .expand_to({batch, seq});
    auto x = token.forward(ids) + position.forward(positions);
    auto h = blocks.forward(nn::TransformerEncoderInput<B>(x).with_causal());
    return head.forward(norm.forward(h));
  }
  /// Mean next-token cross-entropy over every position, with the flattened logits and targets.
  train::ClassificationOutput<B> forward_classification(const TokenBatch<B>& batch) const {
    auto logits = forward(batch.inputs);
    auto [b, s, v] = logits.dims();
    auto flat = logits.template reshape<2>({b * s, v});
    auto targets = batch.targets.template reshape<1>({b * s});
    return {nn::CrossEntropyLossConfig().init<B>(logits.device()).forward(flat, targets), flat, targets};
  }
  train::TrainOutput<train::ClassificationOutput<B>> train_step(const TokenBatch<B>& batch) const
      requires AutodiffBackend<B> {
    auto item = forward_classification(batch);
    return {*this, item.loss.backward(), item};
  }
  train::ClassificationOutput<B> valid_step(const TokenBatch<B>& batch) const { return forward_classification(batch); }
};

template <Backend B> Gpt<B> GptConfig::init(const typename B::Device& device) const {
  if (d_model % n_heads != 0)
    throw ValueError("GptConfig::init", "d_model " + std::to_string(d_model) + " does not split into " +
                                            std::to_string(n_heads) + " heads");
  auto small = nn::Initializer::normal(0.0, 0.02);  // GPT-2's embedding initialization
  Gpt<B> m;
  m.token = nn::EmbeddingConfig(vocab_size, d_model).with_initializer(small).init<B>(device);
  m.position = nn::EmbeddingConfig(max_seq, d_model).with_initializer(small).init<B>(device);
  m.blocks = nn::TransformerEncoderConfig(d_model, d_ff, n_heads, n_layers)
                 .with_dropout(dropout)
                 .with_norm_first(true)
                 .template init<B>(device);
  m.norm = nn::LayerNormConfig(d_model).init<B>(device);
  m.head = nn::LinearConfig(d_model, vocab_size).with_bias(false).init<B>(device);
  m.max_seq = max_seq;
  return m;
}

}  // namespace textgen
