// The model registry (web_model.h) and the C functions of web_api.h.
#include "scorch/web/web_api.h"

#include <cstring>
#include <limits>
#include <map>
#include <new>

#include "scorch/core/error.h"
#include "scorch/module/recorder.h"
#include "scorch/web/web_model.h"

namespace scorch::web {

namespace {
std::map<std::string, ModelFactory>& registry() {
  static std::map<std::string, ModelFactory> factories;
  return factories;
}

std::string joined_names(const char* separator) {
  std::string out;
  for (const auto& name : model_names()) out += (out.empty() ? "" : separator) + name;
  return out;
}
}  // namespace

bool register_model(const std::string& name, ModelFactory factory) {
  registry()[name] = std::move(factory);
  return true;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;
}

namespace {
const ModelFactory& factory_of(const std::string& name, const char* op) {
  auto found = registry().find(name);
  if (found == registry().end())
    throw ValueError(op, "no model named '" + name + "' (registered: " + joined_names(", ") + ")");
  return found->second;
}
}  // namespace

std::unique_ptr<Model> load_model(const std::string& name, const std::string& config, const Record& record) {
  return factory_of(name, "web::load_model")(config, record);
}

namespace {
/// A loaded model and its last output (whose values and dims the page reads).
struct Loaded {
  std::unique_ptr<Model> model;
  TensorData output;
  std::vector<uint32_t> output_dims;
};

struct State {
  std::map<int32_t, Loaded> models;
  int32_t next_handle = 1;
  std::string error, names;
};

State& state() {
  static State s;
  return s;
}

/// Runs body; on an exception stores its message (a scorch::Error's, or "[op] ..." for others) as the error and
/// returns fallback.
template <class T, class Body> T guarded(const char* op, T fallback, Body body) {
  try {
    return body();
  } catch (const Error& e) { state().error = e.what(); } catch (const std::bad_alloc&) {
    state().error = "[" + std::string(op) + "] out of memory";
  } catch (const std::exception& e) { state().error = "[" + std::string(op) + "] " + e.what(); }
  return fallback;
}

/// The loaded model of handle, or null.
Loaded* find_loaded(int32_t handle) {
  auto found = state().models.find(handle);
  return found == state().models.end() ? nullptr : &found->second;
}

Loaded& loaded(const char* op, int32_t handle) {
  Loaded* entry = find_loaded(handle);
  if (!entry) throw ValueError(op, "handle " + std::to_string(handle) + " is not a loaded model");
  return *entry;
}

Record decode_record(const uint8_t* bytes, size_t size) {
  auto span = std::as_bytes(std::span(bytes, size));
  bool json = size > 0 && bytes[0] == '{';
  return formats::decode(span, json ? formats::Format::Json : formats::Format::Bin, "record bytes");
}

/// The input's shape from dims; ShapeError when the rank is not the model's or the size is too large.
Shape input_shape(const Model& model, const uint32_t* dims, uint32_t rank) {
  if (rank != model.input_rank())
    throw ShapeError("scorch_web_run", "input of rank " + std::to_string(rank) + "; the model takes rank " +
                                           std::to_string(model.input_rank()));
  if (rank > 0 && !dims) throw ValueError("scorch_web_run", "dims is null");
  Shape shape(std::vector<size_t>(dims, dims + rank));
  if (!shape.checked_num_bytes(sizeof(float)))
    throw ShapeError("scorch_web_run", "input of shape " + shape.to_string() + " is too large");
  return shape;
}
}  // namespace

}  // namespace scorch::web

using namespace scorch;
using namespace scorch::web;

extern "C" {

int32_t scorch_web_load(const char* name, const char* config, const uint8_t* record, size_t record_size) {
  return guarded("scorch_web_load", int32_t{0}, [&] {
    if (!name || !config || (!record && record_size > 0))
      throw ValueError("scorch_web_load", "name, config and record must not be null");
    auto model = factory_of(name, "scorch_web_load")(config, decode_record(record, record_size));
    if (!model) throw ValueError("scorch_web_load", std::string("the factory of '") + name + "' returned no model");
    if (state().next_handle == std::numeric_limits<int32_t>::max())
      throw ValueError("scorch_web_load", "no handles left");
    int32_t handle = state().next_handle++;
    state().models[handle].model = std::move(model);
    return handle;
  });
}

const float* scorch_web_run(int32_t handle, const float* input, const uint32_t* dims, uint32_t rank) {
  return guarded("scorch_web_run", static_cast<const float*>(nullptr), [&] {
    Loaded& entry = loaded("scorch_web_run", handle);
    Shape shape = input_shape(*entry.model, dims, rank);
    if (!input && shape.num_elements() > 0) throw ValueError("scorch_web_run", "input is null");
    std::vector<std::byte> bytes(shape.num_elements() * sizeof(float));
    if (!bytes.empty()) std::memcpy(bytes.data(), input, bytes.size());
    TensorData output = entry.model->run(TensorData::from_bytes(std::move(bytes), shape, DType::F32));
    entry.output = output.dtype() == DType::F32 ? std::move(output) : output.convert(DType::F32);
    entry.output_dims.assign(entry.output.shape().begin(), entry.output.shape().end());
    static const float kNoValues = 0;  // a non-null answer for an empty output: null means failure
    return entry.output.num_elements() == 0 ? &kNoValues : entry.output.as_span<float>().data();
  });
}

uint32_t scorch_web_output_rank(int32_t handle) {
  Loaded* entry = find_loaded(handle);
  return entry ? static_cast<uint32_t>(entry->output_dims.size()) : 0;
}

const uint32_t* scorch_web_output_dims(int32_t handle) {
  Loaded* entry = find_loaded(handle);
  return entry && !entry->output_dims.empty() ? entry->output_dims.data() : nullptr;
}

bool scorch_web_free(int32_t handle) {
  return guarded("scorch_web_free", false, [&] {
    loaded("scorch_web_free", handle);
    state().models.erase(handle);
    return true;
  });
}

const char* scorch_web_error() { return state().error.c_str(); }

const char* scorch_web_models() {
  state().names = joined_names(",");
  return state().names.c_str();
}
}
