// Fuzzes the user properties' expression language (model/expression.hpp):
// any text either compiles against a small layout or throws InputError
// naming the field (exit 3 in kmc), never crashes or hangs; what compiles
// evaluates on a state without reading outside it.
#include <boost/hana.hpp>
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_support.hpp"
#include "model/diagnostics.hpp"
#include "model/expression.hpp"
#include "model/expression_eval.hpp"

namespace {

struct State {
  BOOST_HANA_DEFINE_STRUCT(State, (std::vector<std::int64_t>, phase),
                           (std::vector<std::int64_t>, remote),
                           (std::vector<std::int64_t>, cluster),
                           (std::vector<std::int64_t>, usage));
};

// Two jobs, two workers, one ClusterQueue with two flavors (a dependent axis), as kmc's
// protocols lay out theirs.
kmc::model::Layout layout() {
  using kmc::model::FieldKind;
  kmc::model::Layout l;
  kmc::model::Axis job, worker, cq, flavor;
  job.name = "job", job.labels = {"team/a", "team/b"};
  worker.name = "worker", worker.labels = {"east", "west"};
  cq.name = "clusterQueue", cq.labels = {"gpu-cq"};
  flavor.name = "flavor", flavor.parent = 2, flavor.labels_of = {{"h100", "a100"}};
  l.axes = {job, worker, cq, flavor};
  const auto field = [](const char* name, std::vector<int> axes, FieldKind kind, int lo, int hi) {
    kmc::model::Field f;
    f.name = name, f.axes = std::move(axes), f.kind = kind, f.lo = lo, f.hi = hi;
    return f;
  };
  auto phase = field("phase", {0}, FieldKind::Enum, 0, 2);
  phase.names = {"Pending", "Admitted", "Finished"};
  auto cluster = field("cluster", {0}, FieldKind::Index, -1, 1);
  cluster.index_axis = 1;
  auto usage = field("usage", {2, 3}, FieldKind::Int, 0, 16);
  usage.index_parent = [](const std::vector<int>& at) { return at[0]; };
  l.fields = {phase, field("remote", {0, 1}, FieldKind::Int, 0, 3), cluster, usage};
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kmc::model::Layout l = layout();
  const std::string text = kmc::fuzz::as_text(data, size);
  kmc::model::Compiled c;
  try {
    c = kmc::model::compile_expression(text, {{"kmc.yaml", 1}, 1}, "properties.p", l);
  } catch (const kmc::model::InputError&) {
    return 0;
  }
  const State s{{1, 0}, {0, 2, 0, 0}, {1, -1}, {8, 0}};
  kmc::model::ExprEvaluator<std::int64_t> ev(l, s, {}, c.slots);
  if (c.boolean)
    (void)ev.truth(*c.root);
  else
    (void)ev.number(*c.root);
  return 0;
}
