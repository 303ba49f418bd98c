#pragma once
// Any op's IR record held by value: OpRecord. A tagged holder rather than a std::variant: a variant with one
// alternative per op (several hundred) made every file that copies or visits one take minutes to build.
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/core/scalar.h"
#include "scorch/gen/ir_records.h"

namespace scorch::ir {

/// Any op's record (a records:: struct), held by value: a copy copies its fields. index() is its OpId as a number.
/// A moved-from record may only be assigned to or destroyed (anything else throws ValueError).
class OpRecord {
 public:
  /// The record of OpId 0 with default fields.
  OpRecord() : OpRecord(RecordOf<0>{}) {}
  /// Holds record, of any op (moved or copied once, into the holder).
  template <class R>
  requires requires { std::remove_cvref_t<R>::id; }
  OpRecord(R&& record) : holder_(std::make_unique<Model<std::remove_cvref_t<R>>>(std::forward<R>(record))) {}
  OpRecord(const OpRecord& other) : holder_(other.holder().clone()) {}
  OpRecord(OpRecord&&) noexcept = default;
  OpRecord& operator=(const OpRecord& other) {
    if (this != &other) holder_ = other.holder().clone();
    return *this;
  }
  OpRecord& operator=(OpRecord&&) noexcept = default;
  ~OpRecord() = default;

  /// The op this is a record of.
  OpId op() const { return holder().op(); }
  /// The op's number (OpId as size_t): `RecordOf<index()>` is the record's type.
  size_t index() const { return static_cast<size_t>(op()); }
  /// The record as R, or nullptr when it is another op's.
  template <class R> R* get_if() { return op() == R::id ? &static_cast<Model<R>&>(holder()).value : nullptr; }
  template <class R> const R* get_if() const {
    return op() == R::id ? &static_cast<const Model<R>&>(holder()).value : nullptr;
  }
  /// The record's Scalar fields, in the op's parameter order (the constants a generated kernel takes).
  std::vector<Scalar> scalars() const { return holder().scalars(); }
  /// The record's address, whatever its type (the MessagePack coder reaches its fields by offset).
  void* data() { return holder().data(); }
  const void* data() const { return holder().data(); }

 private:
  struct Holder {
    virtual ~Holder() = default;
    virtual std::unique_ptr<Holder> clone() const = 0;
    virtual OpId op() const = 0;
    virtual void* data() = 0;
    virtual std::vector<Scalar> scalars() const = 0;
  };
  template <class R> struct Model final : Holder {
    R value;
    explicit Model(R&& v) : value(std::move(v)) {}
    explicit Model(const R& v) : value(v) {}
    std::unique_ptr<Holder> clone() const override { return std::make_unique<Model>(value); }
    OpId op() const override { return R::id; }
    void* data() override { return &value; }
    std::vector<Scalar> scalars() const override {
      std::vector<Scalar> out;
      value.visit([&](const char*, const auto& field) {
        if constexpr (std::is_same_v<std::decay_t<decltype(field)>, Scalar>) out.push_back(field);
      });
      return out;
    }
  };
  /// The held record; a moved-from record has none (ValueError).
  Holder& holder() const {
    if (!holder_) throw ValueError("ir::OpRecord", "a moved-from record holds no op");
    return *holder_;
  }
  std::unique_ptr<Holder> holder_;
};

/// record's fields as R; throws ValueError when it is another op's record.
template <class R> const R& get(const OpRecord& record) {
  if (const R* r = record.template get_if<R>()) return *r;
  throw ValueError("ir::get", "the record is " + std::string(kOpNames[record.index()]) + "'s, not " +
                                  std::string(kOpNames[static_cast<size_t>(R::id)]) + "'s");
}
template <class R> R& get(OpRecord& record) { return const_cast<R&>(get<R>(std::as_const(record))); }

}  // namespace scorch::ir
