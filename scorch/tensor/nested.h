#pragma once
// Nested initializer lists ({{1, 2}, {3, 4}}) as tensor literals of a static rank.
#include <cstddef>
#include <initializer_list>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/core/shape.h"

namespace scorch {

/// std::initializer_list nested D times around E.
template <class E, size_t D> struct Nested { using type = std::initializer_list<typename Nested<E, D - 1>::type>; };
template <class E> struct Nested<E, 1> { using type = std::initializer_list<E>; };
template <class E, size_t D> using nested_t = typename Nested<E, D>::type;

namespace detail {
template <class E, class L> void flatten_into(const L& list, size_t depth, Shape& shape, std::vector<E>& out) {
  if (shape.rank() <= depth) shape.push_back(list.size());
  else if (shape[depth] != list.size())
    throw ShapeError("from_data", "ragged literal: dim " + std::to_string(depth) + " has lengths " +
                                      std::to_string(shape[depth]) + " and " + std::to_string(list.size()));
  for (const auto& item : list) {
    if constexpr (std::is_convertible_v<decltype(item), E>) out.push_back(static_cast<E>(item));
    else flatten_into<E>(item, depth + 1, shape, out);
  }
}
}  // namespace detail

/// The values of a nested literal in row-major order and its shape (ragged lists throw ShapeError).
template <class E, size_t D> std::pair<std::vector<E>, Shape> flatten_nested(const nested_t<E, D>& list) {
  std::vector<E> values;
  Shape shape;
  detail::flatten_into<E>(list, 0, shape, values);
  while (shape.rank() < D) shape.push_back(0);  // empty inner lists
  return {std::move(values), shape};
}

}  // namespace scorch
