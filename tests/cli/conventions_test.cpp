// The conventions of a command-line tool (issue 15, item 5): `kmc` alone and
// `kmc help` succeed, `kmc --version` names the Kueue commit, completion
// lists what is registered, and a violation ends with what to do next.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE("kmc alone prints the help and exits 0", "[cli][conventions]") {
  const auto r = kmc("");
  CHECK(r.code == 0);
  CHECK(r.out.find("check") != std::string::npos);
  CHECK(r.out.find("diff") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("kmc --version names kmc's version and the Kueue commit", "[cli][conventions]") {
  const auto r = kmc("--version");
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("kmc 0."));
  CHECK(r.out.find("ff69552e79ad21652c36caa97038382e55625cf7") != std::string::npos);
}

TEST_CASE("kmc help TOPIC: commands and topics; an unknown one is exit 3", "[cli][conventions]") {
  const auto check = kmc("help check");
  CHECK(check.code == 0);
  CHECK(check.out.find("--max-depth") != std::string::npos);
  const auto codes = kmc("help exit-codes");
  CHECK(codes.code == 0);
  CHECK(codes.out.find("Incomplete") != std::string::npos);
  const auto dump = kmc("help dump");
  CHECK(dump.code == 0);
  CHECK(dump.out.find("kubectl get") != std::string::npos);
  const auto unknown = kmc("help chekc");
  CHECK(unknown.code == 3);
  CHECK(unknown.err.find("no command or topic 'chekc'") != std::string::npos);
}

TEST_CASE("kmc completion bash lists every command and the options each registers",
          "[cli][conventions]") {
  const auto r = kmc("completion bash");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("complete -o filenames -F _kmc kmc") != std::string::npos);
  CHECK(r.out.find("check) opts=\"") != std::string::npos);
  CHECK(r.out.find("--replay-engine") != std::string::npos);
  CHECK(r.out.find("--expect") != std::string::npos);
  // It is a script bash accepts.
  const std::string script = temp_path("completion.bash");
  std::ofstream(script) << r.out;
  CHECK(std::system(("bash -n " + script).c_str()) == 0);
  std::filesystem::remove(script);
  CHECK(kmc("completion fish").code == 3);
}

TEST_CASE("a violation ends with what to do next, in commands to paste", "[cli][conventions]") {
  const auto r = kmc("check examples/gpu-hunter");
  REQUIRE(r.code == 1);
  const auto next = r.out.find("\nNext:\n");
  REQUIRE(next != std::string::npos);
  CHECK(r.out.find("kmc render trace.itf.json", next) != std::string::npos);
  CHECK(r.out.find("--replay-engine", next) != std::string::npos);
  CHECK(r.out.find("kmc diff examples/gpu-hunter FIXED", next) != std::string::npos);
  // An Incomplete run says which bound to raise.
  const auto bounded = kmc("check examples/gpu-hunter-fixed --max-depth 2");
  REQUIRE(bounded.code == 2);
  CHECK(bounded.out.find("Next:\n  raise the bound") != std::string::npos);
}

TEST_CASE("a bound is not silence: what an Incomplete run proved, and what to try",
          "[cli][conventions]") {
  // no-stuck-job is a graph property, decided only on the whole graph; the always properties
  // hold as far as the search went.
  const auto r = kmc("check examples/gpu-hunter-fixed --max-depth 4");
  REQUIRE(r.code == 2);
  CHECK(r.out.find("Proven: every behaviour of up to 4 steps explored: no violation of "
                   "no-job-on-two-workers, cluster-queue-within-quota, quota-counted-once within "
                   "4 steps") != std::string::npos);
  CHECK(r.out.find("Undecided: some-job-runs (not witnessed within 4 steps), no-stuck-job (decided "
                   "on the whole state graph only)") != std::string::npos);
  CHECK(r.out.find("split the fleet into scenarios that share nothing") != std::string::npos);
  const auto j =
      nlohmann::json::parse(kmc("check examples/gpu-hunter-fixed --max-depth 4 --output json").out);
  CHECK(j["proven"]["depth"] == 4);
  CHECK(j["proven"]["holdWithinDepth"].size() == 3);
  CHECK(j["proven"]["undecided"] == nlohmann::json::array({"some-job-runs", "no-stuck-job"}));
  CHECK(j["suggestions"].size() >= 2);
  // A Verified run has neither.
  const auto done = nlohmann::json::parse(kmc("check examples/gpu-hunter-fixed --output json").out);
  CHECK(done["proven"].is_null());
  CHECK(done["suggestions"].is_null());
}
