// The parameters of the SPIN peer (bench/peers/spin/SEMANTICS.md §1.1) and
// the config names the bench uses for them. One parser serves kmc and the
// SPIN build (spin_flags), so both checkers are always handed the same
// instance: a second reading of a config name in the shell script could
// drift from this one.
//
// A config name is a base, then overrides:
//   W3J4                 series P: MODE=0 PRC=0 PRTIMEOUT=1 RECL=1 G=4 C0=4, other Q, C at 8
//   W2J2,C0=0,S0=8,PRC=1 series P with overrides
//   J=2,W=2,C0=0,S0=8    SEMANTICS.md's defaults (the cross-check table's rows) with overrides
// Dependent defaults follow the overrides, as in model.pml: Q_w and C_w
// default to 2*G, S_w to C_w, MQ to the sum of the first W quotas.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace spin_peer {

struct Params {
  int J = 2, W = 2, G = 4;
  std::vector<std::int64_t> Q, C, S;  // [worker]: quota, physical capacity, initial snapshot
  std::int64_t MQ = 0;                // manager quota
  int RECL = 0;                       // global bound on spot reclaims
  int MODE = 0;                       // 0 pin, 1 all-at-once
  int PRC = 0;                        // 0 best-effort-atomic-scaleup, 1 check-capacity
  int PRTIMEOUT = 0;                  // 0 none, 1 any time, 2 only while free < G
  int GATE = 1;                       // 1: the PR is processed only on the pinned/elected copy
  int FIFO = 0;                       // 1: manager reserves quota in job-index order
  // The deliberately broken variant: workerReserve (T4) ignores the worker's
  // quota, which no-quota-overcommit (S2) must catch. Not a SPIN parameter.
  bool broken_worker_quota = false;

  // The largest value snap[w] takes: the initial snapshot, or a refreshed free capacity.
  std::int64_t snap_max() const {
    std::int64_t m = 0;
    for (int w = 0; w < W; ++w) m = std::max({m, S[w], C[w]});
    return m;
  }
  // The most reclaims one worker suffers: the global bound, and only free GPUs are taken.
  std::int64_t lost_max() const {
    std::int64_t m = 0;
    for (int w = 0; w < W; ++w)
      m = std::max<std::int64_t>(m, std::min<std::int64_t>(RECL, C[w] / G));
    return m;
  }
};

namespace detail {

inline int to_int(const std::string& key, const std::string& text) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < 0)
    throw std::invalid_argument("spin peer config: " + key + "=" + text +
                                " is not a non-negative integer");
  return v;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s)
    if (c == sep)
      out.emplace_back();
    else
      out.back().push_back(c);
  return out;
}

inline void check_range(const char* name, int v, int lo, int hi) {
  if (v < lo || v > hi)
    throw std::invalid_argument(std::string("spin peer config: ") + name + " must be in " +
                                std::to_string(lo) + ".." + std::to_string(hi));
}

inline void validate(const Params& p) {
  check_range("J", p.J, 1, 8);  // model.pml's bounds: it unrolls at most 8 jobs, 4 workers
  check_range("W", p.W, 1, 4);
  check_range("G", p.G, 1, 255);
  check_range("MODE", p.MODE, 0, 1);
  check_range("PRC", p.PRC, 0, 1);
  check_range("PRTIMEOUT", p.PRTIMEOUT, 0, 2);
  check_range("GATE", p.GATE, 0, 1);
  check_range("FIFO", p.FIFO, 0, 1);
  for (int w = 0; w < p.W; ++w)
    if (p.S[w] < p.C[w])  // model.pml refuses it too: a snapshot below capacity is not modelled
      throw std::invalid_argument("spin peer config: S" + std::to_string(w) + " must be >= C" +
                                  std::to_string(w));
}

}  // namespace detail

// Parses a config name (see the top of this file); throws std::invalid_argument.
inline Params parse_config(const std::string& name) {
  auto parts = detail::split(name, ',');
  std::map<std::string, int> kv;
  bool series_p = false;
  if (!parts.empty() && parts[0].size() >= 4 && parts[0][0] == 'W' &&
      parts[0].find('=') == std::string::npos) {
    const auto j = parts[0].find('J');
    if (j == std::string::npos || j < 2)
      throw std::invalid_argument("spin peer config: " + parts[0] + " is not WnJm");
    kv["W"] = detail::to_int("W", parts[0].substr(1, j - 1));
    kv["J"] = detail::to_int("J", parts[0].substr(j + 1));
    series_p = true;
    parts.erase(parts.begin());
  }
  static const std::vector<std::string> keys = {
      "J",  "W",  "G",  "Q0", "Q1",   "Q2",   "Q3",  "C0",        "C1",   "C2",   "C3",    "S0",
      "S1", "S2", "S3", "MQ", "RECL", "MODE", "PRC", "PRTIMEOUT", "GATE", "FIFO", "BROKEN"};
  for (const auto& part : parts) {
    const auto eq = part.find('=');
    const std::string key = part.substr(0, eq);
    if (eq == std::string::npos || std::find(keys.begin(), keys.end(), key) == keys.end())
      throw std::invalid_argument("spin peer config: unknown setting '" + part + "'");
    kv[key] = detail::to_int(key, part.substr(eq + 1));
  }
  auto get = [&](const std::string& key, std::int64_t dflt) -> std::int64_t {
    const auto it = kv.find(key);
    return it == kv.end() ? dflt : it->second;
  };
  Params p;
  p.J = static_cast<int>(get("J", 2));
  p.W = static_cast<int>(get("W", 2));
  p.G = static_cast<int>(get("G", 4));
  detail::check_range("W", p.W, 1, 4);  // before sizing the per-worker vectors
  for (int w = 0; w < p.W; ++w) {
    const std::string n = std::to_string(w);
    p.Q.push_back(get("Q" + n, 2 * p.G));
    // Series P fixes C0 at 4 GPUs (one job's worth at G=4), not at G.
    p.C.push_back(get("C" + n, series_p && w == 0 ? 4 : 2 * p.G));
    p.S.push_back(get("S" + n, p.C.back()));
  }
  p.MQ = get("MQ", std::accumulate(p.Q.begin(), p.Q.end(), std::int64_t{0}));
  p.RECL = static_cast<int>(get("RECL", series_p ? 1 : 0));
  p.MODE = static_cast<int>(get("MODE", 0));
  p.PRC = static_cast<int>(get("PRC", 0));
  p.PRTIMEOUT = static_cast<int>(get("PRTIMEOUT", series_p ? 1 : 0));
  p.GATE = static_cast<int>(get("GATE", 1));
  p.FIFO = static_cast<int>(get("FIFO", 0));
  p.broken_worker_quota = get("BROKEN", 0) != 0;
  detail::validate(p);
  return p;
}

// The -D flags that make model.pml this instance under SEMANTICS.md §2, with
// TERM=1 so that SPIN's states stored equal the reachable states.
inline std::string spin_flags(const Params& p) {
  if (p.broken_worker_quota)
    throw std::invalid_argument("spin peer config: model.pml has no broken variant");
  std::string out;
  auto add = [&](const std::string& k, std::int64_t v) {
    out += (out.empty() ? "-D" : " -D") + k + "=" + std::to_string(v);
  };
  add("J", p.J), add("W", p.W), add("G", p.G);
  for (int w = 0; w < p.W; ++w) add("Q" + std::to_string(w), p.Q[w]);
  for (int w = 0; w < p.W; ++w) add("C" + std::to_string(w), p.C[w]);
  for (int w = 0; w < p.W; ++w) add("S" + std::to_string(w), p.S[w]);
  add("MQ", p.MQ), add("RECL", p.RECL), add("MODE", p.MODE), add("PRC", p.PRC);
  add("PRTIMEOUT", p.PRTIMEOUT), add("GATE", p.GATE), add("FIFO", p.FIFO), add("TERM", 1);
  return out;
}

}  // namespace spin_peer
