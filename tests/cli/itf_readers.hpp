// The readers of an ITF trace, called in this process: `kmc replay` and
// `kmc render` as main.cpp registers them, the engine replay behind them, and
// render. Kept apart from run_kmc.hpp, whose kmc() would hide namespace kmc.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace itf_readers {

struct Outcome {
  int code = 0;     // the exit code: 3 for an InputError
  std::string err;  // what was printed on stderr, or the InputError's text
};

// `kmc ARGS...` in this process, its stdout discarded.
Outcome kmc_in_process(const std::vector<std::string>& args);

// Render of the trace `text` read as the file `path`.
Outcome render(const std::string& path, const std::string& text);

// A trace's scenario, loaded once for many mutants of that trace.
class Scenario {
 public:
  Scenario(const std::string& trace, const std::string& dir);
  ~Scenario();
  // The engine replay of `text` read as the file `path`: 0 Reproduced, 1 Diverged, 3.
  Outcome replay_in_engine(const std::string& path, const std::string& text) const;

 private:
  struct Target;
  std::unique_ptr<Target> target_;
};

}  // namespace itf_readers
