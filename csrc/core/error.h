// Errors the library raises. Each C++ type maps to one Python exception type
// (see csrc/python/module.cpp), so user mistakes arrive in Python as an
// IndexError, ValueError, TypeError or RuntimeError with a readable message,
// never as a crash.
#pragma once
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace aakaar {

struct IndexError : std::runtime_error { using std::runtime_error::runtime_error; };
struct ValueError : std::runtime_error { using std::runtime_error::runtime_error; };
struct TypeError : std::runtime_error { using std::runtime_error::runtime_error; };
struct RuntimeError : std::runtime_error { using std::runtime_error::runtime_error; };
// An op this device has no kernel for (Python NotImplementedError, as PyTorch raises for one).
struct NotImplementedError : std::runtime_error { using std::runtime_error::runtime_error; };

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  append(os, rest...);
}
}  // namespace detail

// str(a, b, c) concatenates anything streamable into a message.
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  return os.str();
}

// A shape or stride list written as [2, 3, 4].
std::string shape_str(const std::vector<int64_t>& v);

}  // namespace aakaar

// AK_CHECK(cond, ValueError, "message parts", ...) throws when cond is false.
#define AK_CHECK(cond, ErrorType, ...)                         \
  do {                                                         \
    if (!(cond)) throw ::aakaar::ErrorType(::aakaar::str(__VA_ARGS__)); \
  } while (0)
