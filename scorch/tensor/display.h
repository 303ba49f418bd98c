#pragma once
// Printing tensors as the Burn Book shows: data, shape, device, backend, kind and dtype.
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

#include "scorch/core/tensor_data.h"

namespace scorch {

/// Global print settings: above threshold elements, dims longer than 2*edge_items are elided.
struct PrintOptions {
  size_t threshold = 1000;
  size_t edge_items = 3;
  std::optional<int> precision;  ///< fixed digits after the point; shortest round-trip if empty
};

/// Replaces the global print options.
void set_print_options(const PrintOptions& options);
/// The current global print options.
PrintOptions print_options();

/// What the display says about a tensor besides its data.
struct TensorDescription {
  std::string device, backend, kind;
};

/// Writes the tensor block ("Tensor {\n  data:\n[[...]],\n  shape:  [...], ...}").
void format_tensor(std::ostream& os, const TensorData& data, const TensorDescription& description);
/// Writes only the data as nested brackets, with elision per the print options.
void format_data(std::ostream& os, const TensorData& data);
/// The data as nested brackets (format_data): `std::cout << x.to_data()` prints [[1.0, 2.0], [3.0, 4.0]].
std::ostream& operator<<(std::ostream& os, const TensorData& data);

namespace detail {
/// The shortest text that reads back as v (a double, or a float when !f64), fixed or scientific, whichever is
/// shorter (fixed on a tie), found with printf: std::to_chars's output where the standard library lacks
/// floating-point to_chars (the libc++ 13 of Debian's emscripten).
std::string shortest_by_printf(double v, bool f64);
}  // namespace detail

}  // namespace scorch
