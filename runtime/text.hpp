#pragma once
/// \file text.hpp
/// Text helpers the library's reports and the mlfma2d program share.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mlfma2d {

/// \brief printf into a std::string (any length).
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// \brief The items with `separator` between them: join({"a", "b"}, ", ") == "a, b".
std::string join(const std::vector<std::string>& items, const std::string& separator);

/// \brief The items between the separators, empty ones included (join's inverse):
/// split("a,,b", ',') == {"a", "", "b"}; split("", ',') == {}.
std::vector<std::string> split(const std::string& text, char separator);

/// \brief `text` as an error message may quote it: the first `max` characters, then "..." and the
/// length when it is longer (a 10 MB CSV cell must not become a 10 MB message).
std::string excerpt(std::string_view text, std::size_t max = 60);

}  // namespace mlfma2d
