// Einsum: each operand's repeated letters reduced to their diagonal, letters no later operand or the output needs
// summed away, then operands contracted pairwise through one batched matmul each ([batch, left, k] @ [batch, k,
// right]), and the result summed and permuted to the output's letters. "..." stands for the broadcast dims.
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using F = typename B::FloatTensor;
template <class B> using FO = KindOps<B, Float>;

/// An operand with one letter per dim.
template <class B> struct Term {
  F<B> x;
  std::string letters;
};

/// The equation's input terms and output, with each "..." replaced by letters standing for the broadcast dims
/// (upper-case letters from 'Z' down, so they never meet the equation's lower-case ones).
template <class B> std::pair<std::vector<std::string>, std::string> parse(const OpCall<B>& c, std::string eq,
                                                                          const std::vector<size_t>& ranks) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t at = 0;;) {
    size_t comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (terms.size() != ranks.size())
    c.template fail<ValueError>("the equation names " + std::to_string(terms.size()) + " operands");
  size_t ellipsis_dims = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    bool dots = terms[i].find("...") != std::string::npos;
    if (dots ? terms[i].size() > ranks[i] + 3 : terms[i].size() != ranks[i])
      c.template fail<ShapeError>("term '" + terms[i] + "' does not match operand rank " + std::to_string(ranks[i]));
    if (dots) ellipsis_dims = std::max(ellipsis_dims, ranks[i] + 3 - terms[i].size());
  }
  if (ellipsis_dims > kMaxRank) c.template fail<ShapeError>("too many broadcast dims");
  std::string all_ellipsis;
  for (size_t i = 0; i < ellipsis_dims; ++i) all_ellipsis += char('Z' - (ellipsis_dims - 1 - i));
  for (size_t i = 0; i < terms.size(); ++i) {
    auto dots = terms[i].find("...");
    if (dots == std::string::npos) continue;
    size_t n = ranks[i] + 3 - terms[i].size();
    terms[i].replace(dots, 3, all_ellipsis.substr(ellipsis_dims - n));
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    if (auto dots = out.find("..."); dots != std::string::npos) out.replace(dots, 3, all_ellipsis);
  } else {  // implicit output: the broadcast dims, then letters used once, alphabetically
    std::string once;
    for (char l = 'a'; l <= 'z'; ++l) {
      size_t n = 0;
      for (const auto& t : terms) n += size_t(std::count(t.begin(), t.end(), l));
      if (n == 1) once += l;
    }
    out = all_ellipsis + once;
  }
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].size() != ranks[i])
      c.template fail<ShapeError>("term '" + terms[i] + "' does not match operand rank " + std::to_string(ranks[i]));
  return {terms, out};
}

/// t with a repeated letter reduced to its diagonal (x·I summed over the second occurrence).
template <class B> void take_diagonals(const OpCall<B>& c, Term<B>& t) {
  for (size_t q = 0; q < t.letters.size(); ++q) {
    size_t p = t.letters.find(t.letters[q]);
    if (p == q) continue;
    Shape s = t.x.shape();
    if (s[p] != s[q])
      c.template fail<ShapeError>(std::string("letter '") + t.letters[q] + "' has sizes " + std::to_string(s[p]) +
                                  " and " + std::to_string(s[q]));
    check_created(c, double(s[p]) * double(s[p]));
    std::vector<double> eye(s[p] * s[p], 0.0);
    for (size_t i = 0; i < s[p]; ++i) eye[i * s[p] + i] = 1.0;
    Shape es(std::vector<size_t>(s.rank(), 1));
    es[p] = s[p], es[q] = s[q];
    F<B> mask = FO<B>::from_data(TensorData(eye, Shape{s[p], s[p]}).convert(t.x.dtype()), c.device());
    t.x = FO<B>::sum_dim(FO<B>::mul(t.x, FO<B>::reshape(mask, es)), q);
    t.x = FO<B>::reshape(t.x, without_dim(t.x.shape(), q));
    t.letters.erase(q, 1);
    --q;
  }
}

/// t with the letters not in keep summed away.
template <class B> void sum_unneeded(Term<B>& t, const std::string& keep) {
  for (size_t i = t.letters.size(); i-- > 0;) {
    if (keep.find(t.letters[i]) != std::string::npos) continue;
    t.x = FO<B>::reshape(FO<B>::sum_dim(t.x, i), without_dim(t.x.shape(), i));
    t.letters.erase(i, 1);
  }
}

/// t permuted to the given letter order.
template <class B> F<B> arrange(const Term<B>& t, const std::string& order) {
  std::vector<size_t> perm;
  for (char l : order) perm.push_back(t.letters.find(l));
  return FO<B>::permute(t.x, perm);
}

/// a and b contracted over their shared letters not in keep; the result's letters are batch, left, right.
template <class B> Term<B> contract(const OpCall<B>& c, Term<B> a, Term<B> b, const std::string& keep) {
  std::string batch, shared, left, right;
  std::map<char, size_t> size;
  for (size_t i = 0; i < a.letters.size(); ++i) size[a.letters[i]] = a.x.shape()[i];
  for (size_t i = 0; i < b.letters.size(); ++i) {
    char l = b.letters[i];
    size_t n = b.x.shape()[i];
    if (size.count(l) && size[l] != n && size[l] != 1 && n != 1)
      c.template fail<ShapeError>(std::string("letter '") + l + "' has sizes " + std::to_string(size[l]) + " and " +
                                  std::to_string(n));
    size[l] = std::max(size.count(l) ? size[l] : 0, n);
  }
  for (char l : a.letters)
    (b.letters.find(l) == std::string::npos ? left : keep.find(l) != std::string::npos ? batch : shared) += l;
  for (char l : b.letters)
    if (a.letters.find(l) == std::string::npos) right += l;
  auto prod = [&](const std::string& ls) {
    size_t p = 1;
    for (char l : ls) p *= size[l];
    return p;
  };
  auto shaped = [&](const Term<B>& t, const std::string& order, Shape three) {
    F<B> x = arrange(t, order);
    Shape full;
    for (char l : order) full.push_back(size[l]);
    return FO<B>::reshape(FO<B>::expand(x, full), three);
  };
  size_t nb = prod(batch), nl = prod(left), nr = prod(right), nk = prod(shared);
  F<B> y = FO<B>::matmul(shaped(a, batch + left + shared, Shape{nb, nl, nk}),
                         shaped(b, batch + shared + right, Shape{nb, nk, nr}));
  Shape out;
  for (char l : batch + left + right) out.push_back(size[l]);
  return {FO<B>::reshape(y, out), batch + left + right};
}

template <class B> Value<B> einsum(const OpCall<B>& c) {
  std::vector<size_t> ranks;
  for (size_t i = 0; i < c.num_inputs(); ++i) ranks.push_back(c.in(i).shape().rank());
  if (ranks.empty()) c.template fail<ValueError>("no operands");
  auto [letters, out] = parse(c, c.attr_string("equation", ""), ranks);
  std::vector<Term<B>> terms;
  for (size_t i = 0; i < ranks.size(); ++i) {
    terms.push_back({c.in_float(i), letters[i]});
    take_diagonals(c, terms.back());
  }
  auto needed_after = [&](size_t i) {
    std::string keep = out;
    for (size_t j = i + 1; j < terms.size(); ++j) keep += terms[j].letters;
    return keep;
  };
  Term<B> acc = terms[0];
  sum_unneeded(acc, needed_after(0));
  for (size_t i = 1; i < terms.size(); ++i) {
    std::string keep = needed_after(i);
    sum_unneeded(terms[i], keep + acc.letters);
    acc = contract(c, std::move(acc), std::move(terms[i]), keep);
  }
  sum_unneeded(acc, out);
  for (size_t i = 0; i < out.size(); ++i)
    if (out.find(out[i]) != i || !std::isalpha(static_cast<unsigned char>(out[i])))
      c.template fail<ValueError>("output '" + out + "' repeats a letter or holds a character that is not one");
  for (char l : out)
    if (acc.letters.find(l) == std::string::npos)
      c.template fail<ValueError>(std::string("output letter '") + l + "' is in no operand");
  return Value<B>::template of<Float>(arrange(acc, out));
}

}  // namespace

template <class B> void register_einsum_ops(OpTable<B>& t) {
  t["Einsum"] = [](const OpCall<B>& c) -> std::vector<Value<B>> { return {einsum(c)}; };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_einsum_ops)
