#pragma once
// The plan of an einsum (the equation read against its operands' shapes), computed once on the host and run by
// einsum.h on any backend: each operand's repeated letters reduced to their diagonal, letters no other operand or
// the output needs summed away, then the operands contracted pairwise through one batched matmul each, the pair
// whose result is smallest first (so no huge intermediate is broadcast), and the result permuted to the output.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "scorch/core/shape.h"

namespace scorch::einsum_detail {

/// One step on the list of live terms (operands and partial results).
struct Step {
  enum class Kind {
    Diagonal,  // term's dims `dim` and `other` (same size) → the diagonal, kept at `dim`; `shape` is the result
    Sum,       // term's dim `dim` summed away; `shape` is the result
    Contract,  // term ⊗ other over their shared letters: see the fields below; the result replaces term
    Finish,    // term permuted to `perm` (the output's letter order; empty: as it is) and reshaped to `shape`
  };
  Kind kind;
  size_t term = 0, other = 0, dim = 0;
  Shape shape;
  std::vector<size_t> perm;
  // Contract: each side permuted (perm / other_perm) to batch + own + shared letters, broadcast to full_shape /
  // other_full_shape, viewed as [batch, rows, shared] / [batch, shared, cols]; the product reshaped to `shape`.
  std::vector<size_t> other_perm;
  Shape full_shape, other_full_shape, three, other_three;
};

/// The steps (over slots: operand i starts in slot i; a contraction's result takes its first operand's slot), the
/// slot that holds the result, its shape ([1] when the equation's output has no letter: a scalar) and the number of
/// dims the equation's output names (0 for a scalar).
struct Plan {
  std::vector<Step> steps;
  size_t result = 0;
  Shape output;
  size_t rank = 0;
};

/// The plan of equation over operands of the given shapes (PyTorch's torch.einsum: letters a-z and A-Z, "..." for
/// broadcast dims, an implicit output when there is no "->"; size-1 dims broadcast). Throws ValueError or
/// ShapeError "[einsum] ..." naming the equation and the shapes for a malformed equation or mismatched operands.
Plan plan(std::string_view equation, const std::vector<Shape>& shapes);

namespace rank_detail {
/// Whether c may name a dim (PyTorch: a-z, A-Z).
constexpr bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
/// The letters of term (spaces skipped) and whether it holds one "..."; false when it holds anything else.
constexpr bool read_term(std::string_view term, size_t& letters, bool& dots) {
  letters = 0, dots = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == ' ') continue;
    if (term[i] == '.') {
      if (dots || term.substr(i, 3) != "...") return false;
      dots = true, i += 2;
    } else if (is_letter(term[i])) {
      ++letters;
    } else {
      return false;
    }
  }
  return true;
}
/// How often letter c occurs in text.
constexpr size_t count(std::string_view text, char c) {
  size_t n = 0;
  for (char t : text) n += t == c;
  return n;
}
}  // namespace rank_detail

/// The rank of the output equation names for operands of the given ranks, or -1 when the equation is malformed or
/// does not fit them (the compile-time form's check; plan() checks sizes and says what is wrong).
template <size_t N> constexpr int output_rank(std::string_view equation, const std::array<size_t, N>& ranks) {
  using namespace rank_detail;
  size_t arrow = equation.find("->");
  std::string_view lhs = equation.substr(0, arrow);
  size_t ellipsis = 0, term_index = 0, at = 0;
  for (;;) {
    size_t comma = lhs.find(',', at);
    std::string_view term = lhs.substr(at, comma == std::string_view::npos ? lhs.size() - at : comma - at);
    size_t letters = 0;
    bool dots = false;
    if (term_index >= N || !read_term(term, letters, dots)) return -1;
    if (dots ? ranks[term_index] < letters : ranks[term_index] != letters) return -1;
    if (dots && ranks[term_index] - letters > ellipsis) ellipsis = ranks[term_index] - letters;
    ++term_index;
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  if (term_index != N) return -1;
  if (arrow == std::string_view::npos) {
    size_t once = 0;
    for (char c : lhs) once += is_letter(c) && count(lhs, c) == 1;
    return int(ellipsis + once);
  }
  std::string_view rhs = equation.substr(arrow + 2);
  size_t letters = 0;
  bool dots = false;
  if (!read_term(rhs, letters, dots)) return -1;
  for (char c : rhs)
    if (is_letter(c) && (count(rhs, c) != 1 || count(lhs, c) == 0)) return -1;
  return int(letters + (dots ? ellipsis : 0));
}

}  // namespace scorch::einsum_detail
