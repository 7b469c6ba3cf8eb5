// A check that is stopped early still answers (issue 16, item 4): SIGINT
// and SIGTERM, the memory bound, and an allocation failure each end in
// Incomplete naming why, with the figures so far, in text and JSON, exit 2;
// never a signal death with nothing printed. The runs that must last are
// examples/three-workers (31.8 million states, minutes) stopped within a few
// seconds; nothing here asserts on timing beyond generous deadlines.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "cli/run_kmc.hpp"

namespace {

using namespace std::chrono_literals;

const std::string kLong = "check examples/three-workers --max-states 40000000 --time-limit 600";

// `kmc ARGS...` started directly (not through a shell, which may ignore SIGINT in its children),
// with stdout and stderr going to files.
struct Child {
  pid_t pid = -1;
  std::string out_path = temp_path("stop.out"), err_path = temp_path("stop.err");

  explicit Child(const std::vector<std::string>& args) {
    std::vector<std::string> argv{KMC_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, 1), ::dup2(err, 2);
      // A test run from a background job inherits SIGINT ignored, and kmc keeps an ignored
      // signal ignored (as a background job of a script expects): give it the default.
      ::signal(SIGINT, SIG_DFL), ::signal(SIGTERM, SIG_DFL);
      std::vector<char*> c;
      for (auto& a : argv) c.push_back(a.data());
      c.push_back(nullptr);
      ::execv(c[0], c.data());
      ::_exit(127);
    }
  }
  ~Child() {
    if (pid > 0) ::kill(pid, SIGKILL), ::waitpid(pid, nullptr, 0);
    std::remove(out_path.c_str());
    std::remove(err_path.c_str());
  }
  // Waits until stderr holds `text` (true), or the child exits or the deadline passes (false).
  bool wait_for_err(const std::string& text, std::chrono::seconds deadline) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < until) {
      if (slurp(err_path).find(text) != std::string::npos) return true;
      if (::waitpid(pid, nullptr, WNOHANG) != 0) return pid = -1, false;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }
  // The wait status once it exits; killed (and a test failure) past the deadline.
  int wait(std::chrono::seconds deadline) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > until) {
        FAIL("kmc did not end after the signal");
      }
      std::this_thread::sleep_for(50ms);
    }
    pid = -1;
    return status;
  }
};

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Starts the long check, waits until it reports progress (the search is running), sends `sig`,
// and returns the exit status with what it printed.
Run interrupted(int sig, const std::string& extra, std::string* progress = nullptr) {
  Child c(words(kLong + " " + extra));
  REQUIRE(c.wait_for_err("progress:", 120s));
  if (progress) *progress = slurp(c.err_path);
  REQUIRE(::kill(c.pid, sig) == 0);
  const int status = c.wait(120s);
  Run r;
  INFO("wait status " << status);
  REQUIRE(WIFEXITED(status));  // not killed by the signal
  r.code = WEXITSTATUS(status);
  r.out = slurp(c.out_path);
  r.err = slurp(c.err_path);
  return r;
}

}  // namespace

TEST_CASE("SIGINT ends a check in Incomplete with the partial result, exit 2", "[cli][signals]") {
  std::string progress;
  const Run r = interrupted(SIGINT, "", &progress);
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.find("Result: Incomplete (stopped by SIGINT; every state within ") !=
        std::string::npos);
  CHECK(r.out.find("Stats: ") != std::string::npos);
  CHECK(r.out.find("Properties:") != std::string::npos);
  // Progress lines show the resident memory and its bound.
  CHECK(progress.find(" MiB resident (bound ") != std::string::npos);
}

TEST_CASE("SIGTERM ends a check in Incomplete, in JSON too, exit 2", "[cli][signals]") {
  const Run r = interrupted(SIGTERM, "--output json --threads 2");
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "Incomplete");
  CHECK(j["incomplete"] == "SIGTERM");
  CHECK(j["stats"]["states"].get<std::uint64_t>() > 0);
  CHECK(j["exploredDepth"].get<int>() >= 1);
  CHECK(j["exploredDepth"].get<int>() <= j["stats"]["depth"].get<int>());
  for (const auto& p : j["properties"])  // a "sometimes" witnessed early is Verified, rightly
    if (p["kind"] != "sometimes") CHECK(p["verdict"] == "Incomplete");
}

TEST_CASE("the memory bound ends a check in Incomplete naming it, with the figures so far",
          "[cli][memory]") {
  const Run r = kmc(kLong + " --max-memory 96M --output json");
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["incomplete"] == "memory bound 96.0 MiB");
  CHECK(j["stats"]["states"].get<std::uint64_t>() > 1000);
  CHECK(j["stats"]["peakRssBytes"].get<std::uint64_t>() >= std::uint64_t{96} << 20);
  CHECK(j["exploredDepth"].get<int>() >= 1);

  const Run tiny = kmc("check examples/gpu-hunter-fixed --max-memory 1M");
  INFO(tiny.out << tiny.err);
  CHECK(tiny.code == 2);
  CHECK(tiny.out.find("Result: Incomplete (stopped by memory bound 1.0 MiB; every state within 0 "
                      "steps checked, nothing is proven beyond)") != std::string::npos);
}

TEST_CASE("an allocation failure ends a check in Incomplete with a result, never an abort",
          "[cli][memory]") {
  // An address-space limit makes allocations fail (bad_alloc) where a real machine's OOM killer
  // would strike. The limit is what kmc needs to start plus a little, so the search hits it.
  for (const char* threads : {"1", "2"}) {
    INFO("threads " << threads);
    const Run r = kmc(kLong + " --threads " + threads + " --max-memory 64G --output json",
                      "ulimit -v 163840;");  // 160 MiB: about 1.5 million states
    INFO(r.out << r.err);
    REQUIRE(r.code == 2);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["verdict"] == "Incomplete");
    CHECK(j["incomplete"].get<std::string>().rfind("an allocation failure (out of memory", 0) == 0);
    CHECK(j["stats"]["states"].get<std::uint64_t>() > 1000);
  }
}

TEST_CASE("--max-memory must be a size: nonsense is exit 3 with the reason", "[cli][memory]") {
  for (const char* bad : {"abc", "0", "=-5", "1X", "8 G", "=", "99999999999999999999"}) {
    const std::string arg = bad[0] == '=' ? std::string("--max-memory") + bad
                                          : std::string("--max-memory '") + bad + "'";
    const Run r = kmc("check examples/gpu-hunter " + arg);
    INFO(arg << "\n" << r.out << r.err);
    CHECK(r.code == 3);
    CHECK(r.err.find("--max-memory") != std::string::npos);
    CHECK(r.out.empty());
  }
  const Run ok = kmc("check examples/gpu-hunter --max-memory 2GiB");
  CHECK(ok.code == 1);  // the GPU Hunter deadlock, found well within 2 GiB
  const Run help = kmc("check --help");
  CHECK(help.out.find("--max-memory") != std::string::npos);
  CHECK(help.out.find("75% of physical memory") != std::string::npos);
}

TEST_CASE("kmc.yaml's check.maxMemory bounds a check as --max-memory does, which overrides it",
          "[cli][memory]") {
  const std::string dir =
      example_with("gpu-hunter-fixed", "kmc.yaml",
                   slurp("examples/gpu-hunter-fixed/kmc.yaml") + "check: {maxMemory: 1M}\n");
  const Run r = kmc("check " + dir);
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.find("stopped by memory bound 1.0 MiB") != std::string::npos);
  CHECK(kmc("check " + dir + " --max-memory 2GiB").code == 0);

  const std::string bad =
      example_with("gpu-hunter-fixed", "kmc.yaml",
                   slurp("examples/gpu-hunter-fixed/kmc.yaml") + "check: {maxMemory: lots}\n");
  const Run b = kmc("check " + bad);
  INFO(b.err);
  CHECK(b.code == 3);
  CHECK(b.err.find("kmc.yaml:") != std::string::npos);
  CHECK(b.err.find(": check.maxMemory: ") != std::string::npos);
}

TEST_CASE("SIGTERM ends a kmc matrix with its table: the running cell and the rest Incomplete",
          "[cli][signals][matrix]") {
  // three-workers takes minutes per cell, so the first cell is still running when the signal comes.
  const std::string dir =
      example_with("three-workers", "kmc.yaml",
                   slurp("examples/three-workers/kmc.yaml") + "matrix:\n  pin: [true, false]\n");
  Child c({"matrix", dir, "--property", "no-stuck-job", "--time-limit", "600"});
  REQUIRE(c.wait_for_err("row 1: no-stuck-job", 60s));
  std::this_thread::sleep_for(500ms);
  REQUIRE(::kill(c.pid, SIGTERM) == 0);
  const int status = c.wait(120s);
  REQUIRE(WIFEXITED(status));
  const std::string out = slurp(c.out_path);
  INFO(out << slurp(c.err_path));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(out.find("| true | Incomplete (SIGTERM) |") != std::string::npos);
  CHECK(out.find("| false | Incomplete (not run: SIGTERM) |") != std::string::npos);
  CHECK(out.find("2 combinations x 1 properties") != std::string::npos);
}
