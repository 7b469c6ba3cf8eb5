#include <fmt/format.h>

#include "cli/commands.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const model::InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 3;
  }
}

}  // namespace kmc::cli
