#pragma once
/// \file field_json.hpp
/// The library's public structs in JSON, field by field from their tables (mlfma2d/fields.hpp):
/// the run report and the solve's report take the names of the structs' fields from there.
#include <cmath>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/fields.hpp"

namespace mlfma2d::app {

template <class T>
nlohmann::json field_json(const T& value);

/// \brief Every field of `value` as one object, keyed by the table's names.
template <class S>
nlohmann::json fields_json(const S& value) {
  nlohmann::json j = nlohmann::json::object();
  for_each_field(value, [&](const auto& field, const auto& v) { j[field.name] = field_json(v); });
  return j;
}

/// \brief One field's value: a struct as its object, a list as an array, a number that is not
/// finite (a figure that does not exist, NaN) as null.
template <class T>
nlohmann::json field_json(const T& value) {
  if constexpr (has_fields_v<T>) {
    return fields_json(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
  } else if constexpr (is_list_v<T>) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& e : value) a.push_back(field_json(e));
    return a;
  } else {
    return nlohmann::json(value);
  }
}

}  // namespace mlfma2d::app
