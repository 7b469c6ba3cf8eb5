#include "itf_readers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/render.hpp"
#include "counterexamples/multikueue/replay_setup.hpp"
#include "model/diagnostics.hpp"

namespace itf_readers {

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Outcome kmc_in_process(const std::vector<std::string>& args) {
  CLI::App app{"kmc"};
  app.require_subcommand(1);
  int code = 0;
  kmc::cli::add_replay_command(app, code);
  kmc::cli::add_render_command(app, code);
  std::vector<std::string> words{"kmc"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  // stderr into a file of its own (what guarded() prints), stdout into nothing.
  static const std::string err = (std::filesystem::temp_directory_path() /
                                  ("kmc-in-process-" + std::to_string(::getpid()) + ".err"))
                                     .string();
  std::cout.flush(), std::fflush(stdout), std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  const int fd_out = ::open("/dev/null", O_WRONLY);
  const int fd_err = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::dup2(fd_out, 1), ::dup2(fd_err, 2);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    code = 3;
  }
  std::cout.flush(), std::fflush(stdout), std::fflush(stderr);
  ::dup2(saved_out, 1), ::dup2(saved_err, 2);
  for (int fd : {saved_out, saved_err, fd_out, fd_err}) ::close(fd);
  Outcome o{code, read(err)};
  std::filesystem::remove(err);
  return o;
}

Outcome render(const std::string& path, const std::string& text) {
  try {
    (void)kmc::cx::render_trace(kmc::cx::parse_itf(path, text), kmc::cx::RenderFormat::Text);
    return {0, ""};
  } catch (const kmc::model::InputError& e) {
    return {3, e.what()};
  }
}

struct Scenario::Target {
  kmc::cx::ReplayTarget target;
};

Scenario::Scenario(const std::string& trace, const std::string& dir)
    : target_(new Target{kmc::cx::load_replay_target(kmc::cx::load_itf(trace), dir)}) {}

Scenario::~Scenario() = default;

Outcome Scenario::replay_in_engine(const std::string& path, const std::string& text) const {
  try {
    const auto r = kmc::cx::replay_in_engine(target_->target.scenario, target_->target.params,
                                             kmc::cx::parse_itf(path, text));
    return {r.verdict == kmc::cx::EngineReplay::Verdict::Reproduced ? 0 : 1, ""};
  } catch (const kmc::model::InputError& e) {
    return {3, e.what()};
  }
}

}  // namespace itf_readers
