#include "text.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <scorch/core/error.h>

namespace textgen {

namespace fs = std::filesystem;

CharTokenizer CharTokenizer::fit(std::string_view text) {
  bool seen[256] = {};
  for (unsigned char c : text) seen[c] = true;
  std::vector<int64_t> bytes;
  for (int b = 0; b < 256; ++b)
    if (seen[b]) bytes.push_back(b);
  return from_vocabulary(bytes);
}

CharTokenizer CharTokenizer::from_vocabulary(const std::vector<int64_t>& bytes) {
  CharTokenizer t;
  for (int64_t b : bytes) {
    if (b < 0 || b > 255)
      throw scorch::ValueError("CharTokenizer", "byte " + std::to_string(b) + " is outside [0, 255]");
    if (t.ids_[b] != 0) throw scorch::ValueError("CharTokenizer", "byte " + std::to_string(b) + " appears twice");
    t.bytes_.push_back(b);
    t.ids_[b] = static_cast<int64_t>(t.bytes_.size());
  }
  return t;
}

std::vector<int64_t> CharTokenizer::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  ids.reserve(text.size());
  for (unsigned char c : text) ids.push_back(ids_[c]);
  return ids;
}

std::string CharTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::string out;
  for (int64_t id : ids) {
    if (id < 0 || id >= static_cast<int64_t>(vocab_size()))
      throw scorch::ValueError("CharTokenizer::decode",
                               "id " + std::to_string(id) + " is outside [0, " + std::to_string(vocab_size()) + ")");
    out.push_back(id == 0 ? '?' : static_cast<char>(bytes_[static_cast<size_t>(id - 1)]));
  }
  return out;
}

namespace {
bool is_fortune_file(const fs::directory_entry& e) {
  auto ext = e.path().extension().string();
  return e.is_regular_file() && ext != ".dat" && ext != ".u8";
}

/// The file's fortunes, each followed by a blank line.
std::string fortunes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  std::string line;
  bool open = false;
  while (std::getline(in, line)) {
    if (line == "%") {
      if (open) out << '\n';
      open = false;
      continue;
    }
    out << line << '\n';
    open = true;
  }
  if (open) out << '\n';
  return out.str();
}
}  // namespace

std::string read_fortunes(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw scorch::IoError("read_fortunes", "no directory " + dir + " (install Debian's fortunes package)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (is_fortune_file(e)) files.push_back(e.path());
  std::sort(files.begin(), files.end());  // the same text on every machine
  std::string text;
  for (const auto& f : files) text += fortunes_of(f);
  if (text.empty()) throw scorch::IoError("read_fortunes", "no fortunes in " + dir);
  return text;
}

std::vector<Window> windows(const std::vector<int64_t>& ids, size_t seq, size_t max_windows) {
  if (seq == 0 || ids.size() < seq + 1)
    throw scorch::ValueError("windows", std::to_string(ids.size()) + " tokens do not fill one window of " +
                                            std::to_string(seq + 1));
  size_t available = (ids.size() - 1) / seq;
  size_t count = std::min(available, max_windows);
  std::vector<Window> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    size_t start = (i * available / count) * seq;
    out.emplace_back(ids.begin() + static_cast<std::ptrdiff_t>(start),
                     ids.begin() + static_cast<std::ptrdiff_t>(start + seq + 1));
  }
  return out;
}

}  // namespace textgen
