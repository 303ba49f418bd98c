// The einsum planner: the equation read into integer labels (letters 0-51, "..." dims from 52 on), sizes checked and
// broadcast, then the diagonal, sum and contraction steps chosen (the pair with the smallest result first).
#include "scorch/tensor/einsum_plan.h"

#include <algorithm>
#include <map>

#include "scorch/core/error.h"

namespace scorch::einsum_detail {
namespace {

using Labels = std::vector<int>;
constexpr int kFirstEllipsis = 52;

/// A live term while planning: its labels and current shape.
struct Term {
  Labels labels;
  Shape shape;
  bool live = true;
};

/// Reads equation against shapes; every error names the equation and the shapes.
class Reader {
 public:
  Reader(std::string_view equation, const std::vector<Shape>& shapes) : equation_(equation), shapes_(shapes) {}

  [[noreturn]] void fail(bool shape_error, const std::string& what) const {
    std::string shapes;
    for (const auto& s : shapes_) shapes += (shapes.empty() ? "" : ", ") + s.to_string();
    std::string message =
        "'" + std::string(equation_) + "' on operands " + (shapes.empty() ? "(none)" : shapes) + ": " + what;
    if (shape_error) throw ShapeError("einsum", message);
    throw ValueError("einsum", message);
  }

  /// The operands' labels and the output's.
  std::pair<std::vector<Labels>, Labels> read() {
    std::string eq;
    for (char c : equation_)
      if (c != ' ') eq += c;
    size_t arrow = eq.find("->");
    std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> texts;
    for (size_t at = 0;;) {
      size_t comma = lhs.find(',', at);
      texts.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (texts.size() != shapes_.size())
      fail(false, "the equation names " + std::to_string(texts.size()) + " operands, " +
                      std::to_string(shapes_.size()) + " were given");
    size_t ellipsis = 0;
    std::vector<Labels> terms;
    for (size_t i = 0; i < texts.size(); ++i) terms.push_back(term(texts[i], shapes_[i].rank(), i, ellipsis));
    for (size_t i = 0; i < texts.size(); ++i) align_ellipsis(terms[i], ellipsis);
    Labels out =
        arrow == std::string::npos ? implicit_output(terms, ellipsis) : output(eq.substr(arrow + 2), terms, ellipsis);
    return {terms, out};
  }

 private:
  static int letter(char c) { return c >= 'a' && c <= 'z' ? c - 'a' : c >= 'A' && c <= 'Z' ? 26 + c - 'A' : -1; }

  /// A term's labels; "..." becomes one -1 placeholder per broadcast dim (labelled once all terms are read).
  Labels term(const std::string& text, size_t rank, size_t index, size_t& ellipsis) const {
    Labels labels;
    bool dots = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text.compare(i, 3, "...") == 0 && !dots) {
        dots = true, i += 2;
        labels.push_back(-1);
      } else if (letter(text[i]) >= 0) {
        labels.push_back(letter(text[i]));
      } else {
        fail(false, "term '" + text + "' holds '" + text[i] + "': use letters a-z, A-Z and one '...'");
      }
    }
    size_t letters = labels.size() - (dots ? 1 : 0);
    if (dots ? rank < letters : rank != letters)
      fail(true, "term '" + text + "' of operand " + std::to_string(index) + " names " + std::to_string(letters) +
                     " dims, the operand has rank " + std::to_string(rank));
    if (dots) {
      size_t n = rank - letters;
      ellipsis = std::max(ellipsis, n);
      auto at = std::find(labels.begin(), labels.end(), -1);
      *at = -int(n) - 1;  // how many dims the "..." stands for, resolved by align_ellipsis
    }
    return labels;
  }

  /// Replaces the "..." placeholder by the broadcast labels, right-aligned as broadcasting aligns dims.
  static void align_ellipsis(Labels& labels, size_t ellipsis) {
    auto at = std::find_if(labels.begin(), labels.end(), [](int l) { return l < 0; });
    if (at == labels.end()) return;
    size_t n = size_t(-*at - 1);
    Labels dims;
    for (size_t k = ellipsis - n; k < ellipsis; ++k) dims.push_back(kFirstEllipsis + int(k));
    at = labels.erase(at);
    labels.insert(at, dims.begin(), dims.end());
  }

  Labels output(const std::string& text, const std::vector<Labels>& terms, size_t ellipsis) const {
    Labels out;
    bool dots = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text.compare(i, 3, "...") == 0 && !dots) {
        dots = true, i += 2;
        for (size_t k = 0; k < ellipsis; ++k) out.push_back(kFirstEllipsis + int(k));
        continue;
      }
      int l = letter(text[i]);
      if (l < 0) fail(false, "the output '" + text + "' holds '" + text[i] + "': use letters and one '...'");
      if (std::find(out.begin(), out.end(), l) != out.end())
        fail(false, std::string("the output repeats '") + text[i] + "'");
      bool found = std::any_of(terms.begin(), terms.end(),
                               [&](const Labels& t) { return std::find(t.begin(), t.end(), l) != t.end(); });
      if (!found) fail(false, std::string("the output's '") + text[i] + "' is in no operand");
      out.push_back(l);
    }
    return out;  // "..." dims the output leaves out are summed, as PyTorch does
  }

  /// No "->": the broadcast dims, then the letters used once, in ASCII order (upper case first), as PyTorch.
  static Labels implicit_output(const std::vector<Labels>& terms, size_t ellipsis) {
    Labels out;
    for (size_t k = 0; k < ellipsis; ++k) out.push_back(kFirstEllipsis + int(k));
    std::map<int, size_t> uses;
    for (const auto& t : terms)
      for (int l : t) uses[l]++;
    for (int l = 26; l < 52; ++l)
      if (uses.count(l) && uses[l] == 1) out.push_back(l);
    for (int l = 0; l < 26; ++l)
      if (uses.count(l) && uses[l] == 1) out.push_back(l);
    return out;
  }

  std::string_view equation_;
  const std::vector<Shape>& shapes_;
};

/// Plans the steps once labels and sizes are known.
class Planner {
 public:
  Planner(const Reader& reader, std::vector<Labels> labels, const std::vector<Shape>& shapes, Labels out)
      : reader_(reader), out_(std::move(out)) {
    for (size_t i = 0; i < labels.size(); ++i) {
      terms_.push_back({labels[i], shapes[i]});
      for (size_t d = 0; d < labels[i].size(); ++d) {
        size_t first = size_t(std::find(labels[i].begin(), labels[i].end(), labels[i][d]) - labels[i].begin());
        if (shapes[i][first] != shapes[i][d])
          reader_.fail(true, name(labels[i][d]) + " is repeated in operand " + std::to_string(i) + " with sizes " +
                                 std::to_string(shapes[i][first]) + " and " + std::to_string(shapes[i][d]));
        record_size(labels[i][d], shapes[i][d]);
      }
    }
  }

  Plan run() {
    for (size_t i = 0; i < terms_.size(); ++i) take_diagonals(i);
    for (size_t i = 0; i < terms_.size(); ++i) sum_unneeded(i, npos);
    for (;;) {
      auto [a, b] = cheapest_pair();
      if (b == npos) break;
      sum_unneeded(a, b);
      sum_unneeded(b, a);
      contract(a, b);
    }
    size_t last = 0;
    while (!terms_[last].live) ++last;
    finish(last);
    plan_.result = last;
    return std::move(plan_);
  }

 private:
  static constexpr size_t npos = size_t(-1);

  std::string name(int label) const {
    if (label >= kFirstEllipsis) return "a '...' dim";
    char c = label < 26 ? char('a' + label) : char('A' + label - 26);
    return std::string("'") + c + "'";
  }

  /// Sizes broadcast across operands: equal, or 1 against any size.
  void record_size(int label, size_t n) {
    auto [it, fresh] = size_.try_emplace(label, n);
    if (fresh || it->second == n || n == 1) return;
    if (it->second == 1) {
      it->second = n;
      return;
    }
    reader_.fail(true, name(label) + " has sizes " + std::to_string(it->second) + " and " + std::to_string(n));
  }

  /// Whether label is needed outside the terms a and b: by the output or another live term.
  bool needed(int label, size_t a, size_t b) const {
    if (std::find(out_.begin(), out_.end(), label) != out_.end()) return true;
    for (size_t i = 0; i < terms_.size(); ++i) {
      if (i == a || i == b || !terms_[i].live) continue;
      const auto& l = terms_[i].labels;
      if (std::find(l.begin(), l.end(), label) != l.end()) return true;
    }
    return false;
  }

  void take_diagonals(size_t i) {
    Term& t = terms_[i];
    for (size_t q = 0; q < t.labels.size(); ++q) {
      size_t p = size_t(std::find(t.labels.begin(), t.labels.end(), t.labels[q]) - t.labels.begin());
      if (p == q) continue;
      t.shape = without(t.shape, q);
      t.labels.erase(t.labels.begin() + long(q));
      plan_.steps.push_back({Step::Kind::Diagonal, i, q, p, t.shape});
      --q;
    }
  }

  static Shape without(const Shape& s, size_t dim) {
    std::vector<size_t> dims;
    for (size_t d = 0; d < s.rank(); ++d)
      if (d != dim) dims.push_back(s[d]);
    return Shape(dims);
  }

  /// Sums away term i's labels needed by neither the output, the other live terms nor partner.
  void sum_unneeded(size_t i, size_t partner) {
    Term& t = terms_[i];
    for (size_t d = t.labels.size(); d-- > 0;) {
      int l = t.labels[d];
      bool in_partner = partner != npos && std::find(terms_[partner].labels.begin(), terms_[partner].labels.end(), l) !=
                                               terms_[partner].labels.end();
      if (in_partner || needed(l, i, partner)) continue;
      t.shape = without(t.shape, d);
      t.labels.erase(t.labels.begin() + long(d));
      plan_.steps.push_back({Step::Kind::Sum, i, 0, d, t.shape});
    }
  }

  /// The live pair whose contraction result is smallest (first such pair on ties); b is npos when one term is left.
  std::pair<size_t, size_t> cheapest_pair() const {
    std::pair<size_t, size_t> best{npos, npos};
    double best_size = 0;
    for (size_t a = 0; a < terms_.size(); ++a) {
      if (!terms_[a].live) continue;
      for (size_t b = a + 1; b < terms_.size(); ++b) {
        if (!terms_[b].live) continue;
        double n = 1;
        for (int l : result_labels(a, b)) n *= double(size_.at(l));
        if (best.second == npos || n < best_size) best = {a, b}, best_size = n;
      }
    }
    return best;
  }

  /// The labels a ⊗ b keeps: a's then b's own, each once, needed by the output or another live term.
  Labels result_labels(size_t a, size_t b) const {
    Labels out;
    for (size_t i : {a, b})
      for (int l : terms_[i].labels)
        if (needed(l, a, b) && std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
    return out;
  }

  void contract(size_t a, size_t b) {
    const Labels &la = terms_[a].labels, &lb = terms_[b].labels;
    auto in = [](const Labels& l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); };
    Labels batch, shared, left, right;
    for (int l : la) (in(lb, l) ? (needed(l, a, b) ? batch : shared) : left).push_back(l);
    for (int l : lb)
      if (!in(la, l)) right.push_back(l);
    Step step{Step::Kind::Contract, a, b};
    auto side = [&](const Term& t, const Labels& order, std::vector<size_t>& perm, Shape& full, Shape& three,
                    size_t middle) {
      std::vector<size_t> dims;
      for (int l : order) {
        perm.push_back(size_t(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin()));
        dims.push_back(size_.at(l));
      }
      full = Shape(dims);
      three = Shape{product(batch), middle == 1 ? product(left) : product(shared),
                    middle == 1 ? product(shared) : product(right)};
    };
    side(terms_[a], concat(batch, left, shared), step.perm, step.full_shape, step.three, 1);
    side(terms_[b], concat(batch, shared, right), step.other_perm, step.other_full_shape, step.other_three, 2);
    Labels result = concat(batch, left, right);
    std::vector<size_t> dims;
    for (int l : result) dims.push_back(size_.at(l));
    step.shape = Shape(dims);
    terms_[a] = {result, step.shape};
    terms_[b].live = false;
    plan_.steps.push_back(std::move(step));
  }

  size_t product(const Labels& labels) const {
    size_t n = 1;
    for (int l : labels) n *= size_.at(l);
    return n;
  }

  static Labels concat(const Labels& x, const Labels& y, const Labels& z) {
    Labels out = x;
    out.insert(out.end(), y.begin(), y.end());
    out.insert(out.end(), z.begin(), z.end());
    return out;
  }

  void finish(size_t i) {
    const Term& t = terms_[i];
    Step step{Step::Kind::Finish, i};
    std::vector<size_t> dims;
    bool identity = true;
    for (size_t k = 0; k < out_.size(); ++k) {
      size_t at = size_t(std::find(t.labels.begin(), t.labels.end(), out_[k]) - t.labels.begin());
      step.perm.push_back(at);
      identity = identity && at == k;
      dims.push_back(size_.at(out_[k]));
    }
    if (identity) step.perm.clear();
    step.full_shape = Shape(dims);  // the output's sizes: a size-1 dim of a lone operand broadcasts to it
    step.shape = dims.empty() ? Shape{1} : Shape(dims);
    plan_.output = step.shape;
    plan_.rank = out_.size();
    plan_.steps.push_back(std::move(step));
  }

  const Reader& reader_;
  Labels out_;
  std::vector<Term> terms_;
  std::map<int, size_t> size_;
  Plan plan_;
};

}  // namespace

Plan plan(std::string_view equation, const std::vector<Shape>& shapes) {
  Reader reader(equation, shapes);
  if (shapes.empty()) reader.fail(false, "no operands");
  auto [labels, out] = reader.read();
  return Planner(reader, std::move(labels), shapes, std::move(out)).run();
}

}  // namespace scorch::einsum_detail
