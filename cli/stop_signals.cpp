#include "cli/stop_signals.hpp"

#include <atomic>
#include <utility>

namespace kmc::cli {

namespace {

// The first signal. A lock-free atomic is what a handler may write; the
// handler does nothing else but put the default actions back.
std::atomic<int> caught_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int sig) {
  caught_signal.store(sig, std::memory_order_relaxed);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGINT, &dfl, nullptr);  // async-signal-safe (POSIX.1-2008, 2.4.3)
  sigaction(SIGTERM, &dfl, nullptr);
}

}  // namespace

std::string stop_requested() {
  switch (caught_signal.load(std::memory_order_relaxed)) {
    case 0:
      return "";
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
  }
  return "a signal";
}

StopOnSignals::StopOnSignals() {
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a /proc read in the search is not cut short
  for (auto [sig, old] : {std::pair{SIGINT, &old_int_}, std::pair{SIGTERM, &old_term_}}) {
    sigaction(sig, nullptr, old);
    if (old->sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);
  }
}

StopOnSignals::~StopOnSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

}  // namespace kmc::cli
