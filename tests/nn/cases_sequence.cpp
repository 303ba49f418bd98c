// Sequence cases: attention, transformer encoder/decoder, LSTM/GRU/RNN.
#include "nn_harness.h"

namespace scorch::nntest {
namespace {

using Outs = std::vector<Tensor<AD, 1>>;

nn::TransformerEncoderConfig encoder_config(bool norm_first) {
  return nn::TransformerEncoderConfig(8, 16, 2, 2).with_dropout(0.0).with_norm_first(norm_first);
}

void add_attention(CaseTable& t) {
  t["mha_self"] = [](const CaseInputs& in) {
    return module_case(in, nn::MultiHeadAttentionConfig(8, 2).with_dropout(0.0).init<AD>(), [&](const auto& m) {
      auto out = m.forward(nn::MhaInput<AD>::self_attn(in.f<3>(0)).with_mask_pad(in.b<2>(1)));
      return Outs{flat(out.context), flat(out.weights)};
    });
  };
  t["mha_cross_mask"] = [](const CaseInputs& in) {
    return module_case(in, nn::MultiHeadAttentionConfig(8, 2).with_dropout(0.0).init<AD>(), [&](const auto& m) {
      auto kv = in.f<3>(1);
      auto out = m.forward(nn::MhaInput<AD>::make(in.f<3>(0), kv, kv).with_mask_attn(in.b<3>(2)));
      return Outs{flat(out.context), flat(out.weights)};
    });
  };
  t["cross_attention_gqa"] = [](const CaseInputs& in) {
    return module_case(in, nn::CrossAttentionConfig(6, 5, 4, 2, 3).with_dropout(0.0).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0), in.f<3>(1), in.b<2>(2)))}; });
  };
  t["pwff"] = [](const CaseInputs& in) {
    return module_case(in, nn::PositionWiseFeedForwardConfig(6, 10).with_dropout(0.0).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  for (bool norm_first : {false, true})
    t[norm_first ? "transformer_encoder_norm_first" : "transformer_encoder"] = [norm_first](const CaseInputs& in) {
      return module_case(in, encoder_config(norm_first).init<AD>(), [&](const auto& m) {
        return Outs{flat(m.forward(nn::TransformerEncoderInput<AD>(in.f<3>(0)).with_mask_pad(in.b<2>(1))))};
      });
    };
  t["transformer_decoder"] = [](const CaseInputs& in) {
    return module_case(in, nn::TransformerDecoderConfig(8, 16, 2, 2).with_dropout(0.0).init<AD>(), [&](const auto& m) {
      auto target = in.f<3>(0);
      auto mask = nn::generate_autoregressive_mask<AD>(2, 4);
      return Outs{flat(m.forward(nn::TransformerDecoderInput<AD>(target, in.f<3>(1)).with_target_mask_attn(mask)))};
    });
  };
}

void add_recurrent(CaseTable& t) {
  t["lstm"] = [](const CaseInputs& in) {
    return module_case(in, nn::LstmConfig(3, 4).init<AD>(), [&](const auto& m) {
      auto [out, state] = m.forward(in.f<3>(0));
      return Outs{flat(out), flat(state.cell), flat(state.hidden)};
    });
  };
  t["lstm_state"] = [](const CaseInputs& in) {
    return module_case(in, nn::LstmConfig(3, 4).init<AD>(), [&](const auto& m) {
      auto [out, state] = m.forward(in.f<3>(0), nn::LstmState<AD>{in.f<2>(1), in.f<2>(2)});
      return Outs{flat(out), flat(state.cell), flat(state.hidden)};
    });
  };
  t["bilstm"] = [](const CaseInputs& in) {
    return module_case(in, nn::BiLstmConfig(nn::LstmConfig(3, 4)).init<AD>(), [&](const auto& m) {
      auto [out, state] = m.forward(in.f<3>(0));
      return Outs{flat(out), flat(state.cell), flat(state.hidden)};
    });
  };
  t["gru"] = [](const CaseInputs& in) {
    return module_case(in, nn::GruConfig(3, 4).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["bigru"] = [](const CaseInputs& in) {
    return module_case(in, nn::BiGruConfig(nn::GruConfig(3, 4)).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["birnn"] = [](const CaseInputs& in) {
    return module_case(in, nn::BiRnnConfig(nn::RnnConfig(3, 4)).init<AD>(), [&](const auto& m) {
      auto [out, h] = m.forward(in.f<3>(0));
      return Outs{flat(out), flat(h)};
    });
  };
  t["rnn"] = [](const CaseInputs& in) {
    return module_case(in, nn::RnnConfig(3, 4).init<AD>(), [&](const auto& m) {
      auto [out, h] = m.forward(in.f<3>(0));
      return Outs{flat(out), flat(h)};
    });
  };
}

}  // namespace

void add_sequence_cases(CaseTable& t) {
  add_attention(t);
  add_recurrent(t);
}

}  // namespace scorch::nntest
