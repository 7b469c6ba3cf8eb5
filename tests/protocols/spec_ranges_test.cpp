// The packing contract of every protocol definition: in every shipped
// example, every reachable state's every field holds values within the
// range its layout declares, and is as long as the field's axes say. Packed
// states (the Speed issue) and range-bounded symbolic states (the SMT issue)
// rely on it; a range that is too narrow shows up here, named by example,
// field, index and value.
#include <algorithm>
#include <boost/hana.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "model/fingerprint.hpp"
#include "model/packing.hpp"
#include "model/scenario.hpp"
#include "model/spec.hpp"
#include "protocols/kube_scheduler/spec.hpp"
#include "protocols/kueue_admission/spec.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_params.hpp"

using kmc::protocols::MultiKueue;

namespace {

namespace hana = boost::hana;

// Enough to cover the small examples whole and the large ones deep.
constexpr std::size_t kStatesMax = 50'000;
constexpr std::size_t kFailuresMax = 20;  // the first few say enough

// Every example folder under examples/, sorted: a new example is covered without an edit here.
std::vector<std::string> example_names() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(KMC_SOURCE_DIR "/examples"))
    if (e.is_directory() && std::filesystem::exists(e.path() / "kmc.yaml"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A flat index's per-axis indices, in row-major order.
std::vector<int> indices(const kmc::model::Layout& layout, const kmc::model::Field& f,
                         std::size_t i) {
  std::vector<int> at(f.axes.size());
  for (std::size_t k = f.axes.size(); k-- > 0;) {
    const auto extent = static_cast<std::size_t>(layout.axes[f.axes[k]].extent());
    at[k] = static_cast<int>(i % extent);
    i /= extent;
  }
  return at;
}

// "usage[5] (clusterQueue 1, flavor 0, resource 1)": the flat index and its per-axis indices.
std::string where(const kmc::model::Layout& layout, const kmc::model::Field& f, std::size_t i) {
  std::vector<std::size_t> at(f.axes.size());
  std::size_t rest = i;
  for (std::size_t k = f.axes.size(); k-- > 0;) {
    const auto extent = static_cast<std::size_t>(layout.axes[f.axes[k]].extent());
    at[k] = rest % extent;
    rest /= extent;
  }
  std::string out = f.name + "[" + std::to_string(i) + "] (";
  for (std::size_t k = 0; k < at.size(); ++k)
    out += (k ? ", " : "") + layout.axes[f.axes[k]].name + " " + std::to_string(at[k]);
  return out + ")";
}

// Appends one line per value outside its field's range and per field of the
// wrong length (the members' order is the layout's: model::Instance asserts it).
template <class State>
void check_state(const std::string& example, const kmc::model::Layout& layout,
                 const kmc::model::Packing& packing, const State& s,
                 std::vector<std::string>& failures) {
  std::size_t k = 0;
  hana::for_each(hana::accessors<State>(), [&](const auto& acc) {
    const kmc::model::Field& f = layout.fields.at(k++);
    const auto& values = hana::second(acc)(s);
    if (values.size() != layout.size(f) && failures.size() < kFailuresMax)
      failures.push_back(example + ": " + f.name + " has " + std::to_string(values.size()) +
                         " values, its axes say " + std::to_string(layout.size(f)));
    for (std::size_t i = 0; i < values.size(); ++i) {
      if ((values[i] < f.lo || values[i] > f.hi) && failures.size() < kFailuresMax)
        failures.push_back(example + ": " + where(layout, f, i) + " = " +
                           std::to_string(values[i]) + ", outside the declared [" +
                           std::to_string(f.lo) + ", " + std::to_string(f.hi) + "]");
      if (!f.range_of || failures.size() >= kFailuresMax) continue;
      // The cell's own range, which packs it (model::CellRange): lo + k * step up to hi.
      const auto r = f.range_of(indices(layout, f, i));
      if (values[i] < r.lo || values[i] > r.hi || (values[i] - r.lo) % r.step != 0)
        failures.push_back(example + ": " + where(layout, f, i) + " = " +
                           std::to_string(values[i]) + ", not in the cell's range " +
                           std::to_string(r.lo) + " + k*" + std::to_string(r.step) + " up to " +
                           std::to_string(r.hi));
    }
  });
  // Packing is exact: the words give back the same state (when the lengths are right).
  if (!failures.empty()) return;
  std::vector<std::uint64_t> words(packing.words());
  packing.pack(s, words.data());
  State back{};
  packing.unpack(words.data(), back);
  if (!(back == s) && failures.size() < kFailuresMax)
    failures.push_back(example + ": a state does not survive packing and unpacking");
}

struct Explored {
  std::size_t states = 0;
  bool whole = false;  // the frontier ran empty before the bound
};

// Breadth-first from the initial state, checking every state once, up to kStatesMax states
// (the first ones in breadth-first order).
template <class P>
Explored explore(const std::string& example, const P& p, std::vector<std::string>& failures) {
  std::unordered_set<std::uint64_t> seen;
  std::deque<typename P::State> frontier;
  for (auto& s : p.init_states())
    if (seen.insert(p.fingerprint(s)).second) frontier.push_back(std::move(s));
  std::vector<typename P::Action> actions;
  std::size_t checked = 0;
  bool dropped = false;  // a successor left unseen because the bound was reached
  while (!frontier.empty()) {
    const typename P::State s = std::move(frontier.front());
    frontier.pop_front();
    check_state(example, p.layout(), p.packing(), s, failures);
    ++checked;
    actions.clear();
    p.actions(s, actions);
    std::vector<std::uint64_t> from(p.packing().words()), whole(from.size()), part(from.size());
    p.packing().pack(s, from.data());
    for (const auto& a : actions) {
      auto t = p.next(s, a);
      // The checker repacks only the fields an action changed: it must equal the whole packing.
      p.packing().pack(t, whole.data());
      p.packing().repack(s, from.data(), t, part.data());
      if (whole != part && failures.size() < kFailuresMax)
        failures.push_back(example + ": repacking " + p.action_name(a) +
                           "'s changed fields differs from packing the whole state");
      const std::uint64_t fp = p.fingerprint(t);
      if (seen.size() >= kStatesMax) {
        dropped = dropped || !seen.contains(fp);
        continue;
      }
      if (seen.insert(fp).second) frontier.push_back(std::move(t));
    }
  }
  return {checked, !dropped};
}

// Each example through the definition of the protocol its kmc.yaml names.
Explored explore_example(const std::string& name, const kmc::model::Scenario& sc,
                         std::vector<std::string>& failures) {
  namespace ka = kmc::protocols::ka;
  namespace ks = kmc::protocols::ks;
  if (sc.fleet.protocol == "kueue-admission")
    return explore(name, ka::Instance(ka::compile_admission(sc)), failures);
  if (sc.fleet.protocol == "kube-scheduler")
    return explore(name, ks::Instance(ks::compile_kube_scheduler(sc)), failures);
  return explore(name, MultiKueue(kmc::protocols::compile_multikueue(sc)), failures);
}

kmc::model::Layout layout_of(const kmc::model::Scenario& sc) {
  namespace ka = kmc::protocols::ka;
  namespace ks = kmc::protocols::ks;
  if (sc.fleet.protocol == "kueue-admission") return ka::Spec::layout(ka::compile_admission(sc));
  if (sc.fleet.protocol == "kube-scheduler")
    return ks::Spec::layout(ks::compile_kube_scheduler(sc));
  return MultiKueue(kmc::protocols::compile_multikueue(sc)).layout();
}

}  // namespace

TEST_CASE("every reachable state of every example lies within its layout's declared ranges",
          "[protocols][spec][ranges]") {
  const auto names = example_names();
  REQUIRE(std::find(names.begin(), names.end(), "gpu-hunter") != names.end());
  for (const auto& name : names) {
    const auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/" + name);
    std::vector<std::string> failures;
    const Explored explored = explore_example(name, sc, failures);
    std::string report;
    for (const auto& f : failures) report += "\n" + f;
    INFO(name << ": " << explored.states << " states checked"
              << (explored.whole ? " (all of them)" : " (bounded)") << report);
    CHECK(explored.states > 0);
    CHECK(failures.empty());
  }
}

TEST_CASE("each enum field of the layout names every value of its range",
          "[protocols][spec][ranges]") {
  for (const auto& name : example_names()) {
    const auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/" + name);
    const auto layout = layout_of(sc);
    for (const auto& f : layout.fields) {
      INFO(name << ": " << f.name << " [" << f.lo << ", " << f.hi << "]");
      CHECK(f.lo <= f.hi);
      if (f.kind == kmc::model::FieldKind::Enum)
        CHECK(f.names.size() == static_cast<std::size_t>(f.hi - f.lo + 1));
    }
  }
}

TEST_CASE("a value outside its declared range is named by example, field, index and value",
          "[protocols][spec][ranges]") {
  const MultiKueue p(kmc::protocols::compile_multikueue(
      kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/gpu-hunter")));
  kmc::model::Layout narrowed = p.layout();
  auto usage = std::find_if(narrowed.fields.begin(), narrowed.fields.end(),
                            [](const auto& f) { return f.name == "usage"; });
  REQUIRE(usage != narrowed.fields.end());
  usage->hi = -1;  // no value fits: every usage cell is reported, the first one first
  MultiKueue::State s = p.init_states().front();
  std::vector<std::string> failures;
  check_state("gpu-hunter", narrowed, p.packing(), s, failures);
  REQUIRE_FALSE(failures.empty());
  CHECK(failures.front() ==
        "gpu-hunter: usage[0] (clusterQueue 0, flavor 0, resource 0) = 0, outside the declared [0, "
        "-1]");

  const std::size_t jobs = s.phase.size();
  s.phase.pop_back();  // a field shorter than its axes say
  failures.clear();
  check_state("gpu-hunter", p.layout(), p.packing(), s, failures);
  CHECK(failures == std::vector<std::string>{"gpu-hunter: phase has " + std::to_string(jobs - 1) +
                                             " values, its axes say " + std::to_string(jobs)});
}
