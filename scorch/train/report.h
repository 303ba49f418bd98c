#pragma once
// What a run leaves behind besides checkpoints: an SVG plot per numeric metric (training and
// validation value per epoch) and the summary table printed at the end.
#include <string>
#include <vector>

#include "scorch/train/store.h"

namespace scorch::train {

/// One line of a plot: (x, y) points and a colour.
struct PlotSeries {
  std::string label, color;
  std::vector<std::pair<double, double>> points;
};

/// A standalone SVG line chart with axes, ticks and a legend.
std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::vector<PlotSeries>& series);

/// Writes `dir/<metric>.svg` for every metric of store with epoch values (written through a temporary
/// file, renamed when complete); returns the files written.
std::vector<std::string> write_metric_plots(const MetricsStore& store, const std::string& dir);

/// The table of each metric's best and worst epoch value per split (Burn's learner summary).
std::string learner_summary(const MetricsStore& store, size_t epochs_run, const std::string& model_description);

}  // namespace scorch::train
