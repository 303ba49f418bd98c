#include "corpus.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include <scorch/core/error.h>

namespace textclass {

namespace {

/// The fortunes of one file: texts between lines holding only `%`.
std::vector<std::string> fortunes_of(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw scorch::IoError("read_categories", path + ": cannot be opened (install Debian's fortunes package)");
  std::vector<std::string> fortunes;
  std::string line, text;
  auto flush = [&] {
    if (text.find_first_not_of(" \t\n") != std::string::npos) fortunes.push_back(text);
    text.clear();
  };
  while (std::getline(in, line)) {
    if (line == "%") flush();
    else text += line + "\n";
  }
  flush();
  return fortunes;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::vector<Fortune> read_categories(const std::string& dir, const std::vector<std::string>& categories) {
  std::vector<Fortune> corpus;
  for (size_t label = 0; label < categories.size(); ++label) {
    auto texts = fortunes_of(dir + "/" + categories[label]);
    if (texts.empty()) throw scorch::ValueError("read_categories", dir + "/" + categories[label] + " has no fortunes");
    for (auto& text : texts) corpus.push_back({std::move(text), label});
  }
  return corpus;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (is_word_char(c)) {
      std::string word;
      while (i < text.size() && (is_word_char(text[i]) || (text[i] == '\'' && i + 1 < text.size() &&
                                                           is_word_char(text[i + 1]) && !word.empty())))
        word += char(std::tolower(static_cast<unsigned char>(text[i++])));
      words.push_back(std::move(word));
    } else {
      if (std::ispunct(static_cast<unsigned char>(c))) words.emplace_back(1, c);
      ++i;
    }
  }
  return words;
}

WordTokenizer::WordTokenizer(std::vector<std::string> words) : words_(std::move(words)) {
  for (size_t i = 0; i < words_.size(); ++i)
    if (!ids_.emplace(words_[i], int64_t(i) + 3).second)
      throw scorch::FormatError("WordTokenizer", "the vocabulary repeats the word '" + words_[i] + "'");
}

WordTokenizer WordTokenizer::fit(const std::vector<std::string>& texts, size_t min_count, size_t max_words) {
  std::map<std::string, size_t> counts;
  for (const auto& text : texts)
    for (auto& word : split_words(text)) ++counts[word];
  std::vector<std::pair<std::string, size_t>> frequent;
  for (auto& [word, count] : counts)
    if (count >= min_count) frequent.emplace_back(word, count);
  std::stable_sort(frequent.begin(), frequent.end(), [](auto& a, auto& b) { return a.second > b.second; });
  if (frequent.size() > max_words) frequent.resize(max_words);
  std::vector<std::string> words;
  for (auto& entry : frequent) words.push_back(entry.first);
  return WordTokenizer(std::move(words));
}

WordTokenizer WordTokenizer::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw scorch::IoError("WordTokenizer::load", path + ": cannot be opened");
  std::vector<std::string> words;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line.find_first_of(" \t\r") != std::string::npos)
      throw scorch::FormatError("WordTokenizer::load",
                                path + ": line " + std::to_string(number) + " is not one word (as save writes them)");
    words.push_back(line);
  }
  std::set<std::string_view> seen;
  for (const auto& word : words)
    if (!seen.insert(word).second)
      throw scorch::FormatError("WordTokenizer::load", path + ": the word '" + word + "' appears twice");
  return WordTokenizer(std::move(words));
}

void WordTokenizer::save(const std::string& path) const {
  std::ofstream out(path);
  for (const auto& word : words_) out << word << "\n";
  if (!out) throw scorch::IoError("WordTokenizer::save", path + ": cannot be written");
}

std::vector<int64_t> WordTokenizer::encode(std::string_view text, size_t max_tokens) const {
  std::vector<int64_t> ids{kStart};
  for (const auto& word : split_words(text)) {
    if (ids.size() >= max_tokens) break;
    auto found = ids_.find(word);
    ids.push_back(found == ids_.end() ? kUnknown : found->second);
  }
  return ids;
}

}  // namespace textclass
