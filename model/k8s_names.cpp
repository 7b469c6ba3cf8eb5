#include "model/k8s_names.hpp"

namespace kmc::model {

namespace {

bool ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// qualifiedNameFmt's name part, non-empty.
bool is_name_part(std::string_view s) {
  if (s.empty() || s.size() > 63 || !ascii_alnum(s.front()) || !ascii_alnum(s.back())) return false;
  for (char c : s)
    if (!ascii_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

}  // namespace

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  char previous = '.';
  for (char c : s) {
    if (c == '.' && !alnum(previous)) return false;
    if (c == '-' && previous == '.') return false;
    if (!alnum(c) && c != '-' && c != '.') return false;
    previous = c;
  }
  return alnum(previous);
}

bool is_qualified_name(std::string_view s) {
  const auto slash = s.find('/');
  if (slash == std::string_view::npos) return is_name_part(s);
  const std::string_view prefix = s.substr(0, slash), name = s.substr(slash + 1);
  return is_dns1123_subdomain(prefix) && is_name_part(name);
}

bool is_label_value(std::string_view s) {
  return s.empty() || is_name_part(s);
}

}  // namespace kmc::model
