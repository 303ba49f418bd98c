// Sequences and optionals: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap (a body run per element), Optional,
// OptionalHasElement and OptionalGetElement. A sequence's tensors share one dtype, as ONNX requires.
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;

/// Most elements a sequence may hold: a hostile loop cannot grow one without bound, and a Loop that inserts one
/// element per iteration (each insert copies the elements the loop still shares) stays below 2^27 copies.
constexpr size_t kMaxSequenceLength = size_t(1) << 14;

/// Input i as a sequence; a ValueError naming the node for a tensor or optional.
template <class B> const Value<B>& sequence_in(const OpCall<B>& c, size_t i) {
  const Value<B>& v = c.in(i);
  if (v.kind() != Value<B>::Kind::Sequence)
    c.template fail<ValueError>("input " + std::to_string(i) + " must be a sequence");
  return v;
}

/// A ValueError naming the node when a sequence would pass kMaxSequenceLength elements.
template <class B> void check_length(const OpCall<B>& c, size_t n) {
  if (n > kMaxSequenceLength)
    c.template fail<ValueError>("a sequence of " + std::to_string(n) + " elements, above the limit of " +
                                std::to_string(kMaxSequenceLength));
}

/// A sequence of tensors of element_dtype; an error naming the node for a sequence or optional element (ONNX's
/// operators build sequences of tensors only) or a tensor of another dtype.
template <class B> Value<B> make_sequence(const OpCall<B>& c, Values<B> elements, DType element_dtype) {
  check_length(c, elements.size());
  for (const auto& e : elements) {
    if (!e.is_tensor()) c.template fail<ValueError>("a sequence holds tensors only");
    if (e.dtype() != element_dtype)
      c.template fail<DTypeError>("a " + std::string(dtype_name(e.dtype())) + " tensor in a sequence of " +
                                  std::string(dtype_name(element_dtype)));
  }
  return Value<B>::sequence(std::move(elements), element_dtype);
}

/// Position input i resolved against a sequence of n elements: in [-n, n - 1], or [-n, n] when `end_ok`.
template <class B> size_t position(const OpCall<B>& c, size_t i, size_t n, bool end_ok) {
  std::vector<int64_t> p = c.host_ints(i);
  if (p.size() != 1) c.template fail<ShapeError>("the position must hold one value");
  int64_t size = static_cast<int64_t>(n), at = p[0] < 0 ? p[0] + size : p[0];
  if (at < 0 || at > size || (at == size && !end_ok))
    c.template fail<ValueError>("position " + std::to_string(p[0]) + " is outside a sequence of " + std::to_string(n) +
                                " elements");
  return static_cast<size_t>(at);
}

template <class B> Values<B> sequence_construct(const OpCall<B>& c) {
  if (c.num_inputs() == 0) c.template fail<ValueError>("needs at least one tensor");
  Values<B> elements;
  for (size_t i = 0; i < c.num_inputs(); ++i) elements.push_back(c.in(i));
  DType dtype = elements.front().dtype();
  return {make_sequence(c, std::move(elements), dtype)};
}

/// SequenceInsert: the tensor at the position (default: the end); an empty sequence takes the tensor's dtype.
template <class B> Values<B> sequence_insert(const OpCall<B>& c) {
  sequence_in(c, 0);
  Value<B> tensor = c.in(1);
  DType dtype = c.in(0).elements().empty() ? tensor.dtype() : c.in(0).element_dtype();
  size_t n = c.in(0).elements().size();
  size_t at = c.has(2) ? position(c, 2, n, true) : n;
  check_length(c, n + 1);
  Values<B> elements = c.take(0).take_elements();
  elements.insert(elements.begin() + static_cast<std::ptrdiff_t>(at), std::move(tensor));
  return {make_sequence(c, std::move(elements), dtype)};
}

template <class B> Values<B> sequence_erase(const OpCall<B>& c) {
  DType dtype = sequence_in(c, 0).element_dtype();
  size_t n = c.in(0).elements().size();
  if (n == 0) c.template fail<ValueError>("cannot erase from an empty sequence");
  size_t at = c.has(1) ? position(c, 1, n, false) : n - 1;
  Values<B> elements = c.take(0).take_elements();
  elements.erase(elements.begin() + static_cast<std::ptrdiff_t>(at));
  return {make_sequence(c, std::move(elements), dtype)};
}

template <class B> Values<B> sequence_at(const OpCall<B>& c) {
  const Value<B>& seq = sequence_in(c, 0);
  return {seq.elements()[position(c, 1, seq.elements().size(), false)]};
}

/// SplitToSequence: chunks along axis of the lengths `split` gives (a scalar: equal chunks, the last one shorter;
/// absent: chunks of 1, the axis removed unless keepdims).
template <class B> Values<B> split_to_sequence(const OpCall<B>& c) {
  Value<B> x = c.in(0);
  Shape s = x.shape();
  size_t axis = c.axis(c.attr_int("axis", 0), s.rank()), dim = s[axis];
  std::vector<size_t> lengths;
  bool squeeze = !c.has(1) && c.attr_int("keepdims", 1) == 0;
  if (!c.has(1)) {
    check_length(c, dim);
    lengths.assign(dim, 1);
  } else if (c.in(1).shape().rank() == 0) {
    int64_t chunk = c.host_ints(1).at(0);
    if (chunk <= 0) c.template fail<ValueError>("split must be positive, got " + std::to_string(chunk));
    check_length(c, dim / static_cast<size_t>(chunk) + 1);
    for (size_t done = 0; done < dim; done += static_cast<size_t>(chunk))
      lengths.push_back(std::min(static_cast<size_t>(chunk), dim - done));
  } else {
    std::vector<int64_t> split = c.host_ints(1);
    check_length(c, split.size());
    size_t total = 0;
    for (int64_t l : split) {
      if (l < 0 || static_cast<size_t>(l) > dim - total)
        c.template fail<ShapeError>("split lengths must be non-negative and add up to the axis' " +
                                    std::to_string(dim));
      lengths.push_back(static_cast<size_t>(l));
      total += static_cast<size_t>(l);
    }
    if (total != dim)
      c.template fail<ShapeError>("split lengths add up to " + std::to_string(total) + ", the axis has " +
                                  std::to_string(dim));
  }
  Values<B> parts;
  size_t start = 0;
  for (size_t length : lengths) {
    SliceRanges r;
    for (size_t d : s) r.push_back({0, d, 1});
    r[axis] = {start, start + length, 1};
    Value<B> part = slice(x, r);
    Shape squeezed = without_dim(part.shape(), axis);
    parts.push_back(squeeze ? reshape(std::move(part), squeezed) : std::move(part));
    start += length;
  }
  return {make_sequence(c, std::move(parts), x.dtype())};
}

/// ConcatFromSequence: the tensors joined along axis, or stacked along a new axis (new_axis = 1).
template <class B> Values<B> concat_from_sequence(const OpCall<B>& c) {
  const Values<B>& elements = sequence_in(c, 0).elements();
  if (elements.empty()) c.template fail<ValueError>("cannot concatenate an empty sequence");
  bool stack = c.attr_int("new_axis", 0) == 1;
  size_t rank = elements.front().shape().rank() + (stack ? 1 : 0);
  size_t axis = c.axis(c.attr_int("axis", 0), rank);
  Values<B> parts;
  for (const auto& e : elements) {
    Shape s = e.shape();
    if (stack) s.insert(axis, 1);
    parts.push_back(reshape(e, s));
  }
  return {concat(c, parts, axis)};
}

/// SequenceMap: the body run on element i of every sequence input (and on every tensor input as it is); each body
/// output becomes a sequence.
template <class B> Values<B> sequence_map(const OpCall<B>& c) {
  const Attribute* a = c.attr("body");
  if (!a || a->graphs.empty()) c.template fail<ValueError>("attribute 'body' must hold a graph");
  const Graph& g = a->graphs.front();
  size_t n = sequence_in(c, 0).elements().size();
  if (g.inputs.size() != c.num_inputs()) c.template fail<ShapeError>("the body's inputs do not match the node's");
  for (size_t k = 1; k < c.num_inputs(); ++k)
    if (c.in(k).kind() == Value<B>::Kind::Sequence && c.in(k).elements().size() != n)
      c.template fail<ShapeError>("input " + std::to_string(k) + " is a sequence of another length");
  std::vector<Values<B>> outputs(g.outputs.size());
  for (size_t i = 0; i < n; ++i) {
    std::map<std::string, Value<B>> feed;
    for (size_t k = 0; k < c.num_inputs(); ++k) {
      const Value<B>& v = c.in(k);
      feed.insert_or_assign(g.inputs[k].name, v.kind() == Value<B>::Kind::Sequence ? v.elements()[i] : v);
    }
    Values<B> out = c.subgraphs()(g, feed);
    for (size_t k = 0; k < outputs.size(); ++k) outputs[k].push_back(std::move(out.at(k)));
  }
  Values<B> result;
  for (size_t k = 0; k < outputs.size(); ++k) {
    DType dtype = !outputs[k].empty()              ? outputs[k].front().dtype()
                  : g.outputs[k].dtype.has_value() ? *g.outputs[k].dtype
                                                   : DType::F32;
    result.push_back(make_sequence(c, std::move(outputs[k]), dtype));
  }
  return result;
}

/// Optional: the input (a tensor or sequence) wrapped, or an empty optional (of f32 tensors: the `type` attribute
/// is not read).
template <class B> Values<B> optional(const OpCall<B>& c) {
  if (!c.has(0)) return {Value<B>::optional(std::nullopt, DType::F32)};
  const Value<B>& v = c.in(0);
  if (v.kind() == Value<B>::Kind::Optional) c.template fail<ValueError>("an optional cannot hold an optional");
  DType dtype = v.is_tensor() ? v.dtype() : v.element_dtype();
  return {Value<B>::optional(v, dtype)};
}

template <class B> Values<B> optional_has_element(const OpCall<B>& c) {
  bool has = c.has(0) && (c.in(0).kind() != Value<B>::Kind::Optional || !c.in(0).elements().empty());
  return {Value<B>::from_data(TensorData(std::vector<bool>{has}, Shape{}), c.device())};
}

template <class B> Values<B> optional_get_element(const OpCall<B>& c) {
  const Value<B>& v = c.in(0);
  if (v.kind() != Value<B>::Kind::Optional) return {v};  // opset 18: a tensor or sequence is its own element
  if (v.elements().empty()) c.template fail<ValueError>("the optional is empty");
  return {v.elements().front()};
}

}  // namespace

template <class B> void register_sequence_ops(OpTable<B>& t) {
  t["SequenceEmpty"] = [](const OpCall<B>& c) -> Values<B> {
    return {Value<B>::sequence({}, onnx_dtype(c, c.attr_int("dtype", 1)))};
  };
  t["SequenceConstruct"] = [](const OpCall<B>& c) { return sequence_construct(c); };
  t["SequenceInsert"] = [](const OpCall<B>& c) { return sequence_insert(c); };
  t["SequenceErase"] = [](const OpCall<B>& c) { return sequence_erase(c); };
  t["SequenceAt"] = [](const OpCall<B>& c) { return sequence_at(c); };
  t["SequenceLength"] = [](const OpCall<B>& c) -> Values<B> {
    return {int_tensor(c, {static_cast<int64_t>(sequence_in(c, 0).elements().size())}, Shape{})};
  };
  t["SplitToSequence"] = [](const OpCall<B>& c) { return split_to_sequence(c); };
  t["ConcatFromSequence"] = [](const OpCall<B>& c) { return concat_from_sequence(c); };
  t["SequenceMap"] = [](const OpCall<B>& c) { return sequence_map(c); };
  t["Optional"] = [](const OpCall<B>& c) { return optional(c); };
  t["OptionalHasElement"] = [](const OpCall<B>& c) { return optional_has_element(c); };
  t["OptionalGetElement"] = [](const OpCall<B>& c) { return optional_get_element(c); };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_sequence_ops)
