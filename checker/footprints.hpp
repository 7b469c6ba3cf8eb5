// Footprints (model/footprints.hpp) read off a protocol's rules at sym::Int:
// each candidate's guard and update are built as Z3 terms over one symbolic
// state, whose every variable is a named constant. A variable the guard's term
// mentions is read by the guard; a variable whose updated term is not the
// constant itself may be written, and what that term mentions is read. Terms
// mention what the code looks at, so the sets over-approximate what an action
// depends on (a cell read and then ignored still counts): sound for the
// reduction, which only needs "cannot affect". Included only by the translation
// units that pay for Z3 (counterexamples/<protocol>/symbolic.cpp).
#pragma once

#include <z3++.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "checker/smt_engines.hpp"
#include "checker/symbolic_reach.hpp"
#include "checker/unrolling.hpp"
#include "model/footprints.hpp"

namespace kmc::checker {

namespace footprint_detail {

// The variables (by index) that a term mentions.
class Mentions {
 public:
  explicit Mentions(const std::vector<z3::expr>& vars) {
    for (std::size_t i = 0; i < vars.size(); ++i) index_.emplace(vars[i].id(), static_cast<int>(i));
  }
  const std::unordered_map<unsigned, int>& index() const { return index_; }
  void add(const z3::expr& e, std::vector<int>& out) {
    std::vector<z3::expr> stack{e};
    while (!stack.empty()) {
      const z3::expr x = stack.back();
      stack.pop_back();
      if (!seen_.insert(x.id()).second) continue;
      if (x.is_app() && x.num_args() == 0) {
        if (auto it = index_.find(x.id()); it != index_.end()) out.push_back(it->second);
        continue;
      }
      if (x.is_app())
        for (unsigned k = 0; k < x.num_args(); ++k) stack.push_back(x.arg(k));
    }
  }
  // A new set: terms shared with an earlier one are looked at again.
  void reset() { seen_.clear(); }

 private:
  std::unordered_map<unsigned, int> index_;
  std::unordered_set<unsigned> seen_;
};

// Whether two sorted sets share an element.
inline bool meets(const std::vector<int>& a, const std::vector<int>& b) {
  std::size_t i = 0, k = 0;
  while (i < a.size() && k < b.size()) {
    if (a[i] == b[k]) return true;
    a[i] < b[k] ? ++i : ++k;
  }
  return false;
}

// A formula's top-level conjuncts (kind AND) or disjuncts (kind OR), nested ones flattened.
inline void parts_of(const z3::expr& e, Z3_decl_kind kind, std::vector<z3::expr>& out) {
  if (e.is_app() && e.decl().decl_kind() == kind) {
    for (unsigned k = 0; k < e.num_args(); ++k) parts_of(e.arg(k), kind, out);
    return;
  }
  out.push_back(e);
}

// A Z3 term as a Formula over the variables `index` names; false when it uses anything else.
class Compiler {
 public:
  explicit Compiler(const std::unordered_map<unsigned, int>& index) : index_(index) {}
  bool compile(const z3::expr& e, model::Formula& out) {
    out = {};
    node_.clear();
    return visit(e, out);
  }

 private:
  using Op = model::Formula::Op;
  bool visit(const z3::expr& e, model::Formula& f) {
    if (node_.contains(e.id())) return true;
    model::Formula::Node n{Op::Const, 0, 0, 0};
    if (e.is_numeral()) {
      std::int64_t v = 0;
      if (!e.is_numeral_i64(v)) return false;
      n.value = v;
    } else if (e.is_true() || e.is_false()) {
      n.value = e.is_true() ? 1 : 0;
    } else if (e.is_const()) {
      auto it = index_.find(e.id());
      if (it == index_.end()) return false;
      n.op = Op::Var, n.value = it->second;
    } else if (e.is_app()) {
      switch (e.decl().decl_kind()) {
        case Z3_OP_ADD:
          n.op = Op::Add;
          break;
        case Z3_OP_SUB:
          n.op = Op::Sub;
          break;
        case Z3_OP_MUL:
          n.op = Op::Mul;
          break;
        case Z3_OP_UMINUS:
          n.op = Op::Neg;
          break;
        case Z3_OP_ITE:
          n.op = Op::Ite;
          break;
        case Z3_OP_EQ:
          n.op = Op::Eq;
          break;
        case Z3_OP_DISTINCT:
          if (e.num_args() != 2) return false;
          n.op = Op::Ne;
          break;
        case Z3_OP_LE:
          n.op = Op::Le;
          break;
        case Z3_OP_LT:
          n.op = Op::Lt;
          break;
        case Z3_OP_GE:
          n.op = Op::Ge;
          break;
        case Z3_OP_GT:
          n.op = Op::Gt;
          break;
        case Z3_OP_AND:
          n.op = Op::And;
          break;
        case Z3_OP_OR:
          n.op = Op::Or;
          break;
        case Z3_OP_NOT:
          n.op = Op::Not;
          break;
        case Z3_OP_IMPLIES:
          n.op = Op::Implies;
          break;
        default:
          return false;
      }
      // Formula::eval reads exactly these many arguments: anything else is not compiled.
      const unsigned n_args = e.num_args();
      switch (n.op) {
        case Op::Neg:
        case Op::Not:
          if (n_args != 1) return false;
          break;
        case Op::Ite:
          if (n_args != 3) return false;
          break;
        case Op::Eq:
        case Op::Ne:
        case Op::Le:
        case Op::Lt:
        case Op::Ge:
        case Op::Gt:
        case Op::Implies:
          if (n_args != 2) return false;
          break;
        default:
          if (n_args == 0) return false;
          break;
      }
      std::vector<std::uint32_t> args;
      for (unsigned k = 0; k < e.num_args(); ++k) {
        if (!visit(e.arg(k), f)) return false;
        args.push_back(node_.at(e.arg(k).id()));
      }
      n.first = static_cast<std::uint32_t>(f.kids.size());
      n.count = static_cast<std::uint32_t>(args.size());
      f.kids.insert(f.kids.end(), args.begin(), args.end());
    } else {
      return false;
    }
    node_.emplace(e.id(), static_cast<std::uint32_t>(f.nodes.size()));
    f.nodes.push_back(n);
    return true;
  }
  const std::unordered_map<unsigned, int>& index_;
  std::unordered_map<unsigned, std::uint32_t> node_;
};

inline void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace footprint_detail

// How much work Z3 may spend on one question before kmc calls the action visible: a resource
// count, not a time, so that the answer (and every state count after it) is the same on every
// machine and every run.
inline constexpr unsigned kQuestionRlimit = 200'000;

template <model::ProtocolSpec Spec>
model::Footprints derive_footprints(const typename Spec::Params& p, const model::Layout& layout,
                                    const std::vector<typename Spec::Action>& candidates,
                                    const std::vector<StatePredicate<Spec>>& predicates) {
  using SymState = typename Spec::template State<sym::Int>;
  z3::context ctx;
  const sym::SymbolicValues vals{&ctx};
  const SymState s = fresh_state<Spec::template State>(ctx, Spec::initial(p), "s");
  const std::vector<z3::expr> vars = flatten<Spec::template State>(s);
  typename Spec::template Rules<sym::Int> rules(p, vals);
  footprint_detail::Mentions mentions(vars);
  model::Footprints f;
  f.variables = static_cast<int>(vars.size());
  f.guard.resize(candidates.size());
  f.reads.resize(candidates.size());
  f.writes.resize(candidates.size());
  f.disturbs.resize(candidates.size());
  f.conjuncts.resize(candidates.size());
  footprint_detail::Compiler compiler(mentions.index());
  // Each property split into the parts an action can flip one at a time: an always property's
  // conjuncts, a sometimes property's disjuncts, each with what it reads.
  struct Split {
    std::vector<z3::expr> parts;
    std::vector<std::vector<int>> reads;
    Z3_decl_kind kind;
  };
  std::vector<Split> splits;
  for (const auto& pred : predicates) {
    const bool always = pred.kind == model::PropertyKind::Always;
    Split sp{{}, {}, always ? Z3_OP_AND : Z3_OP_OR};
    footprint_detail::parts_of(pred.holds(s, vals).e, sp.kind, sp.parts);
    std::vector<int> all;
    for (const auto& part : sp.parts) {
      std::vector<int> reads;
      mentions.reset();
      mentions.add(part, reads);
      footprint_detail::sort_unique(reads);
      all.insert(all.end(), reads.begin(), reads.end());
      sp.reads.push_back(std::move(reads));
    }
    footprint_detail::sort_unique(all);
    f.property_reads.emplace_back(pred.name, std::move(all));
    splits.push_back(std::move(sp));
  }
  z3::solver solver(ctx);
  solver.add(in_ranges<Spec::template State>(ctx, s, &layout));
  z3::params limit(ctx);
  limit.set("rlimit", kQuestionRlimit);
  solver.set(limit);
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    mentions.reset();
    const z3::expr guard = rules.enabled(s, candidates[c]).e;
    mentions.add(guard, f.guard[c]);
    std::vector<z3::expr> conjuncts;
    footprint_detail::parts_of(guard, Z3_OP_AND, conjuncts);
    for (const auto& part : conjuncts) {
      model::Conjunct& cj = f.conjuncts[c].emplace_back();
      mentions.reset();
      mentions.add(part, cj.reads);
      footprint_detail::sort_unique(cj.reads);
      cj.compiled = compiler.compile(part, cj.formula);
    }
    SymState moved = s;
    rules.apply_in_place(moved, candidates[c]);
    const std::vector<z3::expr> after = flatten<Spec::template State>(moved);
    mentions.reset();
    for (std::size_t v = 0; v < vars.size(); ++v) {
      if (z3::eq(after[v], vars[v])) continue;
      f.writes[c].push_back(static_cast<int>(v));
      mentions.add(after[v], f.reads[c]);
    }
    footprint_detail::sort_unique(f.guard[c]);
    footprint_detail::sort_unique(f.reads[c]);
    // Visibility, by what the action can do to each property rather than by what it writes: an
    // action disturbs an always property if, from some in-range state where it is enabled, it can
    // turn a false conjunct true (it might repair a violation the search would then not see), and
    // a sometimes property if it can turn a true disjunct false. Z3 answers per part it writes.
    for (std::size_t k = 0; k < predicates.size(); ++k) {
      const Split& sp = splits[k];
      const bool touched = std::any_of(sp.reads.begin(), sp.reads.end(), [&](const auto& r) {
        return footprint_detail::meets(r, f.writes[c]);
      });
      if (!touched) continue;
      std::vector<z3::expr> now;
      footprint_detail::parts_of(predicates[k].holds(moved, vals).e, sp.kind, now);
      bool disturbs = now.size() != sp.parts.size();  // shapes differ: assume the worst
      for (std::size_t i = 0; i < sp.parts.size() && !disturbs; ++i) {
        if (!footprint_detail::meets(sp.reads[i], f.writes[c])) continue;
        const z3::expr flip =
            sp.kind == Z3_OP_AND ? (!sp.parts[i] && now[i]) : (sp.parts[i] && !now[i]);
        solver.push();
        solver.add(guard && flip);
        disturbs = solver.check() != z3::unsat;
        solver.pop();
      }
      if (disturbs) f.disturbs[c].push_back(static_cast<int>(k));
    }
  }
  return f;
}

}  // namespace kmc::checker
