// The default kube-scheduler as a protocol definition (model/spec.hpp): a
// pod is bound to any node it fits, one at a time, with no notion of the
// gang it belongs to; a Job runs once every pod is bound, then finishes and
// frees its nodes.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/instance.hpp"
#include "model/spec.hpp"
#include "model/value.hpp"
#include "protocols/kube_scheduler/params.hpp"

namespace kmc::protocols::ks {

enum Phase : std::int64_t { kWaiting, kRunning, kDone };
enum Kind : std::int16_t { kBind, kFinish };

template <class V>
struct State {
  BOOST_HANA_DEFINE_STRUCT(State, (std::vector<V>, phase),  // [job] Phase
                           (std::vector<V>, bound)          // [job][node] pods bound there
  );
  bool operator==(const State&) const = default;
};

struct Action {
  Kind kind = kBind;
  std::int16_t job = -1, node = -1;
  int id = -1;
};

// Written once over V (model/value.hpp), so bounded model checking and
// k-induction run the same rules as explicit search.
template <class V>
class Rules {
 public:
  using B = decltype(std::declval<V>() == std::declval<V>());

  Rules(const SchedulerParams& p, model::Values<V> values) : p_(p), val_(values) {}

  B enabled(const State<V>& s, const Action& a) const {
    if (a.kind == kFinish) return s.phase[a.job] == kRunning;
    B ok = s.phase[a.job] == kWaiting && bound(s, a.job) < p_.jobs[a.job].pods;
    for (int r = 0; r < p_.R(); ++r) ok = ok && free(s, a.node, r) >= p_.jobs[a.job].req[r];
    return ok;
  }
  void apply_in_place(State<V>& s, const Action& a) const {
    const int N = p_.N();
    if (a.kind == kFinish) {
      s.phase[a.job] = kDone;
      for (int n = 0; n < N; ++n) s.bound[a.job * N + n] = 0;
      return;
    }
    s.bound[a.job * N + a.node] += 1;
    using model::ite;  // unqualified below: argument-dependent lookup finds sym::ite
    s.phase[a.job] =
        ite(bound(s, a.job) == p_.jobs[a.job].pods, val_.lit(kRunning), s.phase[a.job]);
  }

  V bound(const State<V>& s, int j) const {
    V total = val_.lit(0);
    for (int n = 0; n < p_.N(); ++n) total += s.bound[j * p_.N() + n];
    return total;
  }
  V free(const State<V>& s, int n, int r) const {
    V used = val_.lit(0);
    for (int j = 0; j < p_.J(); ++j) used += s.bound[j * p_.N() + n] * p_.jobs[j].req[r];
    return val_.lit(p_.allocatable[n * p_.R() + r]) - used;
  }

 private:
  const SchedulerParams& p_;
  model::Values<V> val_;
};

struct Spec {
  using Params = SchedulerParams;
  template <class V>
  using State = ks::State<V>;
  using Action = ks::Action;
  template <class V>
  using Rules = ks::Rules<V>;

  static constexpr const char* name = "kube-scheduler";

  static Params compile(const model::Scenario& sc) { return compile_kube_scheduler(sc); }
  static model::Layout layout(const Params& p);
  static std::vector<Action> candidates(const Params& p);
  static State<std::int64_t> initial(const Params& p);
  static model::ActionRef ref(const Params&, const Action& a) {
    if (a.kind == kBind) return {a.kind, {a.job, a.node}};
    return {a.kind, {a.job}};
  }
  static std::uint64_t identity(const Params& p);
};

using Instance = model::Instance<Spec>;

}  // namespace kmc::protocols::ks
