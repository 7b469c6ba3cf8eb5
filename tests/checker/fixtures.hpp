// Toy protocols for testing checker/ without Kueue (Stateright's habit):
// small enough that every count is derivable by hand.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "model/fingerprint.hpp"
#include "model/protocol.hpp"

namespace fixtures {

using kmc::model::Property;
using kmc::model::PropertyKind;

// k counters, each 0..limit, any counter may be incremented; a "bad" sum
// makes the Always property fail. States: (limit+1)^k.
struct Counters {
  struct State {
    BOOST_HANA_DEFINE_STRUCT(State, (std::vector<std::int64_t>, c));
    bool operator==(const State&) const = default;
  };
  struct Action {
    int which;
  };
  int k = 2, limit = 3;
  std::int64_t bad_sum = -1;  // -1: never bad
  std::int64_t top = -1;      // the Sometimes target per counter; -1: limit

  std::vector<State> init_states() const { return {State{std::vector<std::int64_t>(k, 0)}}; }
  void actions(const State& s, std::vector<Action>& out) const {
    for (int i = 0; i < k; ++i)
      if (s.c[i] < limit) out.push_back({i});
  }
  State next(State s, const Action& a) const {
    ++s.c[a.which];
    return s;
  }
  std::string action_name(const Action& a) const { return "Inc(" + std::to_string(a.which) + ")"; }
  std::uint64_t fingerprint(const State& s) const { return kmc::model::fingerprint(s); }
  std::vector<Property<State>> properties() const {
    const auto bad = bad_sum;
    auto sum = Property<State>::always("sum-is-not-bad", "the counters never add up to the bad sum",
                                       {.holds = [bad](const State& s) {
                                         std::int64_t t = 0;
                                         for (auto x : s.c) t += x;
                                         return t != bad;
                                       }});
    auto at_limit =
        Property<State>::sometimes("all-at-limit", "every counter reaches its limit",
                                   {.holds = [lim = top < 0 ? limit : top](const State& s) {
                                     for (auto x : s.c)
                                       if (x != lim) return false;
                                     return true;
                                   }});
    return {sum, at_limit};
  }
};

// A job that may be sent to a "trap" region that never answers, or to a
// good one where it runs; a ticker keeps changing unrelated state forever
// (so a plain deadlock check would miss the trap: something is always enabled).
struct Trap {
  struct State {
    BOOST_HANA_DEFINE_STRUCT(State, (std::int64_t, job), (std::int64_t, tick));
    bool operator==(const State&) const = default;
  };
  enum Kind { ToTrap, ToGood, Run, Escape, Tick };
  struct Action {
    Kind kind;
  };
  // job: 0 pending, 1 in trap, 2 in good, 3 running
  bool trap_has_escape = false;

  std::vector<State> init_states() const { return {State{0, 0}}; }
  void actions(const State& s, std::vector<Action>& out) const {
    if (s.job == 0) out.push_back({ToTrap}), out.push_back({ToGood});
    if (s.job == 2) out.push_back({Run});
    if (s.job == 1 && trap_has_escape) out.push_back({Escape});
    out.push_back({Tick});
  }
  State next(State s, const Action& a) const {
    switch (a.kind) {
      case ToTrap:
        s.job = 1;
        break;
      case ToGood:
        s.job = 2;
        break;
      case Run:
        s.job = 3;
        break;
      case Escape:
        s.job = 0;
        break;
      case Tick:
        s.tick = (s.tick + 1) % 3;
        break;
    }
    return s;
  }
  std::string action_name(const Action& a) const {
    static const char* names[] = {"ToTrap", "ToGood", "Run", "Escape", "Tick"};
    return names[a.kind];
  }
  std::uint64_t fingerprint(const State& s) const { return kmc::model::fingerprint(s); }
  std::vector<Property<State>> properties() const {
    auto stuck = Property<State>::stuck_free(
        "job-not-stuck", "the job never freezes before running",
        {.subjects = 1,
         .key = [](const State& s, int) { return static_cast<std::uint64_t>(s.job); },
         .should_move = [](const State& s, int) { return s.job != 3; }},
        [](const State& s, int) { return "job is in " + std::to_string(s.job); });
    auto runs = Property<State>::sometimes("job-runs", "the job runs in some state",
                                           {.holds = [](const State& s) { return s.job == 3; }});
    return {stuck, runs};
  }
};

// A job that Run (family 0) moves to done, and a ticker (family 1) that
// flips forever. `run_only_on_even_tick` makes Run intermittently enabled,
// which separates weak from strong fairness; `dead_end` adds a Park action
// (family 1) into a state where nothing is enabled.
struct Spin {
  struct State {
    BOOST_HANA_DEFINE_STRUCT(State, (std::int64_t, job), (std::int64_t, tick));
    bool operator==(const State&) const = default;
  };
  enum Kind { Run, Tick, Park };
  struct Action {
    Kind kind;
  };
  bool run_only_on_even_tick = false;
  bool dead_end = false;
  bool premise_never = false;
  // A second leads-to, after job-gets-done, that every behaviour violates: its goal is no state.
  bool unreachable_goal = false;

  std::vector<State> init_states() const { return {State{0, 0}}; }
  void actions(const State& s, std::vector<Action>& out) const {
    if (s.job == 2) return;  // parked: nothing is enabled
    if (s.job == 0 && (!run_only_on_even_tick || s.tick == 0)) out.push_back({Run});
    out.push_back({Tick});
    if (dead_end && s.job == 0) out.push_back({Park});
  }
  State next(State s, const Action& a) const {
    if (a.kind == Run) s.job = 1;
    if (a.kind == Tick) s.tick = 1 - s.tick;
    if (a.kind == Park) s.job = 2;
    return s;
  }
  int family(const Action& a) const { return a.kind == Run ? 0 : 1; }
  std::vector<std::string> families() const { return {"run", "tick"}; }
  std::string action_name(const Action& a) const {
    static const char* names[] = {"Run", "Tick", "Park"};
    return names[a.kind];
  }
  std::uint64_t fingerprint(const State& s) const { return kmc::model::fingerprint(s); }
  std::vector<Property<State>> properties() const {
    auto done = Property<State>::leads_to(
        "job-gets-done", "a waiting job is eventually done",
        {.subjects = 1,
         .premise = [never = premise_never](const State& s, int) { return !never && s.job == 0; },
         .goal = [](const State& s, int) { return s.job == 1; }});
    if (!unreachable_goal) return {done};
    auto never = Property<State>::leads_to("job-gets-parked-twice", "a job is parked twice",
                                           {.subjects = 1,
                                            .premise = [](const State&, int) { return true; },
                                            .goal = [](const State&, int) { return false; }});
    return {done, never};
  }
};

// A job whose copy keeps failing in a bad region (Try, then Fail: the retry
// step the recurrence property marks) while a way out, Run, stays enabled
// throughout; a ticker makes cycles that retry nothing. One unit per kind:
// try 0, fail 1, run 2, tick 3.
struct Retry {
  struct State {
    BOOST_HANA_DEFINE_STRUCT(State, (std::int64_t, bad), (std::int64_t, done),
                             (std::int64_t, tick));
    bool operator==(const State&) const = default;
  };
  enum Kind { Try, Fail, Run, Tick };
  struct Action {
    Kind kind;
  };
  bool premise_never = false;
  bool premise_only_while_idle =
      false;  // the premise fails while the bad copy is tried: Fail starts outside it

  std::vector<State> init_states() const { return {State{0, 0, 0}}; }
  void actions(const State& s, std::vector<Action>& out) const {
    if (s.done) return;  // ran: nothing is enabled
    out.push_back({s.bad ? Fail : Try});
    out.push_back({Run});
    out.push_back({Tick});
  }
  State next(State s, const Action& a) const {
    if (a.kind == Try) s.bad = 1;
    if (a.kind == Fail) s.bad = 0;
    if (a.kind == Run) s.done = 1;
    if (a.kind == Tick) s.tick = 1 - s.tick;
    return s;
  }
  int family(const Action& a) const { return a.kind; }
  std::vector<std::string> families() const { return {"try", "fail", "run", "tick"}; }
  std::string action_name(const Action& a) const {
    static const char* names[] = {"Try", "Fail", "Run", "Tick"};
    return names[a.kind];
  }
  std::uint64_t fingerprint(const State& s) const { return kmc::model::fingerprint(s); }
  std::vector<Property<State>> properties() const {
    auto retry = Property<State>::recurrence_free(
        "no-endless-retry", "the job does not retry forever while it could run",
        {.subjects = 1,
         .premise = [never = premise_never, idle = premise_only_while_idle](
                        const State& s, int) { return !never && !s.done && (!idle || !s.bad); },
         .step = [](const State& from, const State& to, int) { return from.bad && !to.bad; }});
    return {retry};
  }
};

// A job that runs (the goal) and may be requeued to wait again (the premise),
// with a ticker; Run is enabled only on even ticks when `intermittent`, which
// separates weak from strong fairness. Requeue leaves a mark, so the waiting
// state after a requeue is not the initial one: a lasso can pass premise,
// goal, premise, then loop on ticks. Units: run 0, requeue 1, tick 2.
struct Requeue {
  struct State {
    BOOST_HANA_DEFINE_STRUCT(State, (std::int64_t, job), (std::int64_t, tick),
                             (std::int64_t, requeued));
    bool operator==(const State&) const = default;
  };
  enum Kind { Run, Requeue_, Tick };
  struct Action {
    Kind kind;
  };
  bool intermittent = true;

  std::vector<State> init_states() const { return {State{0, 0, 0}}; }
  void actions(const State& s, std::vector<Action>& out) const {
    if (s.job == 0 && (!intermittent || s.tick == 0)) out.push_back({Run});
    if (s.job == 1) out.push_back({Requeue_});
    out.push_back({Tick});
  }
  State next(State s, const Action& a) const {
    if (a.kind == Run) s.job = 1;
    if (a.kind == Requeue_) s.job = 0, s.requeued = 1;
    if (a.kind == Tick) s.tick = 1 - s.tick;
    return s;
  }
  int family(const Action& a) const { return a.kind; }
  std::vector<std::string> families() const { return {"run", "requeue", "tick"}; }
  std::string action_name(const Action& a) const {
    static const char* names[] = {"Run", "Requeue", "Tick"};
    return names[a.kind];
  }
  std::uint64_t fingerprint(const State& s) const { return kmc::model::fingerprint(s); }
  std::vector<Property<State>> properties() const {
    return {Property<State>::leads_to("job-gets-done", "a waiting job eventually runs",
                                      {.subjects = 1,
                                       .premise = [](const State& s, int) { return s.job == 0; },
                                       .goal = [](const State& s, int) { return s.job == 1; }})};
  }
};

}  // namespace fixtures
