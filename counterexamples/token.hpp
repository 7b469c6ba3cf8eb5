// Replay tokens: every violation ends with one, and `kmc check DIR --replay
// TOKEN` re-runs exactly that path (RapidCheck's habit). A token names the
// scenario it came from (a fingerprint of the initial state and the action
// alphabet), the property, the subject for stuck properties, and the path.
//   kmc1:<scenario hex>:<property>:<subject>:<init>:<choice>.<choice>...
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checker/result.hpp"

namespace kmc::cx {

struct Token {
  std::uint32_t scenario = 0;
  std::string property;
  int subject = -1;
  checker::Path path;
};

std::string format_token(const Token& t);
// nullopt and a reason for anything malformed.
std::optional<Token> parse_token(const std::string& text, std::string& why);

}  // namespace kmc::cx
