// The raw view of a state's trace cells (model/cell_slots.hpp), which kmc
// validate's search reads instead of Instance::cells: on every state it
// reaches of a few examples of both protocols, the slots name the same cells,
// in the same order, and their raw values read as the same values.
#include "model/cell_slots.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <string>
#include <unordered_set>

#include "model/scenario.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/spec.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_params.hpp"

namespace {

// Breadth first over up to `limit` states; returns how many agreed.
template <class Inst>
std::size_t agreeing_states(const Inst& inst, std::size_t limit) {
  const auto slots = kmc::model::cell_slots(inst.layout());
  std::unordered_set<std::uint64_t> seen;
  std::deque<typename Inst::State> queue;
  for (const auto& s : inst.init_states())
    if (seen.insert(inst.fingerprint(s)).second) queue.push_back(s);
  std::vector<typename Inst::Action> actions;
  std::vector<std::int64_t> raw;
  std::size_t n = 0;
  while (!queue.empty() && n < limit) {
    const auto s = std::move(queue.front());
    queue.pop_front();
    const auto cells = inst.cells(s);
    kmc::model::raw_values(s, slots, raw);
    REQUIRE(cells.size() == slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i) {
      INFO(kmc::model::key_text(cells[i].field, cells[i].entity));
      CHECK(cells[i].field == inst.layout().fields[slots[i].field].name);
      CHECK(cells[i].entity == slots[i].entity);
      CHECK(cells[i].value == kmc::model::slot_value(inst.layout(), slots[i], raw[i]));
    }
    ++n;
    actions.clear();
    inst.actions(s, actions);
    for (const auto& a : actions) {
      auto t = inst.next(s, a);
      if (seen.insert(inst.fingerprint(t)).second) queue.push_back(std::move(t));
    }
  }
  return n;
}

kmc::model::Scenario example(const std::string& name) {
  return kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/" + name);
}

}  // namespace

TEST_CASE("cell slots read as Instance::cells on every state reached", "[model][cells]") {
  for (const char* name : {"gpu-hunter", "three-workers"}) {
    INFO(name);
    const kmc::protocols::MultiKueue mk(kmc::protocols::compile_multikueue(example(name)));
    CHECK(agreeing_states(mk, 2000) > 10);
  }
  for (const char* name : {"preemption-grace-hol", "drs-rounding"}) {
    INFO(name);
    const kmc::protocols::ka::Instance ka(kmc::protocols::ka::compile_admission(example(name)));
    CHECK(agreeing_states(ka, 2000) > 10);
  }
}
