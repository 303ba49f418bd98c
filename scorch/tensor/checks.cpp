#include "scorch/tensor/checks.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace scorch::check {
namespace {
std::string name(DType d) { return std::string(dtype_name(d)); }
std::string str(int64_t v) { return std::to_string(v); }

/// The op an operator stands for ("operator+=" and "operator+": add; unary "operator-": neg).
std::string operator_op(std::string_view name, bool unary) {
  static const std::pair<std::string_view, std::string_view> kOps[] = {{"+", "add"},
                                                                       {"-", "sub"},
                                                                       {"*", "mul"},
                                                                       {"/", "div"},
                                                                       {"%", "remainder"},
                                                                       {"==", "equal"},
                                                                       {"!=", "not_equal"},
                                                                       {"<", "lower"},
                                                                       {"<=", "lower_equal"},
                                                                       {">", "greater"},
                                                                       {">=", "greater_equal"},
                                                                       {"&", "bool_and"},
                                                                       {"&&", "bool_and"},
                                                                       {"|", "bool_or"},
                                                                       {"||", "bool_or"},
                                                                       {"^", "bool_xor"},
                                                                       {"!", "bool_not"},
                                                                       {"~", "bool_not"}};
  std::string_view symbol = name.substr(8);  // after "operator"
  if (unary && symbol == "-") return "neg";
  bool compound = symbol.size() >= 2 && symbol.back() == '=' && symbol != "==" && symbol != "!=" && symbol != "<=" &&
                  symbol != ">=";
  if (compound) symbol.remove_suffix(1);
  for (const auto& [sym, op] : kOps)
    if (sym == symbol) return std::string(op);
  return std::string(name);
}

/// Whether a parameter list has a comma outside template arguments (two or more parameters).
bool several_params(std::string_view params) {
  int depth = 0;
  for (char c : params) {
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ',' && depth == 0) return true;
  }
  return false;
}

/// "operator+" when head ends in an operator's name, else empty.
std::string_view trailing_operator(std::string_view head) {
  size_t at = head.rfind("operator");
  if (at == std::string_view::npos || at + 8 == head.size()) return {};
  for (char c : head.substr(at + 8))
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ' ') return {};
  return head.substr(at);
}

/// name without a trailing template argument list (g++'s __builtin_FUNCTION: "reshape<1>", "operator+<B, 2, K>").
std::string_view without_template_args(std::string_view name) {
  if (name.empty() || name.back() != '>') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<' && --depth == 0) {
      std::string_view head = name.substr(0, i);
      while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
      return head == "operator" ? name : head;
    }
  }
  return name;
}
}  // namespace

std::string method_name(std::string_view function) {
  function = function.substr(0, function.find(" [with "));     // g++ appends the template arguments
  function = function.substr(0, function.find(" requires "));  // and the constraints, which hold parentheses
  size_t close = function.rfind(')');
  if (close == std::string_view::npos) {  // a plain name (__builtin_FUNCTION)
    std::string_view name = without_template_args(function);
    return name.rfind("operator", 0) == 0 && name.size() > 8 ? operator_op(name, false) : std::string(name);
  }
  int depth = 0;
  size_t open = close;
  for (; open != std::string_view::npos; --open) {  // the parameter list's '('
    if (function[open] == ')') ++depth;
    if (function[open] == '(' && --depth == 0) break;
    if (open == 0) return std::string(function);
  }
  std::string_view head = function.substr(0, open);
  if (auto op = trailing_operator(head); !op.empty())
    return operator_op(op, !several_params(function.substr(open + 1, close - open - 1)));
  depth = 0;
  size_t start = head.size();
  while (start > 0) {  // back to the "::" or space before the name, skipping template argument lists
    char c = head[start - 1];
    if (c == '>') ++depth;
    if (c == '<') --depth;
    if (depth == 0 && (c == ':' || c == ' ')) break;
    --start;
  }
  return std::string(head.substr(start));
}

void empty_operand(const std::string& op, const char* which) {
  std::string operand = *which ? std::string(" (the ") + which + ")" : "";
  throw ValueError(op, "tensor is empty (moved from or default-constructed)" + operand +
                           ": assign a tensor to it first, or use the tensor it was moved into");
}

void empty_tensor(const char* function) { empty_operand(method_name(function), ""); }

void same_dtype(const char* op, DType lhs, DType rhs) {
  if (lhs != rhs)
    throw DTypeError(op, "lhs " + name(lhs) + " and rhs " + name(rhs) + ": dtypes differ (cast one first)");
}

Shape broadcast(const char* op, const Shape& lhs, const Shape& rhs) { return broadcast_shapes(op, lhs, rhs); }

void kind(const char* op, const char* what, DType dtype, bool ok, const char* expected) {
  if (!ok) throw DTypeError(op, std::string(what) + " has dtype " + name(dtype) + ", expected " + expected);
}

size_t dim(const char* op, int64_t d, size_t rank) { return normalize_dim(op, d, rank); }

std::vector<size_t> dims(const char* op, std::span<const int64_t> ds, size_t rank) {
  std::vector<size_t> out;
  for (int64_t d : ds) {
    size_t r = dim(op, d, rank);
    if (std::find(out.begin(), out.end(), r) != out.end()) throw ShapeError(op, "dim " + str(d) + " is listed twice");
    out.push_back(r);
  }
  return out;
}

std::vector<size_t> permutation(const char* op, std::span<const int64_t> axes, size_t rank) {
  if (axes.size() != rank)
    throw ShapeError(
        op, "got " + str(static_cast<int64_t>(axes.size())) + " axes for rank " + str(static_cast<int64_t>(rank)));
  return dims(op, axes, rank);
}

Shape reshape(const Shape& from, std::span<const int64_t> to) {
  std::vector<size_t> out(to.size());
  size_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < to.size(); ++i) {
    if (to[i] == -1) {
      if (infer >= 0) throw ShapeError("reshape", "only one dim may be -1");
      infer = static_cast<int>(i);
      continue;
    }
    bool keep = to[i] == kKeepDim;
    if (to[i] < -1 && !keep) throw ShapeError("reshape", "dim " + str(to[i]) + " is negative");
    if (keep && i >= from.rank())
      throw ShapeError("reshape", "0 (keep) at dim " + str(static_cast<int64_t>(i)) + " but the source " +
                                      from.to_string() + " has no such dim");
    out[i] = keep ? from[i] : static_cast<size_t>(to[i]);
    known *= out[i];
  }
  if (infer >= 0) {
    if (known == 0 || from.num_elements() % known != 0)
      throw ShapeError("reshape", "cannot infer the -1 dim: " + from.to_string() + " has " +
                                      str(static_cast<int64_t>(from.num_elements())) + " elements");
    out[static_cast<size_t>(infer)] = from.num_elements() / known;
  }
  Shape result(out);
  same_element_count("reshape", from, result);
  return result;
}

void same_element_count(const char* op, const Shape& from, const Shape& to) {
  if (to.num_elements() != from.num_elements())
    throw ShapeError(op, "cannot reshape " + from.to_string() + " (" + str(static_cast<int64_t>(from.num_elements())) +
                             " elements) to " + to.to_string() + " (" + str(static_cast<int64_t>(to.num_elements())) +
                             ")");
}

Shape expand(const Shape& from, std::span<const int64_t> to) {
  if (to.size() < from.rank())
    throw ShapeError("expand", "cannot expand " + from.to_string() + " to fewer dims (" +
                                   str(static_cast<int64_t>(to.size())) + ")");
  std::vector<size_t> out(to.size());
  size_t lead = to.size() - from.rank();
  for (size_t i = 0; i < to.size(); ++i) {
    size_t src = i >= lead ? from[i - lead] : 1;
    size_t want = to[i] == -1 ? src : static_cast<size_t>(to[i]);
    if (to[i] < -1 || (src != want && src != 1))
      throw ShapeError("expand", "cannot expand " + from.to_string() + ": dim " + str(static_cast<int64_t>(i)) +
                                     " has size " + str(static_cast<int64_t>(src)) + ", target " + str(to[i]));
    out[i] = want;
  }
  return Shape(out);
}

SliceRanges slices(const char* op, const Shape& shape, std::span<const Slice> slices) {
  if (slices.size() > shape.rank())
    throw ShapeError(op,
                     str(static_cast<int64_t>(slices.size())) + " slices for a tensor of shape " + shape.to_string());
  SliceRanges out(shape.rank());
  for (size_t d = 0; d < shape.rank(); ++d) {
    auto n = static_cast<int64_t>(shape[d]);
    if (d >= slices.size()) {
      out[d] = {0, shape[d], 1};
      continue;
    }
    const Slice& s = slices[d];
    if (s.step == 0) throw ValueError(op, "slice step is 0 at dim " + str(static_cast<int64_t>(d)));
    auto resolve = [n](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
    int64_t start = resolve(s.start), end = s.end ? resolve(*s.end) : n;
    end = std::max(start, end);
    out[d] = {static_cast<size_t>(start), static_cast<size_t>(end), s.step};
  }
  return out;
}

void matmul(const Shape& lhs, const Shape& rhs) {
  if (lhs.rank() < 2 || lhs.rank() != rhs.rank())
    throw ShapeError("matmul", "lhs " + lhs.to_string() + " and rhs " + rhs.to_string() + ": need equal ranks >= 2");
  size_t r = lhs.rank();
  if (lhs[r - 1] != rhs[r - 2])
    throw ShapeError("matmul", "lhs " + lhs.to_string() + " and rhs " + rhs.to_string() + ": inner dims differ (" +
                                   str(static_cast<int64_t>(lhs[r - 1])) + " vs " +
                                   str(static_cast<int64_t>(rhs[r - 2])) + ")");
  Shape a = lhs, b = rhs;
  a[r - 1] = a[r - 2] = b[r - 1] = b[r - 2] = 1;
  broadcast_shapes("matmul", a, b);
}

void cat(const char* op, std::span<const Shape> shapes, std::span<const DType> dtypes, size_t dim) {
  if (shapes.empty()) throw ValueError(op, "needs at least one tensor");
  for (size_t i = 1; i < shapes.size(); ++i) {
    if (dtypes[i] != dtypes[0])
      throw DTypeError(
          op, "tensor " + str(static_cast<int64_t>(i)) + " is " + name(dtypes[i]) + ", tensor 0 is " + name(dtypes[0]));
    for (size_t d = 0; d < shapes[0].rank(); ++d)
      if (d != dim && shapes[i][d] != shapes[0][d])
        throw ShapeError(op, "tensor " + str(static_cast<int64_t>(i)) + " has shape " + shapes[i].to_string() +
                                 ", tensor 0 has " + shapes[0].to_string() + ": they differ outside dim " +
                                 str(static_cast<int64_t>(dim)));
  }
}

void gather(const char* op, const Shape& data, const Shape& indices, size_t dim) {
  if (data.rank() != indices.rank())
    throw ShapeError(op, "data " + data.to_string() + " and indices " + indices.to_string() + ": ranks differ");
  for (size_t d = 0; d < data.rank(); ++d)
    if (d != dim && indices[d] > data[d])
      throw ShapeError(op, "indices " + indices.to_string() + " exceed data " + data.to_string() + " at dim " +
                               str(static_cast<int64_t>(d)));
}

void scatter(const Shape& data, const Shape& indices, const Shape& values, size_t dim) {
  gather("scatter", data, indices, dim);
  if (!(values == indices))
    throw ShapeError("scatter",
                     "values " + values.to_string() + " must have the indices' shape " + indices.to_string());
}

void select(const char* op, const Shape& indices) {
  if (indices.rank() != 1) throw ShapeError(op, "indices must be rank 1, got " + indices.to_string());
}

void select_assign(const Shape& data, size_t dim, size_t count, const Shape& values) {
  Shape expected = data;
  expected[dim] = count;
  if (!(values == expected))
    throw ShapeError("select_assign", "values " + values.to_string() + " must have shape " + expected.to_string());
}

void positive(const char* op, const char* what, int64_t value) {
  if (value <= 0) throw ValueError(op, std::string(what) + " must be positive, got " + str(value));
}

void rank(const char* op, size_t expected, const Shape& shape) {
  if (shape.rank() != expected)
    throw ShapeError(op, "shape " + shape.to_string() + " has rank " + str(static_cast<int64_t>(shape.rank())) +
                             ", the tensor type has rank " + str(static_cast<int64_t>(expected)));
}

void data_kind(const char* op, DType dtype, bool ok, const char* k) {
  if (!ok) throw DTypeError(op, "data of dtype " + name(dtype) + " cannot make a " + k + " tensor");
}

void squeezable(const Shape& shape, size_t dim) {
  if (shape[dim] != 1)
    throw ShapeError("squeeze", "dim " + str(static_cast<int64_t>(dim)) + " of " + shape.to_string() + " has size " +
                                    str(static_cast<int64_t>(shape[dim])) + ", not 1");
}

}  // namespace scorch::check
