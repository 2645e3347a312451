// Result<T>: the value of a fallible operation or the error that stopped it (STYLE.md rule 7).
//
// Library code that can meet bad input returns Result<T> (or Status for no value). The message is one line
// that quotes the offending input; each layer that passes it up may prefix its own context with
// with_context(), e.g. "trace 'run.json': byte 18273: expected ','". The CLI prints it and exits 2.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "core/check.h"

namespace perfhound::core {

struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    PH_CHECK(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    PH_CHECK(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    PH_CHECK(ok());
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    PH_CHECK(!ok());
    return std::get<1>(state_);
  }

  // Prefixes the error message with "context: "; a value passes through unchanged.
  Result with_context(const std::string& context) && {
    if (!ok()) std::get<1>(state_).message = context + ": " + std::get<1>(state_).message;
    return std::move(*this);
  }

 private:
  std::variant<T, Error> state_;
};

// Success or an error, for operations with no value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit by design
  static Status success() { return {}; }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    PH_CHECK(failed_);
    return error_;
  }
  Status with_context(const std::string& context) && {
    if (failed_) error_.message = context + ": " + error_.message;
    return std::move(*this);
  }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace perfhound::core

// Propagation helpers: evaluate a Result/Status expression and return its error from the enclosing function.
#define PH_CONCAT_INNER(a, b) a##b
#define PH_CONCAT(a, b) PH_CONCAT_INNER(a, b)

// PH_TRY(status_expr);  returns the error if the Status failed.
#define PH_TRY(expr)                                \
  do {                                              \
    auto ph_try_status_ = (expr);                   \
    if (!ph_try_status_.ok()) return ph_try_status_.error(); \
  } while (0)

// PH_ASSIGN_OR_RETURN(auto x, result_expr);  binds the value or returns the error.
#define PH_ASSIGN_OR_RETURN(lhs, expr) PH_ASSIGN_OR_RETURN_IMPL(PH_CONCAT(ph_result_, __LINE__), lhs, expr)
#define PH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.error();             \
  lhs = std::move(tmp).value()
