#include "counterexamples/synth.hpp"

#include <algorithm>

namespace kmc::cx {

std::size_t grid_size(const std::vector<model::Parameter>& parameters) {
  std::size_t n = 1;
  for (const auto& p : parameters) n *= static_cast<std::size_t>(p.hi - p.lo + 1);
  return n;
}

std::vector<Point> grid(const std::vector<model::Parameter>& parameters) {
  std::vector<Point> out;
  Point at;
  for (const auto& p : parameters) at[p.name] = p.lo;
  if (parameters.empty()) return {at};
  while (true) {
    out.push_back(at);
    std::size_t d = parameters.size();
    while (d-- > 0) {  // the last parameter moves fastest
      auto& v = at[parameters[d].name];
      if (v < parameters[d].hi) {
        ++v;
        break;
      }
      v = parameters[d].lo;
      if (d == 0) return out;
    }
  }
}

std::vector<SynthBox> partition(const std::vector<model::Parameter>& parameters,
                                const std::vector<PointVerdict>& verdicts) {
  const std::size_t dims = parameters.size();
  std::vector<std::size_t> extent(dims), stride(dims);
  for (std::size_t d = 0; d < dims; ++d)
    extent[d] = static_cast<std::size_t>(parameters[d].hi - parameters[d].lo + 1);
  std::size_t s = 1;
  for (std::size_t d = dims; d-- > 0;) stride[d] = s, s *= extent[d];
  std::vector<bool> covered(verdicts.size(), false);
  const auto index = [&](const std::vector<std::size_t>& at) {
    std::size_t i = 0;
    for (std::size_t d = 0; d < dims; ++d) i += at[d] * stride[d];
    return i;
  };
  // Every point of the box lo..hi (inclusive) has verdict v and is not yet covered.
  const auto uniform = [&](std::vector<std::size_t> lo, const std::vector<std::size_t>& hi,
                           checker::Verdict v) {
    std::vector<std::size_t> at = lo;
    while (true) {
      const std::size_t i = index(at);
      if (covered[i] || verdicts[i].verdict != v) return false;
      std::size_t d = dims;
      while (d-- > 0) {
        if (at[d] < hi[d]) {
          ++at[d];
          break;
        }
        at[d] = lo[d];
        if (d == 0) return true;
      }
      if (dims == 0) return true;
    }
  };
  std::vector<SynthBox> boxes;
  for (std::size_t start = 0; start < verdicts.size(); ++start) {
    if (covered[start]) continue;
    std::vector<std::size_t> lo(dims), hi(dims);
    for (std::size_t d = 0, rest = start; d < dims; ++d)
      lo[d] = rest / stride[d], rest %= stride[d];
    hi = lo;
    const checker::Verdict v = verdicts[start].verdict;
    for (std::size_t d = 0; d < dims; ++d)
      while (hi[d] + 1 < extent[d]) {
        auto slab_lo = lo, slab_hi = hi;
        slab_lo[d] = slab_hi[d] = hi[d] + 1;
        if (!uniform(slab_lo, slab_hi, v)) break;
        ++hi[d];
      }
    SynthBox box;
    box.verdict = v;
    std::vector<std::size_t> at = lo;
    // Mark covered, and note which engines decided the box's points.
    while (true) {
      const std::size_t i = index(at);
      covered[i] = true;
      if (std::find(box.engines.begin(), box.engines.end(), verdicts[i].engine) ==
          box.engines.end())
        box.engines.push_back(verdicts[i].engine);
      std::size_t d = dims;
      bool done = dims == 0;
      while (d-- > 0) {
        if (at[d] < hi[d]) {
          ++at[d];
          break;
        }
        at[d] = lo[d];
        if (d == 0) done = true;
      }
      if (done) break;
    }
    for (std::size_t d = 0; d < dims; ++d) {
      box.ranges[parameters[d].name] = {parameters[d].lo + static_cast<std::int64_t>(lo[d]),
                                        parameters[d].lo + static_cast<std::int64_t>(hi[d])};
      box.witness[parameters[d].name] = parameters[d].lo + static_cast<std::int64_t>(lo[d]);
    }
    box.at_witness = verdicts[start];
    boxes.push_back(std::move(box));
  }
  return boxes;
}

SynthResult synthesize(const std::vector<model::Parameter>& parameters,
                       const std::vector<std::string>& properties,
                       const std::function<PointVerdict(const Point&, const std::string&)>& check) {
  SynthResult r;
  r.parameters = parameters;
  const auto points = grid(parameters);
  r.points = points.size();
  for (const auto& name : properties) {
    std::vector<PointVerdict> verdicts;
    for (const auto& point : points) verdicts.push_back(check(point, name));
    r.properties.push_back({name, partition(parameters, verdicts)});
  }
  return r;
}

}  // namespace kmc::cx
