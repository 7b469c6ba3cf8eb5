// `kmc synth` (the SMT issue): for each property, the region of a
// scenario's parameters where it holds and where it fails, as boxes, each
// failing box with a witness. Each point of the parameter grid is one
// check (by the engine the request names); the boxes partition the grid,
// grown greedily along each parameter in turn over points of one verdict.
// The grid is what it decides: no claim is made between two points.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "checker/result.hpp"
#include "model/parameters.hpp"

namespace kmc::cx {

using Point = std::map<std::string, std::int64_t>;

// What one check at one point says about one property.
struct PointVerdict {
  checker::Verdict verdict = checker::Verdict::Incomplete;
  std::string token;  // a violation's replay token, for the scenario at this point
  std::size_t steps = 0;
  std::string engine;  // which engine decided it ("explicit", "bmc", "induction")
};

struct SynthBox {
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> ranges;  // per parameter, [lo, hi]
  checker::Verdict verdict = checker::Verdict::Incomplete;
  Point witness;  // failing boxes: the point whose violation stands for the box
  PointVerdict at_witness;
  std::vector<std::string> engines;  // which engines decided its points
};

struct SynthProperty {
  std::string name;
  std::vector<SynthBox> boxes;  // a partition of the grid
};

struct SynthResult {
  std::vector<model::Parameter> parameters;
  std::vector<SynthProperty> properties;
  std::size_t points = 0;
};

// The grid's points, in lexicographic order of the parameters as given.
std::vector<Point> grid(const std::vector<model::Parameter>& parameters);
std::size_t grid_size(const std::vector<model::Parameter>& parameters);

// Checks every point (check(point, property)) and partitions the grid per property.
SynthResult synthesize(const std::vector<model::Parameter>& parameters,
                       const std::vector<std::string>& properties,
                       const std::function<PointVerdict(const Point&, const std::string&)>& check);

// Boxes of equal verdicts over a grid whose points are `verdicts` in grid() order.
std::vector<SynthBox> partition(const std::vector<model::Parameter>& parameters,
                                const std::vector<PointVerdict>& verdicts);

}  // namespace kmc::cx
