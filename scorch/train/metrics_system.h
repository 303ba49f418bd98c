#pragma once
// Machine metrics read from Linux's /proc and /sys: CPU use, memory use, CPU temperature.
// A reading the machine does not expose is reported as unavailable, never made up.
#include <chrono>
#include <cstdint>

#include "scorch/train/metric.h"

namespace scorch::train {

/// Busy share of all CPUs since the previous reading (readings at most once a second), percent.
class CpuUse final : public NumericMetric<NoInput> {
 public:
  /// stat_file: where the CPU counters are read (tests point it at a fixture).
  explicit CpuUse(std::string stat_file = "/proc/stat") : file_(std::move(stat_file)) {}
  std::string name() const override { return "CPU Usage"; }
  MetricEntry update(const NoInput&, const MetricMetadata& metadata) override;
  void clear() override {}
  double value() const override { return last_.value_or(0.0); }
  std::optional<double> numeric_value() const override { return last_; }

 private:
  std::string file_;
  std::optional<double> last_;
  uint64_t busy_ = 0, total_ = 0;
  std::optional<std::chrono::steady_clock::time_point> read_at_;
};

/// Memory in use (total − available) in GiB, with the total.
class CpuMemory final : public NumericMetric<NoInput> {
 public:
  explicit CpuMemory(std::string meminfo_file = "/proc/meminfo") : file_(std::move(meminfo_file)) {}
  std::string name() const override { return "CPU Memory"; }
  MetricEntry update(const NoInput&, const MetricMetadata& metadata) override;
  void clear() override {}
  double value() const override { return used_.value_or(0.0); }
  std::optional<double> numeric_value() const override { return used_; }

 private:
  std::string file_;
  std::optional<double> used_;
};

/// The hottest CPU sensor in °C (thermal zones of CPU type, or coretemp/k10temp hwmon).
class CpuTemperature final : public NumericMetric<NoInput> {
 public:
  /// sys_root: the root under which class/thermal and class/hwmon are searched.
  explicit CpuTemperature(std::string sys_root = "/sys") : root_(std::move(sys_root)) {}
  std::string name() const override { return "CPU Temperature"; }
  MetricEntry update(const NoInput&, const MetricMetadata& metadata) override;
  void clear() override {}
  double value() const override { return celsius_.value_or(0.0); }
  std::optional<double> numeric_value() const override { return celsius_; }
  /// The current reading, nullopt when the machine exposes no CPU sensor.
  std::optional<double> read() const;

 private:
  std::string root_;
  std::optional<double> celsius_;
};

}  // namespace scorch::train
