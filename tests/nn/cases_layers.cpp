// Layer cases: linear, embedding, convolutions, pools, norms, resampling, positional encodings.
#include "nn_harness.h"

namespace scorch::nntest {
namespace {

using Outs = std::vector<Tensor<AD, 1>>;

/// A module-free case: one output from the inputs.
template <class F> CaseFn plain(F body) {
  return [body](const CaseInputs& in) {
    CaseRun run;
    run.outputs = {body(in)};
    return run;
  };
}

void add_linear_and_conv(CaseTable& t) {
  t["linear"] = [](const CaseInputs& in) {
    return module_case(in, nn::LinearConfig(5, 3).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["linear_nobias"] = [](const CaseInputs& in) {
    return module_case(in, nn::LinearConfig(5, 3).with_bias(false).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<2>(0)))}; });
  };
  t["embedding"] = [](const CaseInputs& in) {
    return module_case(in, nn::EmbeddingConfig(10, 4).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.i<2>(0)))}; });
  };
  t["conv1d"] = [](const CaseInputs& in) {
    auto c = nn::Conv1dConfig({2, 4}, {3}).with_stride({2}).with_padding(nn::PaddingConfig::explicit_pad({1}));
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["conv1d_same"] = [](const CaseInputs& in) {
    auto c = nn::Conv1dConfig({2, 2}, {4}).with_padding(nn::PaddingConfig::same());
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["conv2d"] = [](const CaseInputs& in) {
    auto c = nn::Conv2dConfig({4, 6}, {3, 2})
                 .with_stride({2, 1})
                 .with_padding(nn::PaddingConfig::explicit_pad({1, 0}))
                 .with_dilation({1, 2})
                 .with_groups(2);
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<4>(0)))}; });
  };
  t["conv3d"] = [](const CaseInputs& in) {
    auto c = nn::Conv3dConfig({2, 3}, {2, 2, 2}).with_padding(nn::PaddingConfig::explicit_pad({1, 0, 1}));
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<5>(0)))}; });
  };
  t["conv_transpose1d"] = [](const CaseInputs& in) {
    auto c = nn::ConvTranspose1dConfig({3, 2}, {3}).with_stride({2}).with_padding({1}).with_padding_out({1});
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["conv_transpose2d"] = [](const CaseInputs& in) {
    auto c = nn::ConvTranspose2dConfig({4, 2}, {3, 3})
                 .with_stride({2, 2})
                 .with_padding({1, 1})
                 .with_padding_out({1, 0})
                 .with_groups(2);
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<4>(0)))}; });
  };
  t["conv_transpose3d"] = [](const CaseInputs& in) {
    auto c = nn::ConvTranspose3dConfig({2, 2}, {2, 2, 2}).with_stride({2, 2, 2});
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<5>(0)))}; });
  };
}

void add_deform(CaseTable& t) {
  t["deform_conv2d"] = [](const CaseInputs& in) {
    auto c = nn::DeformConv2dConfig({4, 3}, {3, 3}).with_offset_groups(2);
    return module_case(in, c.init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<4>(0), in.f<4>(1), in.f<4>(2)))}; });
  };
  t["deform_conv2d_groups"] = [](const CaseInputs& in) {
    auto c = nn::DeformConv2dConfig({4, 4}, {2, 2})
                 .with_stride({2, 2})
                 .with_padding(nn::PaddingConfig::explicit_pad({1, 1}))
                 .with_weight_groups(2);
    return module_case(in, c.init<AD>(), [&](const auto& m) { return Outs{flat(m.forward(in.f<4>(0), in.f<4>(1)))}; });
  };
}

void add_pools(CaseTable& t) {
  t["max_pool1d"] = plain([](const CaseInputs& in) {
    return flat(nn::MaxPool1dConfig({3})
                    .with_stride(std::array<size_t, 1>{2})
                    .with_padding(nn::PaddingConfig::explicit_pad({1}))
                    .init()
                    .forward<AD>(in.f<3>(0)));
  });
  t["max_pool2d"] = plain([](const CaseInputs& in) {
    auto c = nn::MaxPool2dConfig({3, 2})
                 .with_stride(std::array<size_t, 2>{2, 1})
                 .with_padding(nn::PaddingConfig::explicit_pad({1, 0}));
    return flat(c.init().forward<AD>(in.f<4>(0)));
  });
  t["avg_pool1d"] = plain([](const CaseInputs& in) {
    auto c = nn::AvgPool1dConfig({3})
                 .with_stride(std::array<size_t, 1>{2})
                 .with_padding(nn::PaddingConfig::explicit_pad({1}))
                 .with_count_include_pad(false);
    return flat(c.init().forward<AD>(in.f<3>(0)));
  });
  t["avg_pool2d"] = plain([](const CaseInputs& in) {
    auto c = nn::AvgPool2dConfig({2, 3})
                 .with_stride(std::array<size_t, 2>{2, 2})
                 .with_padding(nn::PaddingConfig::explicit_pad({1, 1}))
                 .with_ceil_mode(true);
    return flat(c.init().forward<AD>(in.f<4>(0)));
  });
  t["adaptive_max_pool2d"] = plain([](const CaseInputs& in) {
    return flat(nn::AdaptiveMaxPool2d{{3, 2}}.forward<AD>(in.f<4>(0)));
  });
  t["cosine_similarity"] =
      plain([](const CaseInputs& in) { return flat(nn::CosineSimilarity{}.forward(in.f<3>(0), in.f<3>(1))); });
  t["pairwise_distance"] =
      plain([](const CaseInputs& in) { return flat(nn::PairwiseDistance{}.forward(in.f<2>(0), in.f<2>(1))); });
  t["adaptive_avg_pool1d"] =
      plain([](const CaseInputs& in) { return flat(nn::AdaptiveAvgPool1dConfig({4}).init().forward<AD>(in.f<3>(0))); });
  t["adaptive_avg_pool2d"] = plain([](const CaseInputs& in) {
    return flat(nn::AdaptiveAvgPool2dConfig({3, 2}).init().forward<AD>(in.f<4>(0)));
  });
}

void add_norms(CaseTable& t) {
  t["batch_norm_train"] = [](const CaseInputs& in) {
    auto m = in.load(nn::BatchNormConfig(3).init<AD>(), true);
    CaseRun run;
    run.outputs = {flat(m.forward(in.f<3>(0)))};
    run.param_grads = grads_of(m);
    run.extras = {{"running_mean", m.running_mean.value().to_data()}, {"running_var", m.running_var.value().to_data()}};
    return run;
  };
  t["batch_norm_eval"] = [](const CaseInputs& in) {
    auto m = in.load(nn::BatchNormConfig(3).init<AD>()).valid();
    CaseRun run;
    run.outputs = {Tensor<AD, 1>::from_inner(m.forward(in.constant<4>(0).inner()).reshape<1>({-1}))};
    return run;
  };
  t["layer_norm"] = [](const CaseInputs& in) {
    return module_case(in, nn::LayerNormConfig(6).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["group_norm"] = [](const CaseInputs& in) {
    return module_case(in, nn::GroupNormConfig(2, 4).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<4>(0)))}; });
  };
  t["instance_norm"] = [](const CaseInputs& in) {
    return module_case(in, nn::InstanceNormConfig(3).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["rms_norm"] = [](const CaseInputs& in) {
    return module_case(in, nn::RmsNormConfig(6).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["prelu"] = [](const CaseInputs& in) {
    return module_case(in, nn::PReluConfig().with_num_parameters(3).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<3>(0)))}; });
  };
  t["local_response_norm"] = plain([](const CaseInputs& in) {
    return flat(nn::LocalResponseNormConfig(3).with_alpha(1e-2).init().forward(in.f<3>(0)));
  });
  t["local_response_norm_2d"] = plain([](const CaseInputs& in) {
    return flat(nn::LocalResponseNormConfig(2).with_alpha(0.1).with_beta(0.5).with_k(2.0).init().forward(in.f<4>(0)));
  });
  t["swiglu"] = [](const CaseInputs& in) {
    return module_case(in, nn::SwiGluConfig(4, 3).init<AD>(),
                       [&](const auto& m) { return Outs{flat(m.forward(in.f<2>(0)))}; });
  };
}

void add_resampling(CaseTable& t) {
  t["pixel_shuffle"] = plain([](const CaseInputs& in) { return flat(nn::PixelShuffle{2}.forward<AD>(in.f<4>(0))); });
  t["pixel_unshuffle"] =
      plain([](const CaseInputs& in) { return flat(nn::PixelUnshuffle{2}.forward<AD>(in.f<4>(0))); });
  auto interp = [](nn::InterpolateModeConfig mode, bool align) {
    return plain([=](const CaseInputs& in) {
      auto c = nn::Interpolate2dConfig()
                   .with_output_size(std::array<size_t, 2>{7, 3})
                   .with_mode(mode)
                   .with_align_corners(align);
      return flat(c.init().forward<AD>(in.f<4>(0)));
    });
  };
  t["interp_nearest"] = interp(nn::InterpolateModeConfig::Nearest, false);
  t["interp_bilinear"] = interp(nn::InterpolateModeConfig::Linear, false);
  t["interp_bilinear_ac"] = interp(nn::InterpolateModeConfig::Linear, true);
  t["interp_bicubic"] = interp(nn::InterpolateModeConfig::Cubic, false);
  t["interp_nearest_exact"] = interp(nn::InterpolateModeConfig::NearestExact, false);
  t["interp_lanczos"] = interp(nn::InterpolateModeConfig::Lanczos, false);
  t["interp_lanczos_ac"] = interp(nn::InterpolateModeConfig::Lanczos, true);
  t["interp1d_nearest_exact"] = plain([](const CaseInputs& in) {
    auto c = nn::Interpolate1dConfig()
                 .with_output_size(std::array<size_t, 1>{8})
                 .with_mode(nn::InterpolateModeConfig::NearestExact);
    return flat(c.init().forward<AD>(in.f<3>(0)));
  });
  t["interp1d_linear"] = plain([](const CaseInputs& in) {
    auto c = nn::Interpolate1dConfig()
                 .with_output_size(std::array<size_t, 1>{8})
                 .with_mode(nn::InterpolateModeConfig::Linear)
                 .with_align_corners(false);
    return flat(c.init().forward<AD>(in.f<3>(0)));
  });
  t["unfold4d"] = plain([](const CaseInputs& in) {
    return flat(nn::Unfold4dConfig({2, 3}).with_stride({1, 2}).with_padding({1, 0}).init().forward<AD>(in.f<4>(0)));
  });
  t["fold4d"] = plain([](const CaseInputs& in) {
    return flat(
        nn::Fold4dConfig({4, 5}, {2, 3}).with_stride({1, 2}).with_padding({1, 0}).init().forward<AD>(in.f<3>(0)));
  });
}

void add_positional(CaseTable& t) {
  t["positional_encoding"] = [](const CaseInputs& in) {
    auto pe = nn::PositionalEncodingConfig(6).with_max_sequence_size(10).init<AD>();
    CaseRun run;
    run.outputs = {flat(pe.forward(in.f<3>(0)))};
    run.extras["sinusoids"] = pe.sinusoids.to_data();
    return run;
  };
  t["rotary_encoding"] =
      plain([](const CaseInputs& in) { return flat(nn::RotaryEncodingConfig(16, 4).init<AD>().forward(in.f<4>(0))); });
  t["rotary_encoding_offset"] =
      plain([](const CaseInputs& in) { return flat(nn::RotaryEncodingConfig(16, 4).init<AD>().apply(in.f<4>(0), 3)); });
}

}  // namespace

void add_layer_cases(CaseTable& t) {
  add_linear_and_conv(t);
  add_deform(t);
  add_pools(t);
  add_norms(t);
  add_resampling(t);
  add_positional(t);
}

}  // namespace scorch::nntest
