#include "scorch/data/sources/huggingface.h"

#include <dlfcn.h>
#include <link.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace scorch::data {

namespace {
std::string default_base_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/scorch/huggingface";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "/tmp") + "/.cache/scorch/huggingface";
}

/// share/scorch/hf_import.py in the installation holding file (bin/x, lib/x or lib/<arch>/x), or "".
std::string script_beside(const std::filesystem::path& file) {
  std::error_code error;
  auto dir = file.parent_path().parent_path();
  for (int up = 0; up < 2 && dir.has_relative_path(); ++up, dir = dir.parent_path()) {
    auto script = dir / "share" / "scorch" / "hf_import.py";
    if (std::filesystem::exists(script, error)) return script.string();
  }
  return "";
}

// SCORCH_HF_IMPORT_SCRIPT, else the script of the installation holding this code (libscorch.so) or the running
// program (an installation moved with cmake --install --prefix), else the path of the configured install prefix.
std::string import_script() {
  if (const char* env = std::getenv("SCORCH_HF_IMPORT_SCRIPT"); env && *env) return env;
  Dl_info info{};
  link_map* object = nullptr;  // the main program's has an empty name: /proc/self/exe names it below
  if (dladdr1(reinterpret_cast<void*>(&script_beside), &info, reinterpret_cast<void**>(&object), RTLD_DL_LINKMAP) &&
      object && object->l_name && *object->l_name == '/')
    if (auto script = script_beside(object->l_name); !script.empty()) return script;
  std::error_code error;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error)
    if (auto script = script_beside(exe); !script.empty()) return script;
  return SCORCH_HF_IMPORT_SCRIPT;
}

/// The file name for a dataset name ("ylecun/mnist" → "ylecun_mnist").
std::string file_stem(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  return name;
}

/// Runs argv with stderr to err_file; returns the exit status (127 when it cannot start).
int run(std::vector<std::string> argv, const std::string& err_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid;
  int started = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return 127;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/// The last "hf_import:" line of the script's stderr, else its last line.
std::string reason(const std::string& err_file) {
  std::ifstream in(err_file);
  std::string line, last, tagged;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.rfind("hf_import: ", 0) == 0) tagged = line.substr(11);
  }
  return !tagged.empty() ? tagged : !last.empty() ? last : "no message";
}
}  // namespace

std::string HuggingfaceDatasetLoader::db_file() const {
  std::string dir = base_dir_.empty() ? default_base_dir() : base_dir_;
  std::string db = dir + "/" + file_stem(name_) + (subset_.empty() ? "" : "-" + file_stem(subset_)) + ".db";
  if (std::filesystem::exists(db) && !reimport_) return db;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw IoError("HuggingfaceDatasetLoader", "cannot create " + dir + ": " + ec.message());
  std::string what = "cannot import '" + name_ + "' into " + db + ": ";
  std::string script = import_script();
  if (!std::filesystem::exists(script))
    throw IoError("HuggingfaceDatasetLoader",
                  what + "the import script " + script + " is missing (set SCORCH_HF_IMPORT_SCRIPT)");
  std::vector<std::string> argv = {python_, script, name_, "--db", db};
  if (!subset_.empty()) argv.insert(argv.end(), {"--subset", subset_});
  if (!local_.empty()) argv.insert(argv.end(), {"--local", local_});
  std::string err_file = db + ".stderr";
  int status = run(argv, err_file);
  std::string why = status == 127 ? "the Python interpreter '" + python_ + "' was not found" : reason(err_file);
  std::filesystem::remove(err_file, ec);
  if (status != 0) throw IoError("HuggingfaceDatasetLoader", what + why);
  return db;
}

}  // namespace scorch::data
