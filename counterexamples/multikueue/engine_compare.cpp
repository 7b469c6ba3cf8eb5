// Comparing a replayed step: the trace's cells against the engine's, for the
// cells the step touched (engine_replay.cpp drives the steps).
#include "counterexamples/multikueue/engine_compare.hpp"

#include <fmt/format.h>

#include "protocols/multikueue.hpp"

namespace kmc::cx {

using protocols::ActionKind;

// The cells a step touched: the job's manager cell and, for a step on one
// worker, that worker's; dispatch steps also touch every nomination.
std::vector<int> touched_cells(const ItfStep& s, int workers) {
  std::vector<int> out{-1};
  if (s.kind == ActionKind::Nominate || s.kind == ActionKind::NominateNextRound ||
      s.kind == ActionKind::Renominate || s.kind == ActionKind::SelectWorker ||
      s.kind == ActionKind::RetryDispatch || s.kind == ActionKind::WorkerLostTimeout ||
      s.kind == ActionKind::FinishFromRemote || s.kind == ActionKind::LostJobStopped ||
      s.kind == ActionKind::EvictedCopyDeactivated) {
    for (int w = 0; w < workers; ++w) out.push_back(w);
  } else if (s.worker >= 0 && s.job >= 0) {
    out.push_back(s.worker);
  }
  return out;
}

// The one place the granularities differ: the protocol's SelectWorker leaves
// the winner Admitted and JobStarted runs it later; the engine's controller
// creates the job on the winner in the same reconcile and it runs at once.
// An engine copy Running where the trace's selected copy is only Admitted is
// that same moment, not a disagreement.
namespace {

bool same_value(const ItfStep& s, const model::Cell& engine, const model::CellValue& trace) {
  if (trace == engine.value) return true;
  using protocols::MultiKueue;
  return s.kind == ActionKind::SelectWorker && engine.field == "remote" &&
         trace == model::CellValue{MultiKueue::cell_enum("remote", protocols::kRemoteAdmitted)} &&
         engine.value ==
             model::CellValue{MultiKueue::cell_enum("remote", protocols::kRemoteRunning)};
}

}  // namespace

std::vector<std::string> cell_differences(const ItfStep& s, const FleetView& v,
                                          const std::vector<int>& cells) {
  std::vector<std::string> out;
  if (s.job < 0) return out;
  for (int w : cells)
    for (const model::Cell& engine : v.cells(s.job, w)) {
      const model::CellValue* trace = s.cells.find(engine.field, engine.entity);
      if (trace == nullptr || same_value(s, engine, *trace)) continue;
      out.push_back(fmt::format("{}: trace {}, engine {}",
                                model::key_text(engine.field, engine.entity),
                                model::to_string(*trace), model::to_string(engine.value)));
    }
  return out;
}

std::vector<std::string> job_differences(const ItfStep& last, const FleetView& v, int j,
                                         int workers) {
  std::vector<std::string> out;
  for (int w = -1; w < workers; ++w)
    for (const model::Cell& engine : v.cells(j, w)) {
      const model::CellValue* trace = last.cells.find(engine.field, engine.entity);
      if (trace == nullptr || *trace == engine.value) continue;
      out.push_back(fmt::format("{}: trace {}, engine {}",
                                model::key_text(engine.field, engine.entity),
                                model::to_string(*trace), model::to_string(engine.value)));
    }
  return out;
}

}  // namespace kmc::cx
