#pragma once
// Modules: a struct lists its fields once with SCORCH_MODULE and gets the whole module API —
//
//   template <Backend B> struct Mlp {
//     nn::Linear<B> input, output;
//     Param<Tensor<B, 1>> scale;
//     size_t hidden = 64;                         // plain field: copied, not saved
//     SCORCH_MODULE(Mlp, input, output, scale, hidden)
//   };
//
// num_params, devices, visit, map, to_device, fork, no_grad, valid (autodiff → inner backend),
// into_record / load_record and save_file / load_file. Field names are the record keys.
#include "scorch/module/module_api.h"

/// Declares a module's fields (inside the struct, after them); one level of macro, the rest is templates.
#define SCORCH_MODULE(Name, ...)                                                                                    \
  static constexpr std::string_view scorch_module_name = #Name;                                                     \
  static constexpr std::string_view scorch_field_names = #__VA_ARGS__;                                              \
  auto scorch_fields() { return std::tie(__VA_ARGS__); }                                                            \
  auto scorch_fields() const { return std::tie(__VA_ARGS__); }                                                      \
  size_t num_params() const { return ::scorch::num_params(*this); }                                                 \
  auto devices() const { return ::scorch::devices(*this); }                                                         \
  template <class Visitor> void visit(Visitor& visitor) const { ::scorch::visit_module(*this, visitor); }           \
  template <class Mapper> Name map(Mapper& mapper) const { return ::scorch::map_module(*this, mapper); }            \
  template <class Device> Name to_device(const Device& device) const { return ::scorch::to_device(*this, device); } \
  template <class Device> Name fork(const Device& device) const { return ::scorch::fork(*this, device); }           \
  Name no_grad() const { return ::scorch::no_grad(*this); }                                                         \
  template <class Self = Name> auto valid() const { return ::scorch::valid(static_cast<const Self&>(*this)); }      \
  ::scorch::Record into_record() const { return ::scorch::into_record(*this); }                                     \
  Name load_record(const ::scorch::Record& record, const ::scorch::LoadOptions& options = {}) const {               \
    return ::scorch::load_record(*this, record, options);                                                           \
  }                                                                                                                 \
  template <class Recorder> std::string save_file(const std::string& path, const Recorder& recorder) const {        \
    return ::scorch::save_file(*this, path, recorder);                                                              \
  }                                                                                                                 \
  template <class Recorder, class Device> Name load_file(const std::string& path, const Recorder& recorder,         \
                                                         const Device& device,                                      \
                                                         const ::scorch::LoadOptions& options = {}) const {         \
    return ::scorch::load_file(*this, path, recorder, device, options);                                             \
  }
