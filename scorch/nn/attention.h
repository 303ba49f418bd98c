#pragma once
// Multi-head attention with padding and attention masks, attention weights in
// the output, and an autoregressive cache; plus the mask helpers transformers use.
#include <cmath>
#include <optional>

#include "scorch/backend/graph_capture.h"
#include "scorch/nn/dropout.h"
#include "scorch/nn/linear.h"
#include "scorch/tensor/activation.h"
#include "scorch/tensor/functional.h"

namespace scorch::nn {

/// Bool [batch, seq, seq]: true above the diagonal (position i may not see j > i).
template <class B>
Tensor<B, 3, Bool> generate_autoregressive_mask(size_t batch, size_t seq, const typename B::Device& device = {}) {
  auto row = Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(seq), device).template reshape<2>({seq, size_t{1}});
  auto col = Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(seq), device).template reshape<2>({size_t{1}, seq});
  auto mask = col.expand_to({seq, seq}).greater(row.expand_to({seq, seq}));
  return mask.template unsqueeze<3>().expand_to({batch, seq, seq});
}

/// Token ids padded to a common length, and the mask that marks the padding.
template <class B> struct GeneratePaddingMask {
  Tensor<B, 2, Int> tensor;
  Tensor<B, 2, Bool> mask;
};
/// Pads every sequence with pad_token to the longest (or truncates to max_seq_length).
template <class B> GeneratePaddingMask<B> generate_padding_mask(int64_t pad_token,
                                                                const std::vector<std::vector<int64_t>>& tokens,
                                                                std::optional<size_t> max_seq_length,
                                                                const typename B::Device& device = {}) {
  size_t seq = 0;
  for (const auto& t : tokens) seq = std::max(seq, t.size());
  if (max_seq_length) seq = std::min(seq, *max_seq_length);
  std::vector<int64_t> ids(tokens.size() * seq, pad_token);
  std::vector<bool> pad(tokens.size() * seq, true);
  for (size_t b = 0; b < tokens.size(); ++b)
    for (size_t i = 0; i < std::min(seq, tokens[b].size()); ++i)
      ids[b * seq + i] = tokens[b][i], pad[b * seq + i] = false;
  return {Tensor<B, 2, Int>::from_data(TensorData(ids, {tokens.size(), seq}), device),
          Tensor<B, 2, Bool>::from_data(TensorData(pad, {tokens.size(), seq}), device)};
}

/// Query, key and value [batch, seq, d_model] with optional masks (true = ignore):
/// mask_pad Bool [batch, seq_k], mask_attn Bool [batch, seq_q, seq_k]; causal hides key j from query i when j > i
/// without a mask tensor (the fused attention kernels then skip those keys).
template <class B> struct MhaInput {
  Tensor<B, 3> query, key, value;
  std::optional<Tensor<B, 2, Bool>> mask_pad;
  std::optional<Tensor<B, 3, Bool>> mask_attn;
  bool causal = false;
  /// x as query, key and value (inside an autocast scope cast once, not by each projection).
  static MhaInput self_attn(const Tensor<B, 3>& x) {
    auto low = amp::to_autocast(x);
    return {low, low, low, std::nullopt, std::nullopt};
  }
  static MhaInput make(const Tensor<B, 3>& q, const Tensor<B, 3>& k, const Tensor<B, 3>& v) {
    return {q, k, v, std::nullopt, std::nullopt};
  }
  MhaInput with_mask_pad(Tensor<B, 2, Bool> m) const {
    auto c = *this;
    c.mask_pad = std::move(m);
    return c;
  }
  MhaInput with_mask_attn(Tensor<B, 3, Bool> m) const {
    auto c = *this;
    c.mask_attn = std::move(m);
    return c;
  }
  MhaInput with_causal(bool on = true) const {
    auto c = *this;
    c.causal = on;
    return c;
  }
};

/// The attention result: context [batch, seq_q, d_model] and weights [batch, heads, seq_q, seq_k].
template <class B> struct MhaOutput {
  Tensor<B, 3> context;
  Tensor<B, 4> weights;
};

/// Projected keys and values of earlier positions. Autoregressive: new keys/values append;
/// cross-attention: the first call's keys/values are kept (the memory does not change).
template <class B> struct MhaCache {
  std::optional<Tensor<B, 4>> key, value;
  bool cross_attention = false;
  static MhaCache autoregressive() { return {}; }
  static MhaCache autoregressive_cross_attention() { return {std::nullopt, std::nullopt, true}; }
  /// Positions cached so far.
  size_t length() const { return key ? key->shape()[2] : 0; }
};

template <class B> struct MultiHeadAttention;

/// Attention settings (Burn's defaults: dropout 0.1, masked scores set to min_float).
struct MultiHeadAttentionConfig {
  size_t d_model, n_heads;
  double dropout = 0.1;
  double min_float = -1e4;
  bool quiet_softmax = false;
  Initializer initializer = Initializer::kaiming_uniform();
  bool query_bias = true, key_bias = true, value_bias = true, output_bias = true;
  SCORCH_CONFIG(MultiHeadAttentionConfig, (d_model, n_heads),
                (dropout, min_float, quiet_softmax, initializer, query_bias, key_bias, value_bias, output_bias))
  /// Throws ValueError unless n_heads divides d_model.
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> MultiHeadAttention<B> init(const typename B::Device& device = {}) const;
};

/// softmax(q·kᵀ/√d_k + masks)·v per head, with learned input and output projections.
template <class B> struct MultiHeadAttention {
  Linear<B> query, key, value, output;
  Dropout dropout;
  size_t n_heads = 1;
  double min_float = -1e4;
  bool quiet_softmax = false;
  SCORCH_MODULE(MultiHeadAttention, query, key, value, output, dropout, n_heads, min_float, quiet_softmax)

  MhaOutput<B> forward(const MhaInput<B>& in) const {
    check(in);
    return attend(heads(query.forward(in.query)), heads(key.forward(in.key)), heads(value.forward(in.value)), in, true);
  }
  /// The context alone: without weights to return and with the plain softmax, it runs one fused attention op, with
  /// its dropout in training (masked keys get −∞ rather than min_float: equal unless a row is fully masked).
  Tensor<B, 3> forward_context(const MhaInput<B>& in) const {
    check(in);
    return attend(heads(query.forward(in.query)), heads(key.forward(in.key)), heads(value.forward(in.value)), in, false)
        .context;
  }

  /// Attention for new query positions only, reusing cached keys/values. For self-attention the
  /// new positions also attend to each other causally; the result equals those rows of a causal forward.
  MhaOutput<B> forward_cache(const MhaInput<B>& in, MhaCache<B>& cache, bool need_weights = true) const {
    check(in);
    auto q = heads(query.forward(in.query));
    if (!cache.cross_attention || !cache.key) {
      auto k = heads(key.forward(in.key)), v = heads(value.forward(in.value));
      cache.key = cache.key ? Tensor<B, 4>::cat({*cache.key, k}, 2) : k;
      cache.value = cache.value ? Tensor<B, 4>::cat({*cache.value, v}, 2) : v;
    }
    auto masks = in.with_causal(false);  // new positions are not the first: causal_block places them
    bool causal = !cache.cross_attention && (in.causal || !masks.mask_attn);
    if (causal) {
      auto block = causal_block(in.query.shape()[0], in.query.shape()[1], cache.length(), in.query.device());
      masks.mask_attn = masks.mask_attn ? masks.mask_attn->bool_or(block) : block;
    }
    return attend(q, *cache.key, *cache.value, masks, need_weights);
  }

 private:
  void check(const MhaInput<B>& in) const {
    size_t d = n_heads * head_dim();
    for (const auto* t : {&in.query, &in.key, &in.value})
      if (t->shape()[2] != d)
        throw ShapeError("MultiHeadAttention::forward",
                         "input " + t->shape().to_string() + " must end in d_model " + std::to_string(d));
    if (in.key.shape() != in.value.shape())
      throw ShapeError("MultiHeadAttention::forward",
                       "key " + in.key.shape().to_string() + " and value " + in.value.shape().to_string() + " differ");
  }
  size_t head_dim() const { return query.weight.val().shape()[query.layout == LinearLayout::Row ? 1 : 0] / n_heads; }
  /// [batch, seq, d_model] → [batch, heads, seq, d_k].
  Tensor<B, 4> heads(const Tensor<B, 3>& x) const {
    auto [b, s, d] = x.dims();
    return x.template reshape<4>({b, s, n_heads, d / n_heads}).swap_dims(1, 2);
  }
  /// Bool [batch, new, cached]: new position i (absolute cached - new + i) may not see later ones.
  static Tensor<B, 3, Bool> causal_block(size_t batch, size_t fresh, size_t total, const typename B::Device& device) {
    auto row = Tensor<B, 1, Int>::arange(static_cast<int64_t>(total - fresh), static_cast<int64_t>(total), device)
                   .template reshape<2>({fresh, size_t{1}});
    auto col =
        Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(total), device).template reshape<2>({size_t{1}, total});
    return col.expand_to({fresh, total})
        .greater(row.expand_to({fresh, total}))
        .template unsqueeze<3>()
        .expand_to({batch, fresh, total});
  }
  /// Attention of the heads with in's masks.
  MhaOutput<B> attend(const Tensor<B, 4>& q, const Tensor<B, 4>& k, const Tensor<B, 4>& v, const MhaInput<B>& in,
                      bool need_weights) const {
    auto [b, h, sq, dk] = q.dims();
    size_t sk = k.shape()[2];
    // In training (Autodiff) dropout runs inside the fused op, except in a captured step, whose replays would
    // reuse one host-drawn seed: there it stays a random op of its own.
    bool dropout_active = AutodiffBackend<B> && dropout.prob > 0;
    if (!need_weights && !quiet_softmax && !(dropout_active && step_capture_active())) {
      auto mask = merged_mask(b, sq, sk, in.mask_pad, in.mask_attn);
      double drop = dropout_active ? dropout.prob : 0.0;
      auto context = functional::attention(q, k, v, mask, std::nullopt, in.causal, drop)
                         .swap_dims(1, 2)
                         .template reshape<3>({b, sq, h * dk});
      return {output.forward(context), {}};
    }
    auto scores = q.matmul(k.swap_dims(2, 3)) * (1.0 / std::sqrt(static_cast<double>(dk)));
    auto mask = merged_mask(b, sq, sk, in.mask_pad, in.mask_attn);
    if (in.causal) {
      auto future = Tensor<B, 4, Bool>::tril_mask({size_t{1}, size_t{1}, sq, sk}, 0, q.device());
      mask = mask ? mask->bool_or(future) : future;
    }
    if (mask) scores = scores.mask_fill(mask->expand_to({b, h, sq, sk}), min_float);
    auto weights = quiet_softmax ? activation::quiet_softmax(scores, 3) : activation::softmax(scores, 3);
    auto context = dropout.forward(weights).matmul(v).swap_dims(1, 2).template reshape<3>({b, sq, h * dk});
    return {output.forward(context), weights};
  }
  /// The padding and attention masks as one Bool [batch, 1, seq_q, seq_k] (true = ignore); throws ShapeError on a wrong
  /// shape.
  static std::optional<Tensor<B, 4, Bool>> merged_mask(size_t b, size_t sq, size_t sk,
                                                       const std::optional<Tensor<B, 2, Bool>>& mask_pad,
                                                       const std::optional<Tensor<B, 3, Bool>>& mask_attn) {
    std::optional<Tensor<B, 4, Bool>> mask;
    if (mask_pad) {
      if (mask_pad->shape() != Shape{b, sk})
        throw ShapeError("MultiHeadAttention::forward", "mask_pad " + mask_pad->shape().to_string() +
                                                            " must be [batch, seq_k] = [" + std::to_string(b) + ", " +
                                                            std::to_string(sk) + "]");
      mask = mask_pad->template reshape<4>({b, size_t{1}, size_t{1}, sk}).expand_to({b, size_t{1}, sq, sk});
    }
    if (mask_attn) {
      if (mask_attn->shape() != Shape{b, sq, sk})
        throw ShapeError("MultiHeadAttention::forward",
                         "mask_attn " + mask_attn->shape().to_string() + " must be [batch, seq_q, seq_k]");
      auto m = mask_attn->template reshape<4>({b, size_t{1}, sq, sk});
      mask = mask ? mask->bool_or(m) : m;
    }
    return mask;
  }
};

template <class B> MultiHeadAttention<B> MultiHeadAttentionConfig::init(const typename B::Device& device) const {
  if (n_heads == 0 || d_model % n_heads != 0)
    throw ValueError("MultiHeadAttentionConfig::init", "d_model " + std::to_string(d_model) + " does not split into " +
                                                           std::to_string(n_heads) + " heads");
  auto linear = [&](bool bias) {
    return LinearConfig(d_model, d_model).with_bias(bias).with_initializer(initializer).template init<B>(device);
  };
  return MultiHeadAttention<B>{linear(query_bias),
                               linear(key_bias),
                               linear(value_bias),
                               linear(output_bias),
                               DropoutConfig(dropout).init(),
                               n_heads,
                               min_float,
                               quiet_softmax};
}

/// Keys and values of a fixed context, computed once and reused by every query step.
template <class B> struct CrossAttentionCache { std::optional<Tensor<B, 4>> key, value; };

template <class B> struct CrossAttention;

/// Cross-attention settings: queries of d_model attend to a context of d_context through
/// n_heads query heads sharing n_heads_kv key/value heads (grouped-query; 1 = multi-query).
struct CrossAttentionConfig {
  size_t d_model, d_context, n_heads, n_heads_kv, d_head;
  double dropout = 0.1;
  double min_float = -1e4;
  bool quiet_softmax = false;
  Initializer initializer = Initializer::kaiming_uniform();
  SCORCH_CONFIG(CrossAttentionConfig, (d_model, d_context, n_heads, n_heads_kv, d_head),
                (dropout, min_float, quiet_softmax, initializer))
  /// Throws ValueError unless n_heads_kv divides n_heads.
  template <class B> CrossAttention<B> init(const typename B::Device& device = {}) const;
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
};

/// softmax(q·kᵀ/√d_head)·v with kv head h serving query heads h·r … h·r + r − 1 (r = n_heads / n_heads_kv).
template <class B> struct CrossAttention {
  Linear<B> query, key, value, output;
  Dropout dropout;
  size_t n_heads = 1, n_heads_kv = 1, d_head = 1;
  double min_float = -1e4;
  bool quiet_softmax = false;
  SCORCH_MODULE(CrossAttention, query, key, value, output, dropout, n_heads, n_heads_kv, d_head, min_float,
                quiet_softmax)

  /// query [batch, seq_q, d_model], context [batch, seq_c, d_context], mask_pad Bool [batch, seq_c] (true = ignore).
  Tensor<B, 3> forward(const Tensor<B, 3>& q, const Tensor<B, 3>& context,
                       const std::optional<Tensor<B, 2, Bool>>& mask_pad = std::nullopt) const {
    CrossAttentionCache<B> cache;
    return forward_cache(q, context, cache, mask_pad);
  }
  /// The same, computing the context's keys and values only on the first call.
  Tensor<B, 3> forward_cache(const Tensor<B, 3>& q, const Tensor<B, 3>& context, CrossAttentionCache<B>& cache,
                             const std::optional<Tensor<B, 2, Bool>>& mask_pad = std::nullopt) const {
    auto [b, sq, d] = q.dims();
    if (d != query.weight.val().shape()[query.layout == LinearLayout::Row ? 0 : 1])
      throw ShapeError("CrossAttention::forward", "query " + q.shape().to_string() + " does not end in d_model");
    if (!cache.key) cache.key = kv_heads(key.forward(context)), cache.value = kv_heads(value.forward(context));
    size_t sc = cache.key->shape()[2];
    auto qh = query.forward(q).template reshape<4>({b, sq, n_heads, d_head}).swap_dims(1, 2);
    auto scores = qh.matmul(cache.key->swap_dims(2, 3)) * (1.0 / std::sqrt(static_cast<double>(d_head)));
    if (mask_pad) {
      if (mask_pad->shape() != Shape{b, sc})
        throw ShapeError("CrossAttention::forward",
                         "mask_pad " + mask_pad->shape().to_string() + " must be [batch, seq_context]");
      scores = scores.mask_fill(
          mask_pad->template reshape<4>({b, size_t{1}, size_t{1}, sc}).expand_to({b, n_heads, sq, sc}), min_float);
    }
    auto weights = quiet_softmax ? activation::quiet_softmax(scores, 3) : activation::softmax(scores, 3);
    auto ctx =
        dropout.forward(weights).matmul(*cache.value).swap_dims(1, 2).template reshape<3>({b, sq, n_heads * d_head});
    return output.forward(ctx);
  }

 private:
  /// [batch, seq, n_heads_kv·d_head] → [batch, n_heads, seq, d_head], each kv head repeated for its group.
  Tensor<B, 4> kv_heads(const Tensor<B, 3>& x) const {
    auto [b, s, d] = x.dims();
    size_t rep = n_heads / n_heads_kv;
    auto h = x.template reshape<4>({b, s, n_heads_kv, d_head}).swap_dims(1, 2);
    return h.template unsqueeze_dim<5>(2)
        .expand_to({b, n_heads_kv, rep, s, d_head})
        .template reshape<4>({b, n_heads, s, d_head});
  }
};

template <class B> CrossAttention<B> CrossAttentionConfig::init(const typename B::Device& device) const {
  if (n_heads_kv == 0 || n_heads % n_heads_kv != 0)
    throw ValueError("CrossAttentionConfig::init", std::to_string(n_heads) + " query heads do not split into " +
                                                       std::to_string(n_heads_kv) + " key/value groups");
  auto linear = [&](size_t in, size_t out) {
    return LinearConfig(in, out).with_initializer(initializer).template init<B>(device);
  };
  return {linear(d_model, n_heads * d_head),
          linear(d_context, n_heads_kv * d_head),
          linear(d_context, n_heads_kv * d_head),
          linear(n_heads * d_head, d_model),
          DropoutConfig(dropout).init(),
          n_heads,
          n_heads_kv,
          d_head,
          min_float,
          quiet_softmax};
}

}  // namespace scorch::nn
