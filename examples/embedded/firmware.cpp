// The embedded example's firmware: the guide's CNN on the micro runtime classifies the digits compiled in and
// prints each prediction, the plan and the instructions per inference over semihosting. No heap, no exceptions.
#include "board.h"
#include "digits.h"
#include "digit_weights.h"
#include "model.h"
#include "plan.h"

namespace {

using embedded::micro::Code;
using embedded::micro::Status;

/// One console line built from pieces.
class Line {
 public:
  Line& operator<<(const char* text) {
    while (*text && length_ + 2 < sizeof text_) text_[length_++] = *text++;
    return *this;
  }
  Line& operator<<(uint64_t value) {
    char digits[24];
    size_t n = 0;
    do digits[n++] = char('0' + value % 10);
    while (value /= 10);
    while (n && length_ + 2 < sizeof text_) text_[length_++] = digits[--n];
    return *this;
  }
  ~Line() {
    text_[length_++] = '\n';
    text_[length_] = '\0';
    board::write(text_);
  }

 private:
  char text_[200];
  size_t length_ = 0;
};

embedded::DigitModel model;
alignas(16) uint8_t arena[embedded::kArenaBytes];
float input[28 * 28];
float logits[16];

// Checks that an error comes back as a Status with the expected code (the freestanding error policy).
bool expect(const Status& s, Code code, const char* what) {
  bool ok = s.code == code;
  Line() << "status " << what << " " << embedded::micro::code_name(s.code) << ": " << s.message;
  return ok;
}

// Instructions per layer of one inference (the first digit's), from the FPGA counter around each layer.
struct LayerTicks {
  uint32_t start = 0;
  uint32_t ticks[16] = {};
};

void time_layer(void* context, embedded::micro::Value node, bool done) {
  auto* t = static_cast<LayerTicks*>(context);
  if (!done) t->start = board::ticks();
  else if (uint32_t(node) < 16) t->ticks[node] += board::ticks() - t->start;
}

void print_layers() {
  LayerTicks t;
  embedded::normalize(embedded::kDigitPixels[0], input);
  if (!model.graph.run(arena, sizeof arena, input, logits, time_layer, &t).ok()) return;
  for (uint32_t i = 0; i < model.graph.size() && i < 16; ++i)
    if (const auto* layer = model.graph.node(embedded::micro::Value(i)).layer)
      Line() << "layer " << i << " " << layer->name() << " instructions "
             << uint64_t(t.ticks[i]) * board::kInstructionsPerTick;
}

bool status_checks() {
  bool ok = expect(model.graph.run(arena, model.graph.arena_bytes() - 16, input, logits), Code::arena, "small-arena");
  embedded::micro::Graph<2> wrong;
  wrong.add(model.linear2, wrong.input({1, 1, 28, 28}));
  ok = expect(wrong.status(), Code::shape, "wrong-shape") && ok;
  embedded::micro::Linear missing;
  return expect(missing.load(digit_model::weights, "linear9"), Code::missing, "missing-weight") && ok;
}

}  // namespace

int main() {
  Status s = model.build(digit_model::weights);
  if (!s.ok()) return Line() << "error " << s.message, 1;
  Line() << "model " << (digit_model::kInt8 ? "int8" : "f32") << " weights " << uint64_t(digit_model::kWeightBytes)
         << " arena " << uint64_t(model.graph.arena_bytes()) << " reserved " << uint64_t(sizeof arena) << " unplanned "
         << uint64_t(model.graph.unplanned_bytes());
  if (model.classes() > sizeof logits / sizeof logits[0]) return Line() << "error too many classes", 1;
  uint64_t total_ticks = 0;
  uint32_t correct = 0;
  for (uint32_t i = 0; i < embedded::kDigitCount; ++i) {
    embedded::normalize(embedded::kDigitPixels[i], input);
    uint32_t start = board::ticks();
    s = model.graph.run(arena, sizeof arena, input, logits);
    uint32_t ticks = board::ticks() - start;
    if (!s.ok()) return Line() << "error " << s.message, 1;
    uint32_t predicted = embedded::argmax(logits, model.classes());
    correct += predicted == embedded::kDigitLabels[i];
    total_ticks += ticks;
    Line() << "digit " << i << " label " << embedded::kDigitLabels[i] << " predicted " << predicted;
  }
  Line() << "correct " << correct << " of " << embedded::kDigitCount;
  Line() << "instructions-per-inference " << total_ticks * board::kInstructionsPerTick / embedded::kDigitCount;
  print_layers();
  if (!status_checks()) return Line() << "error a status check failed", 1;
  Line() << "done";
  return 0;
}
