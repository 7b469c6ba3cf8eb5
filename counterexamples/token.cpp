#include "counterexamples/token.hpp"

#include <fmt/format.h>

#include <charconv>
#include <sstream>
#include <vector>

namespace kmc::cx {

std::string format_token(const Token& t) {
  std::vector<std::string> choices;
  for (auto c : t.path.choices) choices.push_back(std::to_string(c));
  return fmt::format("kmc1:{:08x}:{}:{}:{}:{}", t.scenario, t.property, t.subject, t.path.init,
                     fmt::join(choices, "."));
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!s.empty() && s.back() == sep) parts.emplace_back();
  return parts;
}

template <class T>
bool number(const std::string& s, T& out, int base = 10) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

}  // namespace

std::optional<Token> parse_token(const std::string& text, std::string& why) {
  const auto parts = split(text, ':');
  if (parts.size() != 6 || parts[0] != "kmc1") {
    why = "a replay token looks like kmc1:<scenario>:<property>:<subject>:<init>:<choices>";
    return std::nullopt;
  }
  Token t;
  if (!number(parts[1], t.scenario, 16))
    return why = "bad scenario fingerprint '" + parts[1] + "'", std::nullopt;
  t.property = parts[2];
  if (parts[3] != "-1" && !number(parts[3], t.subject))
    return why = "bad subject '" + parts[3] + "'", std::nullopt;
  if (parts[3] == "-1") t.subject = -1;
  if (!number(parts[4], t.path.init))
    return why = "bad initial state '" + parts[4] + "'", std::nullopt;
  if (!parts[5].empty())
    for (const auto& c : split(parts[5], '.')) {
      std::uint32_t v;
      if (!number(c, v)) return why = "bad choice '" + c + "'", std::nullopt;
      t.path.choices.push_back(v);
    }
  return t;
}

}  // namespace kmc::cx
