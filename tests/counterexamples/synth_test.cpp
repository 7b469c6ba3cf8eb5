// kmc synth's grid and boxes (counterexamples/synth.hpp): the boxes
// partition the grid, each of one verdict, grown along each parameter.
#include "counterexamples/synth.hpp"

#include <catch2/catch.hpp>

using kmc::checker::Verdict;
using kmc::cx::PointVerdict;

namespace {

kmc::model::Parameter param(std::string name, std::int64_t lo, std::int64_t hi) {
  kmc::model::Parameter p;
  p.name = std::move(name);
  p.lo = lo;
  p.hi = hi;
  return p;
}

PointVerdict verdict(Verdict v) {
  PointVerdict p;
  p.verdict = v;
  p.engine = "explicit";
  return p;
}

}  // namespace

TEST_CASE("the grid runs the last parameter fastest", "[counterexamples][synth]") {
  const auto g = kmc::cx::grid({param("a", 0, 1), param("b", 5, 7)});
  REQUIRE(g.size() == 6);
  CHECK(g[0] == kmc::cx::Point{{"a", 0}, {"b", 5}});
  CHECK(g[2] == kmc::cx::Point{{"a", 0}, {"b", 7}});
  CHECK(g[3] == kmc::cx::Point{{"a", 1}, {"b", 5}});
  CHECK(kmc::cx::grid_size({param("a", 0, 16), param("b", 0, 16)}) == 289);
}

TEST_CASE("one parameter: maximal intervals of one verdict", "[counterexamples][synth]") {
  std::vector<PointVerdict> v;
  for (int x = 0; x <= 16; ++x) v.push_back(verdict(x < 8 ? Verdict::Violated : Verdict::Verified));
  const auto boxes = kmc::cx::partition({param("gpu_a", 0, 16)}, v);
  REQUIRE(boxes.size() == 2);
  CHECK(boxes[0].verdict == Verdict::Violated);
  CHECK(boxes[0].ranges.at("gpu_a") == std::pair<std::int64_t, std::int64_t>{0, 7});
  CHECK(boxes[0].witness.at("gpu_a") == 0);
  CHECK(boxes[1].ranges.at("gpu_a") == std::pair<std::int64_t, std::int64_t>{8, 16});
}

TEST_CASE("two parameters: boxes partition the grid, each uniform", "[counterexamples][synth]") {
  // Fails where a < 3 and b >= 2: an L-shaped holding region.
  const std::vector<kmc::model::Parameter> ps{param("a", 0, 5), param("b", 0, 4)};
  std::vector<PointVerdict> v;
  for (const auto& p : kmc::cx::grid(ps))
    v.push_back(verdict(p.at("a") < 3 && p.at("b") >= 2 ? Verdict::Violated : Verdict::Verified));
  const auto boxes = kmc::cx::partition(ps, v);
  std::map<std::pair<std::int64_t, std::int64_t>, int> covered;
  for (const auto& b : boxes)
    for (auto a = b.ranges.at("a").first; a <= b.ranges.at("a").second; ++a)
      for (auto bb = b.ranges.at("b").first; bb <= b.ranges.at("b").second; ++bb) {
        ++covered[{a, bb}];
        CHECK((a < 3 && bb >= 2) == (b.verdict == Verdict::Violated));
      }
  CHECK(covered.size() == 30);
  for (const auto& [point, times] : covered) CHECK(times == 1);
  // The failing region is one box: a in [0, 2], b in [2, 4].
  int failing = 0;
  for (const auto& b : boxes) failing += b.verdict == Verdict::Violated;
  CHECK(failing == 1);
}
