#pragma once
// The example's text: a character tokenizer and the corpus, the fortune cookies the Debian `fortunes` packages
// install (/usr/share/games/fortunes), split into fixed-length windows of token ids.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace textgen {

/// Bytes to ids over a fixed vocabulary (the distinct bytes of the training text, sorted); id 0 is the
/// unknown byte, so any text encodes.
class CharTokenizer {
 public:
  /// The vocabulary of text's distinct bytes.
  static CharTokenizer fit(std::string_view text);
  /// A vocabulary saved by vocabulary(); throws ValueError for a value outside [0, 255] or a repeated byte.
  static CharTokenizer from_vocabulary(const std::vector<int64_t>& bytes);
  /// Each byte's id (0 when the byte is not in the vocabulary).
  std::vector<int64_t> encode(std::string_view text) const;
  /// The bytes of ids (id 0 gives '?'); throws ValueError naming an id outside [0, vocab_size()).
  std::string decode(const std::vector<int64_t>& ids) const;
  /// The vocabulary's bytes in id order (ids 1...).
  const std::vector<int64_t>& vocabulary() const { return bytes_; }
  /// The unknown id plus one id per byte.
  size_t vocab_size() const { return bytes_.size() + 1; }

 private:
  std::vector<int64_t> bytes_;
  int64_t ids_[256] = {};
};

/// Every fortune of the text files in dir (the `%` lines between fortunes dropped, the `.dat` indexes and
/// `.u8` links skipped), each ending in a blank line; throws IoError naming dir when it has no fortunes.
std::string read_fortunes(const std::string& dir = "/usr/share/games/fortunes");

/// A training sequence: seq + 1 token ids (inputs are the first seq, targets the last seq).
using Window = std::vector<int64_t>;

/// Consecutive windows of seq + 1 ids that start every seq ids (at most max_windows of them, evenly spread over
/// the text when there are more); throws ValueError when ids hold fewer than seq + 1.
std::vector<Window> windows(const std::vector<int64_t>& ids, size_t seq, size_t max_windows);

}  // namespace textgen
