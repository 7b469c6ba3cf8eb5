// Generic views of Hana-reflected values: flattening to (path, integer)
// leaves, used for fmt formatting, JSON and state diffs when a protocol
// offers nothing better.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kmc::model {

using Leaves = std::vector<std::pair<std::string, std::int64_t>>;

template <class T>
void flatten_into(const T& v, const std::string& path, Leaves& out);

template <class T>
void flatten_into(const std::vector<T>& v, const std::string& path, Leaves& out) {
  for (std::size_t i = 0; i < v.size(); ++i)
    flatten_into(v[i], path + "[" + std::to_string(i) + "]", out);
}

template <class T>
void flatten_into(const T& v, const std::string& path, Leaves& out) {
  if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    out.emplace_back(path, static_cast<std::int64_t>(v));
  } else {
    static_assert(boost::hana::Struct<T>::value,
                  "flatten: reflect the type with BOOST_HANA_DEFINE_STRUCT");
    boost::hana::for_each(boost::hana::accessors<T>(), [&](const auto& acc) {
      const std::string name = boost::hana::to<const char*>(boost::hana::first(acc));
      flatten_into(boost::hana::second(acc)(v), path.empty() ? name : path + "." + name, out);
    });
  }
}

template <class T>
Leaves flatten(const T& v) {
  Leaves out;
  flatten_into(v, "", out);
  return out;
}

}  // namespace kmc::model
