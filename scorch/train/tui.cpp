#include "scorch/train/tui.h"

#include <ncurses.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

namespace scorch::train {
namespace {

using Clock = std::chrono::steady_clock;

/// One metric as the dashboard knows it.
struct MetricView {
  std::string name;
  std::string text[2];                   // latest formatted entry: train, valid
  std::vector<double> run[2], epoch[2];  // iteration values: whole run, current epoch
  bool numeric = false;
};

/// Averages values into at most width buckets.
std::vector<double> downsample(const std::vector<double>& values, size_t width) {
  if (values.size() <= width || width == 0) return values;
  std::vector<double> out(width, 0.0);
  for (size_t b = 0; b < width; ++b) {
    size_t lo = b * values.size() / width, hi = std::max(lo + 1, (b + 1) * values.size() / width);
    for (size_t i = lo; i < hi; ++i) out[b] += values[i];
    out[b] /= static_cast<double>(hi - lo);
  }
  return out;
}

std::string bar(double fraction, int width) {
  int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width + 0.5);
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

}  // namespace

struct TuiRenderer::State {
  std::mutex mutex;
  std::vector<MetricView> metrics;
  TrainingProgress progress;
  Split split = Split::Train;
  RunInfo info;
  size_t selected = 0;
  bool whole_run = false;
  Clock::time_point started = Clock::now();
  double done_at_start = 0;  // run fraction already done when this process started (resume)
  std::atomic<bool> running{false};
  std::thread thread;

  MetricView& view(const std::string& name) {
    for (auto& m : metrics)
      if (m.name == name) return m;
    metrics.push_back({name, {}, {}, {}, false});
    return metrics.back();
  }
  double run_fraction() const {
    const auto& p = progress;
    double epoch_part =
        p.items_total ? static_cast<double>(p.items_processed) / static_cast<double>(p.items_total) : 0.0;
    if (split == Split::Valid) epoch_part = 1.0;  // validation counts as the end of its epoch
    return std::clamp(
        (static_cast<double>(p.epoch - 1) + epoch_part) / static_cast<double>(std::max<size_t>(1, info.num_epochs)),
        0.0, 1.0);
  }
  void loop();
  void draw();
  void draw_plot(int top, int height, int width);
  void handle(int key);
};

void TuiRenderer::State::handle(int key) {
  std::lock_guard lock(mutex);
  size_t n = std::max<size_t>(1, metrics.size());
  if (key == KEY_RIGHT) selected = (selected + 1) % n;
  else if (key == KEY_LEFT) selected = (selected + n - 1) % n;
  else if (key == KEY_UP || key == KEY_DOWN) whole_run = !whole_run;
  else if (key == 'q' || key == 'Q') info.interrupter.stop("quit from the dashboard");
}

void TuiRenderer::State::draw_plot(int top, int height, int width) {
  std::vector<const MetricView*> numeric;
  for (const auto& m : metrics)
    if (m.numeric) numeric.push_back(&m);
  if (numeric.empty()) {
    mvprintw(top, 1, "(no numeric metric yet)");
    return;
  }
  const MetricView& m = *numeric[selected % numeric.size()];
  mvprintw(top, 1, "Metric: %s (%zu/%zu)  <-/-> metric   View: %s  up/down view", m.name.c_str(),
           selected % numeric.size() + 1, numeric.size(), whole_run ? "whole run" : "recent (this epoch)");
  int plot_w = std::max(10, width - 14), plot_h = std::max(3, height - 2);
  std::vector<double> series[2];
  double lo = INFINITY, hi = -INFINITY;
  for (int s = 0; s < 2; ++s) {
    series[s] = downsample(whole_run ? m.run[s] : m.epoch[s], static_cast<size_t>(plot_w));
    for (double v : series[s])
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(lo <= hi)) lo = 0, hi = 1;
  if (hi - lo < 1e-12) hi = lo + 1e-6 + std::abs(lo) * 1e-3;
  mvprintw(top + 1, 1, "%11.4g |", hi);
  mvprintw(top + plot_h, 1, "%11.4g |", lo);
  for (int r = 2; r < plot_h; ++r) mvprintw(top + r, 13, "|");
  const char marks[2] = {'*', 'o'};
  for (int s = 0; s < 2; ++s) {
    const auto& v = series[s];
    if (has_colors()) attron(COLOR_PAIR(s + 1));
    for (size_t i = 0; i < v.size(); ++i) {
      if (!std::isfinite(v[i])) continue;
      int x = 14 + static_cast<int>(v.size() > 1 ? i * static_cast<size_t>(plot_w - 1) / (v.size() - 1) : 0);
      int y = top + 1 + static_cast<int>(std::lround((hi - v[i]) / (hi - lo) * (plot_h - 1)));
      mvaddch(y, x, marks[s]);
    }
    if (has_colors()) attroff(COLOR_PAIR(s + 1));
  }
  mvprintw(top + plot_h + 1, 14, "* train   o valid");
}

void TuiRenderer::State::draw() {
  std::lock_guard lock(mutex);
  erase();
  int rows, cols;
  getmaxyx(stdscr, rows, cols);
  const auto& p = progress;
  double fraction = run_fraction();
  double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
  double rate = (fraction - done_at_start) / std::max(elapsed, 1e-9);
  std::string eta = rate > 0 ? format_duration((1.0 - fraction) / rate) : "--";
  attron(A_BOLD);
  mvprintw(0, 1, "Scorch training | %s | epoch %zu/%zu | iteration %zu | elapsed %s | ETA %s", split_name(split),
           p.epoch, p.num_epochs, p.iteration, format_duration(elapsed).c_str(), eta.c_str());
  attroff(A_BOLD);
  int table_rows = static_cast<int>(metrics.size()) + 1;
  int plot_height = std::max(5, rows - table_rows - 8);
  draw_plot(2, plot_height, cols);
  int y = 2 + plot_height + 3;
  mvprintw(y++, 1, "%-22s %-40s %s", "Metric", "Train", "Valid");
  for (const auto& m : metrics)
    mvprintw(y++, 1, "%-22.22s %-40.40s %.40s", m.name.c_str(), m.text[0].c_str(), m.text[1].c_str());
  double epoch_fraction =
      p.items_total ? static_cast<double>(p.items_processed) / static_cast<double>(p.items_total) : 0.0;
  mvprintw(y + 1, 1, "%s %s %3.0f%%   Run %s %3.0f%%", split == Split::Train ? "Train" : "Valid",
           bar(epoch_fraction, 30).c_str(), 100 * epoch_fraction, bar(fraction, 30).c_str(), 100 * fraction);
  if (info.interrupter.should_stop())
    mvprintw(y + 2, 1, "Stopping (%s): finishing the current iteration...", info.interrupter.reason().c_str());
  else mvprintw(y + 2, 1, "q: stop training (written checkpoints stay whole)");
  refresh();
}

void TuiRenderer::State::loop() {
  initscr();
  cbreak();  // keys arrive at once; Ctrl-C still raises SIGINT
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
  timeout(100);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(1, COLOR_GREEN, -1);
    init_pair(2, COLOR_RED, -1);
  }
  while (running.load()) {
    draw();
    int key = getch();
    if (key != ERR) handle(key);
  }
  endwin();
}

TuiRenderer::TuiRenderer() : state_(std::make_unique<State>()) {}

TuiRenderer::~TuiRenderer() {
  if (state_->running.exchange(false)) state_->thread.join();
}

void TuiRenderer::start(const RunInfo& info) {
  {
    std::lock_guard lock(state_->mutex);
    state_->info = info;
    state_->progress.epoch = info.first_epoch;
    state_->progress.num_epochs = info.num_epochs;
    state_->done_at_start =
        static_cast<double>(info.first_epoch - 1) / static_cast<double>(std::max<size_t>(1, info.num_epochs));
    state_->started = Clock::now();
    if (info.history)
      for (const auto& name : info.history->names()) {
        auto& m = state_->view(name);
        m.numeric = true;
        for (int s = 0; s < 2; ++s)
          m.run[s] = info.history->all_iteration_values(s ? Split::Valid : Split::Train, name);
      }
  }
  state_->running = true;
  state_->thread = std::thread([s = state_.get()] { s->loop(); });
}

void TuiRenderer::update(Split split, const std::vector<MetricEntry>& entries, const TrainingProgress& progress) {
  std::lock_guard lock(state_->mutex);
  if (state_->split != split || state_->progress.epoch != progress.epoch)
    for (auto& m : state_->metrics) m.epoch[split == Split::Valid].clear();
  state_->split = split;
  state_->progress = progress;
  int s = split == Split::Valid;
  for (const auto& e : entries) {
    auto& m = state_->view(e.name);
    m.text[s] = e.formatted;
    if (e.value) {
      m.numeric = true;
      m.run[s].push_back(*e.value);
      m.epoch[s].push_back(*e.value);
    }
  }
}

void TuiRenderer::end_epoch(Split, size_t, const MetricsStore&) {}

void TuiRenderer::finish(const std::string& summary) {
  if (state_->running.exchange(false)) state_->thread.join();
  if (!summary.empty()) std::cout << summary << std::flush;
}

}  // namespace scorch::train
