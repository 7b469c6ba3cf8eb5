// Option values, read the same way by every subcommand. Numbers are taken as
// text and converted here, not by CLI11, so that a bad value is one kind of
// error everywhere: `error: <command line>: --OPTION: what it must be (got
// 'TEXT')`, exit 3, and never a silent fallback, a wrap-around or a
// truncation ("1e3" is not a count; "-1" is not a seed; "nan" is no time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace kmc::cli {

// A whole decimal number within min..max.
std::int64_t integer_option(const std::string& option, const std::string& text, std::int64_t min,
                            std::int64_t max = std::numeric_limits<std::int64_t>::max());
std::optional<std::int64_t> integer_option(
    const std::string& option, const std::optional<std::string>& text, std::int64_t min,
    std::int64_t max = std::numeric_limits<std::int64_t>::max());
// A number of seconds: finite, 0 or more, under a billion.
double seconds_option(const std::string& option, const std::string& text);
std::optional<double> seconds_option(const std::string& option,
                                     const std::optional<std::string>& text);
// A size in bytes as checker::parse_size reads it ("8G", "512M", "2GiB").
std::optional<std::size_t> memory_option(const std::string& option,
                                         const std::optional<std::string>& text);
// One of `choices`.
void choice_option(const std::string& option, const std::string& text,
                   const std::vector<std::string>& choices);

}  // namespace kmc::cli
