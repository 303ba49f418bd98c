#include "scorch/train/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scorch/core/error.h"

namespace scorch::train {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

/// About five round tick values covering [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  double span = hi - lo, step = std::pow(10.0, std::floor(std::log10(span / 5)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (step * m) <= 6) {
      step *= m;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    out.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return out;
}

void write_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw IoError("write_metric_plots", "cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

std::string svg_line_chart(const std::string& title, const std::string& x_label,
                           const std::vector<PlotSeries>& series) {
  const double W = 640, H = 400, left = 70, right = 20, top = 40, bottom = 50;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const auto& s : series)
    for (auto [x, y] : s.points) x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  if (!(x0 <= x1)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 - x0 < 1e-12) x0 -= 0.5, x1 += 0.5;
  if (y1 - y0 < 1e-12) y0 -= 0.5 + std::abs(y0) * 0.01, y1 += 0.5 + std::abs(y1) * 0.01;
  double pad = (y1 - y0) * 0.05;
  y0 -= pad, y1 += pad;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * (W - left - right); };
  auto py = [&](double y) { return H - bottom - (y - y0) / (y1 - y0) * (H - top - bottom); };
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
      << " " << H
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << W / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">" << title << "</text>\n";
  svg << "<text x=\"" << (left + W - right) / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">" << x_label
      << "</text>\n";
  for (double t : ticks(y0, y1))
    svg << "<line x1=\"" << left << "\" x2=\"" << W - right << "\" y1=\"" << py(t) << "\" y2=\"" << py(t)
        << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << py(t) + 4 << "\" text-anchor=\"end\">"
        << number(t) << "</text>\n";
  for (double t : ticks(x0, x1))
    svg << "<text x=\"" << px(t) << "\" y=\"" << H - bottom + 16 << "\" text-anchor=\"middle\">" << number(t)
        << "</text>\n";
  svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << W - left - right << "\" height=\""
      << H - top - bottom << "\" fill=\"none\" stroke=\"#333\"/>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    svg << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"2\" points=\"";
    for (auto [x, y] : s.points) svg << px(x) << "," << py(y) << " ";
    svg << "\"/>\n";
    for (auto [x, y] : s.points)
      svg << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"3\" fill=\"" << s.color << "\"/>\n";
    double ly = top + 16 + 18 * static_cast<double>(k);
    svg << "<line x1=\"" << W - right - 110 << "\" x2=\"" << W - right - 90 << "\" y1=\"" << ly << "\" y2=\"" << ly
        << "\" stroke=\"" << s.color << "\" stroke-width=\"2\"/><text x=\"" << W - right - 84 << "\" y=\"" << ly + 4
        << "\">" << s.label << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

std::vector<std::string> write_metric_plots(const MetricsStore& store, const std::string& dir) {
  std::vector<std::string> written;
  std::filesystem::create_directories(dir);
  for (const auto& name : store.names()) {
    std::vector<PlotSeries> series;
    for (auto [split, color] : {std::pair{Split::Train, "#1f77b4"}, std::pair{Split::Valid, "#d62728"}}) {
      PlotSeries s{split_name(split), color, {}};
      for (auto [epoch, v] : store.epoch_values(split, name)) s.points.emplace_back(static_cast<double>(epoch), v);
      if (!s.points.empty()) series.push_back(std::move(s));
    }
    if (series.empty()) continue;
    std::string safe = name;
    for (char& c : safe)
      if (c == '/' || c == '\\') c = '_';
    std::string path = (std::filesystem::path(dir) / (safe + ".svg")).string();
    write_atomically(path, svg_line_chart(name, "epoch", series));
    written.push_back(path);
  }
  return written;
}

std::string learner_summary(const MetricsStore& store, size_t epochs_run, const std::string& model_description) {
  std::ostringstream out;
  out << "======================== Learner Summary ========================\n";
  if (!model_description.empty()) out << "Model: " << model_description << "\n";
  out << "Total epochs: " << epochs_run << "\n\n";
  char line[160];
  std::snprintf(line, sizeof line, "| %-5s | %-22s | %-10s | %-5s | %-10s | %-5s |\n", "Split", "Metric", "Min.",
                "Epoch", "Max.", "Epoch");
  out << line << "|-------|------------------------|------------|-------|------------|-------|\n";
  for (Split split : {Split::Train, Split::Valid})
    for (const auto& name : store.names()) {
      auto values = store.epoch_values(split, name);
      if (values.empty()) continue;
      auto [min_it, max_it] =
          std::minmax_element(values.begin(), values.end(), [](auto a, auto b) { return a.second < b.second; });
      std::snprintf(line, sizeof line, "| %-5s | %-22.22s | %-10.4g | %-5zu | %-10.4g | %-5zu |\n",
                    split == Split::Train ? "Train" : "Valid", name.c_str(), min_it->second, min_it->first,
                    max_it->second, max_it->first);
      out << line;
    }
  return out.str();
}

}  // namespace scorch::train
