#include "scorch/train/metrics_system.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scorch/train/metric_format.h"

namespace scorch::train {
namespace {

MetricEntry unavailable(const std::string& name) { return {name, "unavailable", "", std::nullopt, std::nullopt}; }

/// A reading shown as itself (a machine reading has no epoch mean worth showing).
MetricEntry plain_entry(double value, const FormatOptions& format) {
  auto entry = numeric_entry(value, value, format);
  entry.formatted = format_value(value, format);
  return entry;
}

std::optional<double> read_number(const std::filesystem::path& file) {
  std::ifstream in(file);
  double v;
  if (in >> v) return v;
  return std::nullopt;
}

std::string read_word(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string s;
  in >> s;
  return s;
}

}  // namespace

MetricEntry CpuUse::update(const NoInput&, const MetricMetadata&) {
  auto now = std::chrono::steady_clock::now();
  if (!read_at_ || now - *read_at_ >= std::chrono::seconds(1)) {
    std::ifstream in(file_);
    std::string cpu;
    uint64_t user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal && cpu == "cpu") {
      uint64_t busy = user + nice + system + irq + softirq + steal, total = busy + idle + iowait;
      if (read_at_ && total > total_)
        last_ = 100.0 * static_cast<double>(busy - busy_) / static_cast<double>(total - total_);
      else if (!read_at_ && total > 0) last_ = 100.0 * static_cast<double>(busy) / static_cast<double>(total);
      busy_ = busy, total_ = total;
    }
    read_at_ = now;
  }
  if (!last_) return unavailable(name());
  return plain_entry(*last_, FormatOptions(name()).with_unit("%"));
}

MetricEntry CpuMemory::update(const NoInput&, const MetricMetadata&) {
  std::ifstream in(file_);
  std::string key, unit;
  double value, total = -1, available = -1;
  while (in >> key >> value >> unit) {
    if (key == "MemTotal:") total = value;
    if (key == "MemAvailable:") available = value;
  }
  if (total < 0 || available < 0) {
    used_.reset();
    return unavailable(name());
  }
  const double gib = 1024.0 * 1024.0;  // the file counts kB
  used_ = (total - available) / gib;
  auto entry = numeric_entry(*used_, *used_, FormatOptions(name()).with_unit("GiB"));
  entry.formatted = format_value(*used_, FormatOptions(name())) + " / " +
                    format_value(total / gib, FormatOptions(name()).with_unit("GiB"));
  return entry;
}

std::optional<double> CpuTemperature::read() const {
  namespace fs = std::filesystem;
  std::optional<double> hottest;
  auto consider = [&](const fs::path& millidegrees) {
    if (auto v = read_number(millidegrees); v && *v > 0) hottest = std::max(hottest.value_or(-1e9), *v / 1000.0);
  };
  std::error_code ec;
  for (const auto& zone : fs::directory_iterator(fs::path(root_) / "class/thermal", ec)) {
    std::string type = read_word(zone.path() / "type");
    if (type.find("pkg") != std::string::npos || type.find("cpu") != std::string::npos ||
        type.find("CPU") != std::string::npos)
      consider(zone.path() / "temp");
  }
  for (const auto& mon : fs::directory_iterator(fs::path(root_) / "class/hwmon", ec)) {
    std::string chip = read_word(mon.path() / "name");
    if (chip != "coretemp" && chip != "k10temp" && chip != "zenpower" && chip != "cpu_thermal") continue;
    for (const auto& f : fs::directory_iterator(mon.path(), ec)) {
      auto n = f.path().filename().string();
      if (n.rfind("temp", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == "_input") consider(f.path());
    }
  }
  return hottest;
}

MetricEntry CpuTemperature::update(const NoInput&, const MetricMetadata&) {
  celsius_ = read();
  if (!celsius_) return unavailable(name());
  return plain_entry(*celsius_, FormatOptions(name()).with_unit("°C").with_precision(1));
}

}  // namespace scorch::train
