#include "scorch/core/slow_work.h"

#include <cstdio>
#include <iostream>

namespace scorch {

SlowWorkNotice::SlowWorkNotice(std::string who, std::string what, double first_after_s, double every_s, Sink sink)
    : who_(std::move(who)), what_(std::move(what)), next_s_(first_after_s), every_s_(every_s), sink_(std::move(sink)) {
  if (!sink_) sink_ = [](const std::string& line) { std::cerr << line << std::endl; };
}

void SlowWorkNotice::add(double seconds) {
  std::string line;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    total_s_ += seconds;
    if (total_s_ < next_s_) return;
    while (next_s_ <= total_s_) next_s_ += every_s_;
    char seconds_text[32];
    std::snprintf(seconds_text, sizeof seconds_text, "%.1f", total_s_);
    line = "[" + who_ + "] " + std::to_string(count_) + " " + what_ + " in " + seconds_text + " s";
    if (!said_) line += " (first use of each kernel; later iterations reuse them)";
    said_ = true;
  }
  sink_(line);
}

size_t SlowWorkNotice::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return count_;
}

double SlowWorkNotice::total_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_s_;
}

}  // namespace scorch
