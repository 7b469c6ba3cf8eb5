// kmc's side of the SPIN peer benchmark (bench/spin_peer.sh runs both): one
// breadth-first search of the SPIN peer (spin_peer/peer_protocol.hpp) at a
// config name, printing what the script compares with pan's output.
//   spin_peer_kmc CONFIG [--threads N] [--symmetry]   e.g. W3J4, W2J2,C0=0,S0=8, J=2,W=2,PRC=1
//     --symmetry: with job symmetry reduction (issue 13): orbits, not SPIN's state graph
//   spin_peer_kmc CONFIG --spin-flags    the -D flags that build model.pml as the same instance
// CPU seconds and peak RSS are this process's own (getrusage), so they hold
// the checker alone, without the shell or the build.
#include <fmt/format.h>
#include <sys/resource.h>

#include <cstdio>
#include <exception>
#include <string>

#include "checker/bfs.hpp"
#include "spin_peer/peer_protocol.hpp"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: spin_peer_kmc CONFIG [--threads N] [--symmetry] | CONFIG --spin-flags\n");
  return 2;
}

int run(const std::string& config, int threads, bool symmetry) {
  const spin_peer::Peer peer(spin_peer::parse_config(config));
  kmc::checker::CheckOptions o;
  o.threads = threads;
  o.max_states = 500'000'000;  // W4J4 has 12.9M states, W3J5 64.3M: no bound may cut them
  o.time_limit_s = 24 * 3600;
  o.deadlock = true;  // SPIN's invalid end states
  o.symmetry = symmetry;
  const auto r = kmc::checker::Bfs(peer, o).run();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  fmt::print("config: {}\n", config);
  fmt::print("states: {}\n", r.stats.states);
  fmt::print("transitions: {}\n", r.stats.transitions);
  fmt::print("depth: {}\n", r.stats.depth);
  fmt::print("verdict: {}{}\n", kmc::checker::to_string(r.verdict),
             r.violation                   ? " (" + r.violation->property + ")"
             : r.incomplete_reason.empty() ? ""
                                           : " (" + r.incomplete_reason + ")");
  fmt::print("deadlock checked: yes\n");
  for (const auto& line : r.reductions) fmt::print("reduction: {}\n", line);
  const auto& ph = r.stats.phases;
  fmt::print(
      "wall seconds: {:.2f} (expand {:.2f}, insert {:.2f}, number {:.2f}, record {:.2f}, "
      "graph {:.2f}, analyses {:.2f})\n",
      r.stats.seconds, ph.expand, ph.insert, ph.number, ph.record, ph.graph, ph.analyses);
  fmt::print("cpu seconds: {:.2f}\n", cpu_s);
  fmt::print("peak rss MiB: {:.1f}\n", static_cast<double>(ru.ru_maxrss) / 1024.0);  // KiB on Linux
  return r.verdict == kmc::checker::Verdict::Incomplete ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string config = argv[1];
  int threads = 1;
  bool flags = false, symmetry = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc)
      threads = std::stoi(argv[++i]);
    else if (arg == "--symmetry")
      symmetry = true;
    else if (arg == "--spin-flags")
      flags = true;
    else
      return usage();
  }
  try {
    if (flags) {
      fmt::print("{}\n", spin_peer::spin_flags(spin_peer::parse_config(config)));
      return 0;
    }
    return run(config, threads, symmetry);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spin_peer_kmc: %s\n", e.what());
    return 2;
  }
}
