// A line-by-line port of PyTorch's torch/optim/lbfgs.py (minFunc's L-BFGS), on double vectors.
#include "scorch/optim/lbfgs.h"

#include <algorithm>
#include <cmath>

namespace scorch::optim {

namespace {

using Vec = std::vector<double>;

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
double max_abs(const Vec& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}
double sum_abs(const Vec& a) {
  double s = 0;
  for (double v : a) s += std::abs(v);
  return s;
}
/// a += alpha·b.
void axpy(Vec& a, double alpha, const Vec& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] += alpha * b[i];
}

/// Minimizer of the cubic through (x1, f1, g1), (x2, f2, g2), clamped to bounds.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  auto [lo, hi] = bounds.value_or(x1 <= x2 ? std::pair{x1, x2} : std::pair{x2, x1});
  double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2.0;
  double d2 = std::sqrt(d2_square);
  double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                            : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, lo), hi);
}

struct Probe {
  double f;
  Vec g;
};
struct WolfeResult {
  double f;
  Vec g;
  double t;
  int evals;
};

/// Strong-Wolfe line search along d from x (loss f, gradient g, directional derivative gtd).
WolfeResult strong_wolfe(const std::function<Probe(double)>& obj, double t, const Vec& d, double f, const Vec& g,
                         double gtd, double tolerance_change) {
  const double c1 = 1e-4, c2 = 0.9;
  const int max_ls = 25;
  double d_norm = max_abs(d);
  Probe p = obj(t);
  int evals = 1;
  double gtd_new = dot(p.g, d);
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Vec g_prev = g;
  bool done = false;
  int ls_iter = 0;
  std::vector<double> br, br_f, br_gtd;
  std::vector<Vec> br_g;
  while (ls_iter < max_ls) {
    if (p.f > f + c1 * t * gtd || (ls_iter > 1 && p.f >= f_prev)) {
      br = {t_prev, t}, br_f = {f_prev, p.f}, br_g = {g_prev, p.g}, br_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      br = {t}, br_f = {p.f}, br_g = {p.g}, done = true;
      break;
    }
    if (gtd_new >= 0) {
      br = {t_prev, t}, br_f = {f_prev, p.f}, br_g = {g_prev, p.g}, br_gtd = {gtd_prev, gtd_new};
      break;
    }
    double min_step = t + 0.01 * (t - t_prev), max_step = t * 10, tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, p.f, gtd_new, std::pair{min_step, max_step});
    t_prev = tmp, f_prev = p.f, g_prev = p.g, gtd_prev = gtd_new;
    p = obj(t);
    ++evals;
    gtd_new = dot(p.g, d);
    ++ls_iter;
  }
  if (ls_iter == max_ls) br = {0, t}, br_f = {f, p.f}, br_g = {g, p.g}, br_gtd = {gtd, gtd_new};
  bool insuf_progress = false;
  size_t low = br_f.front() <= br_f.back() ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(br[1] - br[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(br[0], br_f[0], br_gtd[0], br[1], br_f[1], br_gtd[1]);
    double hi = std::max(br[0], br[1]), lo = std::min(br[0], br[1]), eps = 0.1 * (hi - lo);
    if (std::min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    p = obj(t);
    ++evals;
    gtd_new = dot(p.g, d);
    ++ls_iter;
    if (p.f > f + c1 * t * gtd || p.f >= br_f[low]) {
      br[high] = t, br_f[high] = p.f, br_g[high] = p.g, br_gtd[high] = gtd_new;
      low = br_f[0] <= br_f[1] ? 0 : 1, high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) done = true;
      else if (gtd_new * (br[high] - br[low]) >= 0)
        br[high] = br[low], br_f[high] = br_f[low], br_g[high] = br_g[low], br_gtd[high] = br_gtd[low];
      br[low] = t, br_f[low] = p.f, br_g[low] = p.g, br_gtd[low] = gtd_new;
    }
  }
  if (br.size() == 1) low = 0;
  return {br_f[low], br_g[low], br[low], evals};
}

}  // namespace

double Lbfgs::step_flat(Vec& x, const std::function<LossAndGrad(const Vec&)>& closure) {
  const auto& c = config_;
  size_t max_eval = c.max_eval.value_or(c.max_iter * 5 / 4);
  LossAndGrad first = closure(x);
  double orig_loss = first.loss, loss = first.loss;
  Vec flat_grad = std::move(first.grad);
  if (flat_grad.size() != x.size())
    throw ShapeError("Lbfgs::step", "gradient has " + std::to_string(flat_grad.size()) + " values for " +
                                        std::to_string(x.size()) + " parameters");
  size_t current_evals = 1;
  ++func_evals_;
  if (max_abs(flat_grad) <= c.tolerance_grad) return orig_loss;
  size_t n_iter = 0;
  while (n_iter < c.max_iter) {
    ++n_iter;
    ++n_iter_;
    if (n_iter_ == 1) {
      d_ = flat_grad;
      for (double& v : d_) v = -v;
      old_dirs_.clear(), old_stps_.clear(), ro_.clear();
      h_diag_ = 1;
    } else {
      Vec y = flat_grad, s = d_;
      axpy(y, -1.0, prev_flat_grad_);
      for (double& v : s) v *= t_;
      double ys = dot(y, s);
      if (ys > 1e-10) {
        if (old_dirs_.size() == c.history_size)
          old_dirs_.erase(old_dirs_.begin()), old_stps_.erase(old_stps_.begin()), ro_.erase(ro_.begin());
        old_dirs_.push_back(y), old_stps_.push_back(s), ro_.push_back(1.0 / ys);
        h_diag_ = ys / dot(y, y);
      }
      size_t num_old = old_dirs_.size();
      std::vector<double> al(num_old);
      Vec q = flat_grad;
      for (double& v : q) v = -v;
      for (size_t k = num_old; k-- > 0;) {
        al[k] = dot(old_stps_[k], q) * ro_[k];
        axpy(q, -al[k], old_dirs_[k]);
      }
      d_ = q;
      for (double& v : d_) v *= h_diag_;
      for (size_t k = 0; k < num_old; ++k) axpy(d_, al[k] - dot(old_dirs_[k], d_) * ro_[k], old_stps_[k]);
    }
    prev_flat_grad_ = flat_grad;
    prev_loss_ = loss;
    t_ = n_iter_ == 1 ? std::min(1.0, 1.0 / sum_abs(flat_grad)) * c.lr : c.lr;
    double gtd = dot(flat_grad, d_);
    if (gtd > -c.tolerance_change) break;
    size_t ls_evals = 0;
    bool opt_cond = false;
    if (c.line_search_fn == LineSearch::StrongWolfe) {
      Vec x_init = x;
      auto obj = [&](double t) {
        Vec probe = x_init;
        axpy(probe, t, d_);
        auto r = closure(probe);
        return Probe{r.loss, std::move(r.grad)};
      };
      auto r = strong_wolfe(obj, t_, d_, loss, flat_grad, gtd, c.tolerance_change);
      loss = r.f, flat_grad = std::move(r.g), t_ = r.t, ls_evals = static_cast<size_t>(r.evals);
      x = x_init;
      axpy(x, t_, d_);
      opt_cond = max_abs(flat_grad) <= c.tolerance_grad;
    } else {
      axpy(x, t_, d_);
      if (n_iter != c.max_iter) {
        auto r = closure(x);
        loss = r.loss, flat_grad = std::move(r.grad);
        opt_cond = max_abs(flat_grad) <= c.tolerance_grad;
        ls_evals = 1;
      }
    }
    current_evals += ls_evals;
    func_evals_ += static_cast<int64_t>(ls_evals);
    if (n_iter == c.max_iter || current_evals >= max_eval || opt_cond) break;
    if (max_abs(d_) * std::abs(t_) <= c.tolerance_change) break;
    if (std::abs(loss - prev_loss_) < c.tolerance_change) break;
  }
  return orig_loss;
}

namespace {
Record vec_record(const Vec& v) { return Record(TensorData(v, {v.size()})); }
Vec record_vec(const Record& r) { return r.as_tensor().data.convert(DType::F64).to_vector<double>(); }
}  // namespace

Record Lbfgs::to_record() const {
  Record r = Record::map();
  r.set("n_iter", n_iter_), r.set("func_evals", func_evals_), r.set("t", t_), r.set("h_diag", h_diag_),
      r.set("prev_loss", prev_loss_);
  r.set("d", vec_record(d_)), r.set("prev_flat_grad", vec_record(prev_flat_grad_)), r.set("ro", vec_record(ro_));
  Record::List dirs, stps;
  for (size_t k = 0; k < old_dirs_.size(); ++k)
    dirs.push_back(vec_record(old_dirs_[k])), stps.push_back(vec_record(old_stps_[k]));
  r.set("old_dirs", Record(std::move(dirs))), r.set("old_stps", Record(std::move(stps)));
  return r;
}

void Lbfgs::load_record(const Record& r) {
  n_iter_ = r.at("n_iter").as_int(), func_evals_ = r.at("func_evals").as_int();
  t_ = r.get_float("t"), h_diag_ = r.get_float("h_diag"), prev_loss_ = r.get_float("prev_loss");
  d_ = record_vec(r.at("d")), prev_flat_grad_ = record_vec(r.at("prev_flat_grad")), ro_ = record_vec(r.at("ro"));
  old_dirs_.clear(), old_stps_.clear();
  for (size_t k = 0; k < r.at("old_dirs").size(); ++k)
    old_dirs_.push_back(record_vec(r.at("old_dirs").at(k))), old_stps_.push_back(record_vec(r.at("old_stps").at(k)));
}

}  // namespace scorch::optim
