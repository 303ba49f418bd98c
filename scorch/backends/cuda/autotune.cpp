#include "scorch/backends/cuda/autotune.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <vector>

#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/backends/cuda/runtime.h"

namespace scorch::backends::cuda {
namespace {

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::string(v) != "0" && std::string(v) != "off" && std::string(v) != "false";
}

std::atomic<bool> g_autotune{env_flag("SCORCH_AUTOTUNE", true)};
/// The mode SCORCH_CUDA_F32_MATMUL (or SCORCH_CUDA_TF32) names; an unknown name is reported and ignored.
F32Matmul f32_matmul_from_env() {
  const char* name = std::getenv("SCORCH_CUDA_F32_MATMUL");
  std::string mode = name ? name : "";
  if (mode == "exact") return F32Matmul::Exact;
  if (mode == "tf32x3") return F32Matmul::Tf32x3;
  if (mode == "tf32") return F32Matmul::Tf32;
  if (!mode.empty())
    std::fprintf(stderr, "[scorch] SCORCH_CUDA_F32_MATMUL=%s is not exact, tf32x3 or tf32: ignored\n", name);
  return env_flag("SCORCH_CUDA_TF32", false) ? F32Matmul::Tf32 : F32Matmul::Exact;
}
std::atomic<F32Matmul> g_f32_matmul{f32_matmul_from_env()};
std::atomic<uint64_t> g_benchmarks{0};

struct Cache {
  std::mutex mutex;
  bool loaded = false;
  std::map<std::string, std::string> entries;
};
Cache& cache() {
  static Cache* c = new Cache();
  return *c;
}

void load_file(Cache& c) {
  c.loaded = true;
  std::ifstream in(autotune_cache_path());
  std::string line;
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (tab == std::string::npos || tab == 0) continue;  // a damaged line is skipped, not fatal
    c.entries[line.substr(0, tab)] = line.substr(tab + 1);
  }
}

void write_file(const Cache& c) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path path(autotune_cache_path());
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  fs::path tmp = path;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& [k, v] : c.entries) out << k << '\t' << v << '\n';
    if (!out.flush()) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

void set_autotune(bool enabled) { g_autotune = enabled; }
bool autotune_enabled() { return g_autotune; }
void set_f32_matmul(F32Matmul mode) { g_f32_matmul = mode; }
F32Matmul f32_matmul() { return g_f32_matmul; }
void set_allow_tf32(bool allow) { g_f32_matmul = allow ? F32Matmul::Tf32 : F32Matmul::Exact; }
bool allow_tf32() { return g_f32_matmul == F32Matmul::Tf32; }
uint64_t autotune_benchmarks_run() { return g_benchmarks; }

std::string autotune_cache_path() {
  if (const char* p = std::getenv("SCORCH_AUTOTUNE_CACHE"); p && *p) return p;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/scorch/autotune-cuda.tsv";
}

void clear_autotune_memory() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  c.entries.clear();
  c.loaded = false;
}

namespace autotune {

std::optional<std::string> lookup(const std::string& key) {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  if (!c.loaded) load_file(c);
  auto it = c.entries.find(key);
  if (it == c.entries.end()) return std::nullopt;
  return it->second;
}

void store(const std::string& key, const std::string& choice) {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  if (!c.loaded) load_file(c);
  c.entries[key] = choice;
  write_file(c);
}

void count_benchmark() { ++g_benchmarks; }

const std::string& device_name(int device) {
  static std::mutex mutex;
  static std::map<int, std::string> names;
  std::lock_guard lock(mutex);
  auto it = names.find(device);
  if (it != names.end()) return it->second;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "autotune");
  std::string name = prop.name;
  for (char& ch : name)
    if (ch == '\t' || ch == '\n' || ch == '|') ch = ' ';
  return names[device] = name;
}

}  // namespace autotune
}  // namespace scorch::backends::cuda
