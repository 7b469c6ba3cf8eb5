// Fuzzes the Kubernetes quantity parser (model/quantity.hpp): any text either
// parses or throws QuantityError (the loaders turn it into an InputError
// naming the field), and what parses keeps the properties the header states.
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_support.hpp"
#include "model/quantity.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "fuzz_quantity: %s for input '%s'\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using kmc::model::Quantity;
  const std::string text = kmc::fuzz::as_text(data, size);
  Quantity q;
  try {
    q = kmc::model::parse_quantity(text);
  } catch (const kmc::model::QuantityError&) {
    return 0;
  }
  // to_string is the canonical text: it parses back to exactly the same value,
  // and is its own canonical form.
  const std::string canonical = q.to_string();
  Quantity back;
  try {
    back = kmc::model::parse_quantity(canonical);
  } catch (const kmc::model::QuantityError&) {
    fail("to_string() does not parse back", text);
  }
  if (back != q) fail("to_string() parses back to another value", text);
  if (back.to_string() != canonical) fail("to_string() is not canonical", text);
  // Kueue's views: cpu is the exact milli value; other resources round up
  // (toward +infinity) to base units, so they never undercount.
  if (q.kueue_value("cpu") != q.milli) fail("cpu view is not the milli value", text);
  const std::int64_t units = q.kueue_value("memory");
  if (units < q.milli / 1000 || units > q.milli / 1000 + 1)
    fail("base-unit view is not milli rounded up", text);
  return 0;
}
