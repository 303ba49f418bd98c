#pragma once
// The corpus: fortune cookies of four categories of Debian's `fortunes` package (/usr/share/games/fortunes), one
// item per fortune, labelled by its file; and a word tokenizer of our own, fitted on the training texts.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace textclass {

/// The categories, in label order.
inline const std::vector<std::string> kCategories = {"computers", "definitions", "politics", "songs-poems"};

/// A fortune and its category's index.
struct Fortune {
  std::string text;
  size_t label = 0;
};

/// Every fortune of dir/<category> for each category (in label order), each fortune's text as written; IoError
/// naming the file when one is missing, ValueError when a category has no fortunes.
std::vector<Fortune> read_categories(const std::string& dir = "/usr/share/games/fortunes",
                                     const std::vector<std::string>& categories = kCategories);

/// Lower-case words (letters, digits and inner apostrophes) and single punctuation marks of text.
std::vector<std::string> split_words(std::string_view text);

/// Words to ids: 0 pads, 1 is an unknown word, 2 starts every sequence (its final state classifies); then the
/// vocabulary, most frequent first.
class WordTokenizer {
 public:
  static constexpr int64_t kPad = 0, kUnknown = 1, kStart = 2;
  /// The words seen at least min_count times in texts, at most max_words of them.
  static WordTokenizer fit(const std::vector<std::string>& texts, size_t min_count = 2, size_t max_words = 8000);
  /// A vocabulary written by save(); IoError naming the file when it cannot be read, FormatError naming it when a
  /// line is empty, holds a space, or repeats a word.
  static WordTokenizer load(const std::string& path);
  /// The vocabulary, one word per line in id order (from id 3).
  void save(const std::string& path) const;
  /// kStart and the ids of text's first max_tokens - 1 words.
  std::vector<int64_t> encode(std::string_view text, size_t max_tokens) const;
  /// The three special ids plus the words.
  size_t vocab_size() const { return words_.size() + 3; }

 private:
  explicit WordTokenizer(std::vector<std::string> words);
  std::vector<std::string> words_;
  std::map<std::string, int64_t, std::less<>> ids_;
};

}  // namespace textclass
