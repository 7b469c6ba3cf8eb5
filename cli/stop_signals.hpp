// SIGINT and SIGTERM as a request to stop: a search reads stop_requested()
// between chunks (checker::CheckOptions::stop) and ends in Incomplete with
// what it found so far; kmc check and kmc matrix then print their results as
// usual, exit 2. A second signal ends the process at once, as pressing Ctrl-C
// twice should.
#pragma once

#include <csignal>
#include <string>

namespace kmc::cli {

// "SIGINT" or "SIGTERM" once one has arrived while a StopOnSignals was alive; "" before.
std::string stop_requested();

// While alive, SIGINT and SIGTERM ask the search to stop. A signal ignored
// when kmc started (nohup, a background job of a script) stays ignored.
class StopOnSignals {
 public:
  StopOnSignals();
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  struct sigaction old_int_ = {}, old_term_ = {};
};

}  // namespace kmc::cli
