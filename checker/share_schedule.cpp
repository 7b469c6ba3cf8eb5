#include "checker/share_schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace kmc::checker {

ShareSchedule guided_schedule(std::size_t positions, std::size_t chunk, std::size_t workers,
                              std::size_t min_share) {
  if (chunk == 0 || workers == 0 || min_share == 0)
    throw std::invalid_argument("guided_schedule: chunk, workers and min_share must be positive");
  ShareSchedule s;
  for (std::size_t lo = 0; lo < positions; lo += chunk) {
    s.first.push_back(static_cast<std::uint32_t>(s.begin.size()));
    const std::size_t end = std::min(positions, lo + chunk);
    for (std::size_t pos = lo; pos < end;) {
      s.begin.push_back(static_cast<std::uint32_t>(pos));
      const std::size_t size =
          workers == 1 ? chunk : std::max(min_share, (positions - pos) / (2 * workers));
      pos = std::min(end, pos + size);
    }
  }
  s.first.push_back(static_cast<std::uint32_t>(s.begin.size()));
  s.begin.push_back(static_cast<std::uint32_t>(positions));
  return s;
}

}  // namespace kmc::checker
