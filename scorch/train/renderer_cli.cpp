#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

#include "scorch/train/renderer.h"
#include "scorch/train/tui.h"

namespace scorch::train {

std::string format_duration(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm%02lds", s / 3600, (s / 60) % 60, s % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

CliRenderer::CliRenderer(std::ostream& out, std::chrono::milliseconds interval) : out_(out), interval_(interval) {}
CliRenderer::CliRenderer() : CliRenderer(std::cout) {}

void CliRenderer::start(const RunInfo& info) {
  num_epochs_ = info.num_epochs;
  auto every_s = std::chrono::duration_cast<std::chrono::seconds>(interval_).count();
  if (info.first_epoch > 1) out_ << "resuming at epoch " << info.first_epoch << "/" << info.num_epochs << std::endl;
  else
    out_ << "training " << info.num_epochs << (info.num_epochs == 1 ? " epoch" : " epochs")
         << ": a line after the first iteration, then at most every " << every_s << " s" << std::endl;
}

void CliRenderer::update(Split split, const std::vector<MetricEntry>& entries, const TrainingProgress& p) {
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < interval_) return;
  last_ = now;
  out_ << "[" << split_name(split) << "] epoch " << p.epoch << "/" << p.num_epochs << " iteration " << p.iteration
       << " (" << p.items_processed << "/" << p.items_total << " items)";
  for (const auto& e : entries) out_ << " | " << e.name << ": " << e.formatted;
  out_ << std::endl;
}

void CliRenderer::end_epoch(Split split, size_t epoch, const MetricsStore& store) {
  out_ << "epoch " << epoch << "/" << num_epochs_ << " " << split_name(split) << ":";
  for (const auto& name : store.names())
    if (auto v = store.epoch_value(split, name, epoch)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " %s %.4g", name.c_str(), *v);
      out_ << buf;
    }
  out_ << std::endl;
}

void CliRenderer::finish(const std::string& summary) {
  if (!summary.empty()) out_ << summary << std::flush;
}

std::shared_ptr<MetricsRenderer> default_renderer() {
  const char* mode = std::getenv("SCORCH_RENDERER");
  const char* term = std::getenv("TERM");
  bool cli = (mode && std::string(mode) == "cli") || !isatty(STDOUT_FILENO) || !term || std::string(term) == "dumb";
  if (cli) return std::make_shared<CliRenderer>();
  return std::make_shared<TuiRenderer>();
}

}  // namespace scorch::train
