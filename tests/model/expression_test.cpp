// The user properties' expression language (model/expression.hpp): what it
// means on states, and the errors it gives, each at its line and column.
#include "model/expression.hpp"

#include <boost/hana.hpp>
#include <catch2/catch.hpp>

#include "model/diagnostics.hpp"
#include "model/expression_eval.hpp"

namespace {

using kmc::model::Axis;
using kmc::model::Field;
using kmc::model::FieldKind;
using kmc::model::Layout;

struct State {
  BOOST_HANA_DEFINE_STRUCT(State, (std::vector<std::int64_t>, phase),
                           (std::vector<std::int64_t>, remote),
                           (std::vector<std::int64_t>, cluster),
                           (std::vector<std::int64_t>, usage));
};

// Two jobs, two workers, one ClusterQueue with two flavors (a dependent axis).
Axis axis(std::string name, std::vector<std::string> labels) {
  Axis a;
  a.name = std::move(name);
  a.labels = std::move(labels);
  return a;
}

Field field(std::string name, std::vector<int> axes, FieldKind kind, std::int64_t lo,
            std::int64_t hi) {
  Field f;
  f.name = std::move(name);
  f.axes = std::move(axes);
  f.kind = kind;
  f.lo = lo;
  f.hi = hi;
  return f;
}

Layout layout() {
  Layout l;
  Axis flavor = axis("flavor", {});
  flavor.parent = 2;
  flavor.labels_of = {{"h100", "a100"}};
  l.axes = {axis("job", {"team/a", "team/b"}), axis("worker", {"east", "west"}),
            axis("clusterQueue", {"gpu-cq"}), flavor};
  Field phase = field("phase", {0}, FieldKind::Enum, 0, 2);
  phase.names = {"Pending", "Admitted", "Finished"};
  Field cluster = field("cluster", {0}, FieldKind::Index, -1, 1);
  cluster.index_axis = 1;
  l.fields = {phase, field("remote", {0, 1}, FieldKind::Int, 0, 3), cluster,
              field("usage", {2, 3}, FieldKind::Int, 0, 16)};
  return l;
}

bool holds(const std::string& text, const State& s) {
  const Layout l = layout();
  const auto c = kmc::model::compile_expression(text, {{"kmc.yaml", 7}, 12}, "properties.p", l);
  REQUIRE(c.boolean);
  kmc::model::ExprEvaluator<std::int64_t> ev(l, s, {}, c.slots);
  return ev.truth(*c.root);
}

std::string error_of(const std::string& text) {
  const Layout l = layout();
  try {
    kmc::model::compile_expression(text, {{"kmc.yaml", 7}, 12}, "properties.p", l);
  } catch (const kmc::model::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("expressions mean what they say on a state", "[model][expression]") {
  // team/a admitted and running (remote 2) on west; team/b pending; h100 usage 8.
  const State s{{1, 0}, {0, 2, 0, 0}, {1, -1}, {8, 0}};
  CHECK(holds("phase[\"team/a\"] == Admitted", s));
  CHECK_FALSE(holds("phase[team/b] == Admitted", s));
  CHECK(holds("all j: job. phase[j] == Admitted => cluster[j] != none", s));
  CHECK(holds("all j: job. all w: worker. remote[j, w] == 2 => cluster[j] == w", s));
  CHECK_FALSE(holds("all j: job. cluster[j] == east", s));
  CHECK(holds("some j: job. cluster[j] == west", s));
  CHECK(holds("no j: job. phase[j] == Finished", s));
  CHECK(holds("(count j: job. phase[j] in {Admitted, Finished}) == 1", s));
  CHECK(holds("(sum w: worker. remote[\"team/a\", w]) + 1 == 3", s));
  CHECK(holds("usage[gpu-cq, h100] <= 8 && usage[gpu-cq, a100] == 0", s));
  CHECK(holds("not (usage[gpu-cq, h100] > 8) or 1 == 2", s));
}

TEST_CASE("bad expressions name their line, column and what is wrong", "[model][expression]") {
  // The text starts at column 12 of line 7: an error at offset k is at column 12 + k.
  CHECK(error_of("phase[j] == Admitted") ==
        "kmc.yaml:7: properties.p: column 18: no job 'j' in this scenario; there are: team/a, "
        "team/b (in \"phase[j] == Admitted\")");
  CHECK(
      error_of("all j: job. phase[j] == Admited")
          .find(
              "column 36: phase is never 'Admited'; its values are Pending, Admitted, Finished") !=
      std::string::npos);
  CHECK(error_of("all j: job. phse[j] == 1").find("column 24: no field 'phse'") !=
        std::string::npos);
  CHECK(error_of("all j: job. remote[j] == 1")
            .find("remote takes 2 arguments (job, worker), found ']'") != std::string::npos);
  CHECK(error_of("all f: flavor. 1 == 1").find("'flavor' depends on 'clusterQueue'") !=
        std::string::npos);
  CHECK(error_of("(1 == 1").find("expected ')', found 'end of expression'") != std::string::npos);
  CHECK(error_of("usage[gpu-cq, b200] == 0").find("no flavor 'b200'") != std::string::npos);
  CHECK(error_of("all j: job. cluster[j] == north").find("no worker 'north'") != std::string::npos);
  CHECK(error_of(std::string(5000, '(') + "1 == 1").find("nested more than 200 deep") !=
        std::string::npos);
  CHECK(error_of(std::string(5000, '!') + "(1 == 1)").find("nested more than 200 deep") !=
        std::string::npos);
  CHECK(error_of("so").find("column 12: 'so' is not a field, a bound variable or a number") !=
        std::string::npos);  // fuzz/regressions/expression/bare-name
  CHECK(error_of("some j: job. wz in {1, 3}").find("'wz' is a name: compare it with a cell") !=
        std::string::npos);  // fuzz/regressions/expression/name-in-set
  CHECK(error_of("1 == 1 ; 2").find("unexpected character ';'") != std::string::npos);
  CHECK(error_of("all j: worker. phase[j] == Pending")
            .find("'j' ranges over worker, but phase's argument 1 is a job") != std::string::npos);
}

TEST_CASE("a number is not a condition", "[model][expression]") {
  const Layout l = layout();
  const auto c = kmc::model::compile_expression("count j: job. phase[j] == Admitted",
                                                {{"kmc.yaml", 1}, 1}, "p", l);
  CHECK_FALSE(c.boolean);
}
