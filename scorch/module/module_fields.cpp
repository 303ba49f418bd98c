#include "scorch/module/module_fields.h"

namespace scorch::detail {
namespace {
constexpr size_t kListedProblems = 32;  // a record for another architecture can mismatch thousands of keys

/// The problems as one message: their count, then each without the "[load_record] " they all start with.
std::string problem_list(const std::vector<std::string>& problems) {
  const std::string head = "[load_record] ";
  std::string text = std::to_string(problems.size()) + " mismatched keys:";
  for (size_t i = 0; i < problems.size() && i < kListedProblems; ++i)
    text += "\n  " + (problems[i].rfind(head, 0) == 0 ? problems[i].substr(head.size()) : problems[i]);
  if (problems.size() > kListedProblems)
    text += "\n  ... and " + std::to_string(problems.size() - kListedProblems) + " more";
  return text;
}
}  // namespace

void LoadContext::throw_problems() const {
  if (problems.empty()) return;
  if (problems.size() == 1) std::rethrow_exception(first_problem);
  std::string text = problem_list(problems);
  try {
    std::rethrow_exception(first_problem);
  } catch (const ShapeError&) { throw ShapeError("load_record", text); } catch (const DTypeError&) {
    throw DTypeError("load_record", text);
  } catch (const DeviceError&) { throw DeviceError("load_record", text); } catch (const Error&) {
    throw FormatError("load_record", text);
  }
}

}  // namespace scorch::detail
