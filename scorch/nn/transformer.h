#pragma once
// Transformer blocks: PositionWiseFeedForward, TransformerEncoder and
// TransformerDecoder with post- or pre-norm (norm_first), masks, and autoregressive caches.
#include "scorch/nn/activation.h"
#include "scorch/nn/attention.h"
#include "scorch/nn/norm.h"

namespace scorch::nn {

template <class B> struct PositionWiseFeedForward;

/// Feed-forward settings: d_model → d_ff → d_model with an activation (Gelu) and dropout between.
struct PositionWiseFeedForwardConfig {
  size_t d_model, d_ff;
  double dropout = 0.1;
  Initializer initializer = Initializer::kaiming_uniform();
  ActivationConfig activation = ActivationConfig::of(ActivationKind::Gelu);
  SCORCH_CONFIG(PositionWiseFeedForwardConfig, (d_model, d_ff), (dropout, initializer, activation))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> PositionWiseFeedForward<B> init(const typename B::Device& device = {}) const {
    return {LinearConfig(d_model, d_ff).with_initializer(initializer).template init<B>(device),
            LinearConfig(d_ff, d_model).with_initializer(initializer).template init<B>(device),
            DropoutConfig(dropout).init(), activation.template init<B>(device)};
  }
};

/// linear_outer(dropout(activation(linear_inner(x)))).
template <class B> struct PositionWiseFeedForward {
  Linear<B> linear_inner, linear_outer;
  Dropout dropout;
  Activation<B> activation;
  SCORCH_MODULE(PositionWiseFeedForward, linear_inner, linear_outer, dropout, activation)
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const {
    if (activation.kind == ActivationKind::Relu)  // relu in linear_inner's product (cuBLASLt's epilogue on Cuda)
      return linear_outer.forward(dropout.forward(linear_inner.forward(x, true)));
    return linear_outer.forward(dropout.forward(activation.forward(linear_inner.forward(x))));
  }
};

template <class B> struct TransformerEncoder;
template <class B> struct TransformerDecoder;
struct EncoderTag {};
struct DecoderTag {};

/// Encoder (Tag = EncoderTag) or decoder settings; the two share every field (Burn's defaults).
template <class Tag> struct TransformerConfig {
  size_t d_model, d_ff, n_heads, n_layers;
  double dropout = 0.1;
  bool norm_first = false, quiet_softmax = false;
  Initializer initializer = Initializer::kaiming_uniform();
  ActivationConfig activation = ActivationConfig::of(ActivationKind::Gelu);
  double layer_norm_eps = 1e-5;
  SCORCH_CONFIG(TransformerConfig, (d_model, d_ff, n_heads, n_layers),
                (dropout, norm_first, quiet_softmax, initializer, activation, layer_norm_eps))

  template <class B> MultiHeadAttention<B> attention(const typename B::Device& device) const {
    return MultiHeadAttentionConfig(d_model, n_heads)
        .with_dropout(dropout)
        .with_quiet_softmax(quiet_softmax)
        .with_initializer(initializer)
        .template init<B>(device);
  }
  template <class B> PositionWiseFeedForward<B> feed_forward(const typename B::Device& device) const {
    return PositionWiseFeedForwardConfig(d_model, d_ff)
        .with_dropout(dropout)
        .with_initializer(initializer)
        .with_activation(activation)
        .template init<B>(device);
  }
  template <class B> LayerNorm<B> norm(const typename B::Device& device) const {
    return LayerNormConfig(d_model).with_epsilon(layer_norm_eps).template init<B>(device);
  }
  /// A `TransformerEncoder<B>` or `TransformerDecoder<B>` with fresh weights.
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> auto init(const typename B::Device& device = {}) const;
};
using TransformerEncoderConfig = TransformerConfig<EncoderTag>;
using TransformerDecoderConfig = TransformerConfig<DecoderTag>;

/// x [batch, seq, d_model] with optional padding / attention masks (true = ignore); causal: position i attends to
/// positions ≤ i, without a mask tensor (as generate_autoregressive_mask, but the fused kernels skip hidden keys).
template <class B> struct TransformerEncoderInput {
  Tensor<B, 3> tensor;
  std::optional<Tensor<B, 2, Bool>> mask_pad;
  std::optional<Tensor<B, 3, Bool>> mask_attn;
  bool causal = false;
  explicit TransformerEncoderInput(Tensor<B, 3> x) : tensor(std::move(x)) {}
  TransformerEncoderInput with_mask_pad(Tensor<B, 2, Bool> m) const {
    auto c = *this;
    c.mask_pad = std::move(m);
    return c;
  }
  TransformerEncoderInput with_mask_attn(Tensor<B, 3, Bool> m) const {
    auto c = *this;
    c.mask_attn = std::move(m);
    return c;
  }
  TransformerEncoderInput with_causal(bool on = true) const {
    auto c = *this;
    c.causal = on;
    return c;
  }
};

/// One encoder block: self-attention and feed-forward, each with a residual and a LayerNorm.
template <class B> struct TransformerEncoderLayer {
  MultiHeadAttention<B> mha;
  PositionWiseFeedForward<B> pwff;
  LayerNorm<B> norm_1, norm_2;
  Dropout dropout;
  bool norm_first = false;
  SCORCH_MODULE(TransformerEncoderLayer, mha, pwff, norm_1, norm_2, dropout, norm_first)

  /// cache: the layer's self-attention cache for autoregressive inference (x holds new positions only); causal:
  /// as TransformerEncoderInput.
  Tensor<B, 3> forward(const Tensor<B, 3>& x, const std::optional<Tensor<B, 2, Bool>>& mask_pad,
                       const std::optional<Tensor<B, 3, Bool>>& mask_attn, MhaCache<B>* cache = nullptr,
                       bool causal = false) const {
    auto attend = [&](const Tensor<B, 3>& h) {
      auto in = MhaInput<B>::self_attn(h);
      in.mask_pad = mask_pad, in.mask_attn = mask_attn, in.causal = causal;
      return dropout.forward(cache ? mha.forward_cache(in, *cache, false).context : mha.forward_context(in));
    };
    if (norm_first) {
      auto h = x + attend(norm_1.forward(x));
      return h + dropout.forward(pwff.forward(norm_2.forward(h)));
    }
    auto h = norm_1.forward(x + attend(x));
    return norm_2.forward(h + dropout.forward(pwff.forward(h)));
  }
};

/// Per-layer caches of an encoder or decoder run position by position.
template <class B> struct TransformerCache {
  std::vector<MhaCache<B>> self_attn, cross_attn;
  /// Empty caches for n_layers layers.
  static TransformerCache make(size_t n_layers) {
    TransformerCache c;
    c.self_attn.resize(n_layers);
    c.cross_attn.assign(n_layers, MhaCache<B>::autoregressive_cross_attention());
    return c;
  }
};

/// A stack of encoder layers.
template <class B> struct TransformerEncoder {
  std::vector<TransformerEncoderLayer<B>> layers;
  SCORCH_MODULE(TransformerEncoder, layers)

  Tensor<B, 3> forward(const TransformerEncoderInput<B>& input) const {
    auto x = input.tensor;
    for (const auto& layer : layers) x = layer.forward(x, input.mask_pad, input.mask_attn, nullptr, input.causal);
    return x;
  }
  /// Causal encoding of new positions only, reusing the cache of earlier ones.
  Tensor<B, 3> forward_autoregressive_inference(const TransformerEncoderInput<B>& input,
                                                TransformerCache<B>& cache) const {
    if (cache.self_attn.size() != layers.size()) cache = TransformerCache<B>::make(layers.size());
    auto x = input.tensor;
    for (size_t i = 0; i < layers.size(); ++i)
      x = layers[i].forward(x, input.mask_pad, input.mask_attn, &cache.self_attn[i]);
    return x;
  }
  TransformerCache<B> new_autoregressive_cache() const { return TransformerCache<B>::make(layers.size()); }
};

/// Decoder input: target [batch, seq_t, d] and encoder memory [batch, seq_m, d] with masks; target_causal: target
/// position i attends to target positions ≤ i, without a mask tensor.
template <class B> struct TransformerDecoderInput {
  Tensor<B, 3> target, memory;
  std::optional<Tensor<B, 2, Bool>> target_mask_pad, memory_mask_pad;
  std::optional<Tensor<B, 3, Bool>> target_mask_attn, memory_mask_attn;
  bool target_causal = false;
  TransformerDecoderInput(Tensor<B, 3> t, Tensor<B, 3> m) : target(std::move(t)), memory(std::move(m)) {}
  TransformerDecoderInput with_target_mask_pad(Tensor<B, 2, Bool> m) const {
    auto c = *this;
    c.target_mask_pad = std::move(m);
    return c;
  }
  TransformerDecoderInput with_target_mask_attn(Tensor<B, 3, Bool> m) const {
    auto c = *this;
    c.target_mask_attn = std::move(m);
    return c;
  }
  TransformerDecoderInput with_memory_mask_pad(Tensor<B, 2, Bool> m) const {
    auto c = *this;
    c.memory_mask_pad = std::move(m);
    return c;
  }
  TransformerDecoderInput with_memory_mask_attn(Tensor<B, 3, Bool> m) const {
    auto c = *this;
    c.memory_mask_attn = std::move(m);
    return c;
  }
  TransformerDecoderInput with_target_causal(bool on = true) const {
    auto c = *this;
    c.target_causal = on;
    return c;
  }
};

/// One decoder block: masked self-attention, cross-attention on the memory, feed-forward.
template <class B> struct TransformerDecoderLayer {
  MultiHeadAttention<B> self_attn, cross_attn;
  PositionWiseFeedForward<B> pwff;
  LayerNorm<B> norm_1, norm_2, norm_3;
  Dropout dropout;
  bool norm_first = false;
  SCORCH_MODULE(TransformerDecoderLayer, self_attn, cross_attn, pwff, norm_1, norm_2, norm_3, dropout, norm_first)

  Tensor<B, 3> forward(const Tensor<B, 3>& x, const TransformerDecoderInput<B>& in, MhaCache<B>* self_cache = nullptr,
                       MhaCache<B>* cross_cache = nullptr) const {
    auto self_block = [&](const Tensor<B, 3>& h) {
      auto q = MhaInput<B>::self_attn(h);
      q.mask_pad = in.target_mask_pad, q.mask_attn = in.target_mask_attn, q.causal = in.target_causal;
      return dropout.forward(self_cache ? self_attn.forward_cache(q, *self_cache, false).context
                                        : self_attn.forward_context(q));
    };
    auto cross_block = [&](const Tensor<B, 3>& h) {
      auto q = MhaInput<B>::make(h, in.memory, in.memory);
      q.mask_pad = in.memory_mask_pad, q.mask_attn = in.memory_mask_attn;
      return dropout.forward(cross_cache ? cross_attn.forward_cache(q, *cross_cache, false).context
                                         : cross_attn.forward_context(q));
    };
    if (norm_first) {
      auto h = x + self_block(norm_1.forward(x));
      h = h + cross_block(norm_2.forward(h));
      return h + dropout.forward(pwff.forward(norm_3.forward(h)));
    }
    auto h = norm_1.forward(x + self_block(x));
    h = norm_2.forward(h + cross_block(h));
    return norm_3.forward(h + dropout.forward(pwff.forward(h)));
  }
};

/// A stack of decoder layers.
template <class B> struct TransformerDecoder {
  std::vector<TransformerDecoderLayer<B>> layers;
  SCORCH_MODULE(TransformerDecoder, layers)

  Tensor<B, 3> forward(const TransformerDecoderInput<B>& input) const {
    auto x = input.target;
    for (const auto& layer : layers) x = layer.forward(x, input);
    return x;
  }
  /// Decodes new target positions only (input.target holds them), causally, reusing the cache.
  Tensor<B, 3> forward_autoregressive_inference(const TransformerDecoderInput<B>& input,
                                                TransformerCache<B>& cache) const {
    if (cache.self_attn.size() != layers.size()) cache = TransformerCache<B>::make(layers.size());
    auto x = input.target;
    for (size_t i = 0; i < layers.size(); ++i)
      x = layers[i].forward(x, input, &cache.self_attn[i], &cache.cross_attn[i]);
    return x;
  }
  TransformerCache<B> new_autoregressive_cache() const { return TransformerCache<B>::make(layers.size()); }
};

template <class Tag> template <class B> auto TransformerConfig<Tag>::init(const typename B::Device& device) const {
  if constexpr (std::is_same_v<Tag, EncoderTag>) {
    TransformerEncoder<B> enc;
    for (size_t i = 0; i < n_layers; ++i)
      enc.layers.push_back({attention<B>(device), feed_forward<B>(device), norm<B>(device), norm<B>(device),
                            DropoutConfig(dropout).init(), norm_first});
    return enc;
  } else {
    TransformerDecoder<B> dec;
    for (size_t i = 0; i < n_layers; ++i)
      dec.layers.push_back({attention<B>(device), attention<B>(device), feed_forward<B>(device), norm<B>(device),
                            norm<B>(device), norm<B>(device), DropoutConfig(dropout).init(), norm_first});
    return dec;
  }
}

}  // namespace scorch::nn
