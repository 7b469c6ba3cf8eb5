// `kmc render`: counterexamples as sequence diagrams, checked the way a
// reader and Mermaid's parser would look at them.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "cli/run_kmc.hpp"

namespace {

std::string temp_path(const std::string& name) {
  static int n = 0;
  return "/tmp/kmc-render-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + "-" +
         name;
}

// A fresh trace from the checker, so the test follows the model, not a stale file.
std::string trace_of(const std::string& args) {
  const std::string path = temp_path("trace.itf.json");
  auto r = kmc(args + " --trace-out " + path);
  REQUIRE(r.code == 1);
  return path;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

// Every needle found, each after the one before it.
void check_in_order(const std::string& text, const std::vector<std::string>& needles) {
  std::size_t from = 0;
  for (const auto& needle : needles) {
    const auto at = text.find(needle, from);
    INFO("looking for \"" << needle << "\" after offset " << from << " in\n" << text);
    REQUIRE(at != std::string::npos);
    from = at + needle.size();
  }
}

// What Mermaid's sequenceDiagram parser needs: the header, each line one
// statement it knows, participants declared before use, ';' and '#' only
// inside entity codes, every loop closed.
void check_mermaid(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK(line == "sequenceDiagram");
  const std::regex declare(R"(^\s+(participant|actor) ([A-Za-z0-9_]+) as \S.*$)");
  const std::regex arrow(R"(^\s+([A-Za-z0-9_]+)->>([A-Za-z0-9_]+): \S.*$)");
  const std::regex note(R"(^\s+Note over ([A-Za-z0-9_]+)(,([A-Za-z0-9_]+))?: \S.*$)");
  std::set<std::string> declared;
  int open_loops = 0;
  while (std::getline(in, line)) {
    INFO("line: " << line);
    std::smatch m;
    if (std::regex_match(line, std::regex(R"(^\s+%%.*$)"))) continue;
    const std::string bare = std::regex_replace(line, std::regex("#[0-9]+;"), "");
    CHECK(bare.find(';') == std::string::npos);
    CHECK(bare.find('#') == std::string::npos);
    if (std::regex_match(line, m, declare)) {
      declared.insert(m[2]);
    } else if (std::regex_match(line, m, arrow)) {
      CHECK(declared.count(m[1]) == 1);
      CHECK(declared.count(m[2]) == 1);
    } else if (std::regex_match(line, m, note)) {
      CHECK(declared.count(m[1]) == 1);
      if (m[3].matched) CHECK(declared.count(m[3]) == 1);
    } else if (std::regex_match(line, std::regex(R"(^\s+loop \S.*$)"))) {
      ++open_loops;
    } else if (std::regex_match(line, std::regex(R"(^\s+end$)"))) {
      CHECK(open_loops-- > 0);
    } else {
      FAIL("not a sequenceDiagram statement");
    }
  }
  CHECK(open_loops == 0);
}

// Every MultiKueue action, one after another: not a behaviour the model
// allows, but each kind must draw its line between the right lanes.
std::string every_action_trace() {
  std::map<std::string, std::string> vars = {{"j @manager", "Pending"},
                                             {"j @w1", "-"},
                                             {"j @w2", "-"},
                                             {"usage manager/cq f gpu", "0/8"},
                                             {"usage w1/cq f gpu", "0/8"},
                                             {"free w1 f gpu", "8"},
                                             {"snapshot w1 f gpu", "8"}};
  nlohmann::json doc;
  doc["#meta"] = {{"property", "no-stuck-job"}, {"detail", "made by hand"}};
  doc["vars"] = {"mbt::actionTaken", "mbt::nondetPicks"};
  for (const auto& [k, v] : vars) doc["vars"].push_back(k);
  auto step = [&](const std::string& kind, const std::string& cluster,
                  const std::map<std::string, std::string>& changes) {
    for (const auto& [k, v] : changes) vars[k] = v;
    nlohmann::json st(vars);
    st["mbt::actionTaken"] = kind;
    st["mbt::nondetPicks"] = {{"job", "j"}};
    if (!cluster.empty()) st["mbt::nondetPicks"]["cluster"] = cluster;
    if (kind == "CapacityLost") st["mbt::nondetPicks"] = {{"cluster", cluster}, {"flavor", "f"}};
    if (kind == "RefreshSnapshot") st["mbt::nondetPicks"] = {{"cluster", cluster}};
    doc["states"].push_back(st);
  };
  step("init", "", {});
  step("ReserveQuota", "", {{"j @manager", "QuotaReserved"}, {"usage manager/cq f gpu", "8/8"}});
  step("Nominate", "", {{"j @w1", "-, nominated"}});
  step("NominateNextRound", "", {{"j @w2", "-, nominated"}});
  step("NominateWorker", "w1", {});
  step("Renominate", "", {{"j @w2", "-"}});
  step("CreateRemoteWorkload", "w1", {{"j @w1", "Pending, nominated"}});
  step("ReserveQuotaOnWorker", "w1",
       {{"j @w1", "QuotaReserved, ProvisioningRequest Requested, nominated"},
        {"usage w1/cq f gpu", "8/8"}});
  step("ProvisioningAccepted", "w1",
       {{"j @w1", "QuotaReserved, ProvisioningRequest Accepted, nominated"}});
  step("ProvisioningFailed", "w1", {{"j @w1", "Pending, 1 failed attempt, nominated"}});
  step("ProvisioningTimeout", "w1", {{"j @w1", "Rejected, 2 failed attempts, nominated"}});
  step("ProvisioningProvisioned", "w1", {{"j @w1", "Admitted, ProvisioningRequest Provisioned"}});
  step("SelectWorker", "w1", {{"j @manager", "Admitted on w1"}});
  step("JobStarted", "w1", {{"j @w1", "Running, ProvisioningRequest Provisioned"}});
  step("SpotReclaim", "w1", {{"j @w1", "Pending"}});
  step("CapacityLost", "w1", {{"free w1 f gpu", "0"}});
  step("RefreshSnapshot", "w1", {{"snapshot w1 f gpu", "0"}});
  step("RetryDispatch", "w1", {{"j @manager", "Pending"}, {"j @w1", "-"}});
  step("JobFinished", "w1", {{"j @manager", "Finished"}});
  return write_temp("every-action.itf.json", doc.dump(2));
}

}  // namespace

TEST_CASE("render: the GPU Hunter trace, every lane and the five steps in order", "[cli][render]") {
  const std::string trace = trace_of("check examples/gpu-hunter");
  auto r = kmc("render " + trace + " --format text");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Lanes: user | manager | capacity snapshot | worker us-central1 | autoscaler "
                   "us-central1 | "
                   "worker asia-southeast1 | autoscaler asia-southeast1") != std::string::npos);
  check_in_order(
      r.out, {
                 "0. user -> manager: submit Job team-ml/llm-finetune",
                 "1. manager -> manager: reserve quota for team-ml/llm-finetune on gpu-cq (h100)",
                 "2. capacity snapshot -> manager: view shows room on us-central1",
                 "note over capacity snapshot: stale: us-central1 h100 nvidia.com/gpu is 8 in the "
                 "view, 0 free",
                 "3. manager -> worker us-central1: create remote Workload team-ml/llm-finetune",
                 "4. worker us-central1 -> worker us-central1: reserve quota for "
                 "team-ml/llm-finetune on gpu-cq (h100)",
                 "   worker us-central1 -> autoscaler us-central1: create ProvisioningRequest",
                 "5. autoscaler us-central1 -> worker us-central1: ProvisioningRequest for "
                 "team-ml/llm-finetune Accepted (no capacity yet)",
                 "no-stuck-job is violated: job team-ml/llm-finetune can never change again",
             });
  CHECK(r.out.find("loop") ==
        std::string::npos);  // a finite counterexample: stuck in its last state
}

TEST_CASE("render: the GPU Hunter diagram is valid Mermaid and is the one committed in docs/",
          "[cli][render][approval]") {
  const std::string trace = trace_of("check examples/gpu-hunter");
  auto r = kmc("render " + trace + " --format mermaid");
  REQUIRE(r.code == 0);
  check_mermaid(r.out);
  check_in_order(
      r.out, {"participant w1 as worker us-central1", "participant a1 as autoscaler us-central1",
              "participant w2 as worker asia-southeast1",
              "participant a2 as autoscaler asia-southeast1", "manager->>manager: 1.",
              "snapshot->>manager: 2.", "manager->>w1: 3.", "w1->>a1: create ProvisioningRequest",
              "a1->>w1: 5.", "Note over user,a2: no-stuck-job is violated"});
  // The README shows this diagram: a change to it is approved on purpose.
  const std::string committed = std::string(KMC_SOURCE_DIR) + "/docs/gpu-hunter-trace.mmd";
  if (r.out != slurp(committed)) {
    std::ofstream(committed + ".received") << r.out;
    FAIL("the diagram differs from "
         << committed << "; see the .received file beside it and approve it on purpose");
  }
  CHECK(slurp(std::string(KMC_SOURCE_DIR) + "/README.md").find("```mermaid\n" + r.out + "```") !=
        std::string::npos);
}

TEST_CASE("render: --out writes the diagram to a file", "[cli][render]") {
  const std::string trace = trace_of("check examples/gpu-hunter");
  const std::string out = temp_path("diagram.mmd");
  auto r = kmc("render " + trace + " --format mermaid --out " + out);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  CHECK(slurp(out).rfind("sequenceDiagram\n", 0) == 0);
}

TEST_CASE("render: a lasso shows where its loop starts and that the rest repeats forever",
          "[cli][render][liveness]") {
  // The fixed fleet with an autoscaler that need never answer retries forever (README, Liveness).
  const std::string trace = trace_of("check examples/gpu-hunter-fixed --property eventually-runs");
  const auto itf = nlohmann::json::parse(slurp(trace));
  REQUIRE(itf.contains("loop"));
  const auto loop = itf["loop"].get<std::size_t>();
  auto m = kmc("render " + trace + " --format mermaid");
  REQUIRE(m.code == 0);
  check_mermaid(m.out);
  check_in_order(m.out, {"loop from state " + std::to_string(loop) + ", repeats forever",
                         ": " + std::to_string(loop + 1) + ". ", "\n    end\n",
                         "eventually-runs is violated"});
  auto t = kmc("render " + trace);
  REQUIRE(t.code == 0);
  check_in_order(t.out, {"loop from state " + std::to_string(loop) + ", repeats forever:", "\n  |",
                         std::to_string(loop + 1) + ". ",
                         "end of loop: back to state " + std::to_string(loop)});
}

TEST_CASE("render: every action kind draws its line between the right lanes", "[cli][render]") {
  auto r = kmc("render " + every_action_trace() + " --format mermaid");
  REQUIRE(r.code == 0);
  check_mermaid(r.out);
  check_in_order(
      r.out,
      {
          "manager->>manager: 1. reserve quota for j on cq (f)",
          "manager->>manager: 2. dispatcher nominates w1 for j",
          "manager->>manager: 3. next dispatch round nominates w2 for j",
          "snapshot->>manager: 4. view shows room on w1: nominate it for j",
          "manager->>manager: 5. drop the rejected copies of j (w2) and nominate again",
          "manager->>w1: 6. create remote Workload j",
          "w1->>w1: 7. reserve quota for j on cq (f)",
          "w1->>a1: create ProvisioningRequest for j",
          "a1->>w1: 8. ProvisioningRequest for j Accepted (no capacity yet)",
          "a1->>w1: 9. ProvisioningRequest for j Failed: quota released, check Retry, requeued",
          "w1->>w1: 10. ProvisioningRequest for j timed out, counted as Failed: check Rejected",
          "a1->>w1: 11. ProvisioningRequest for j Provisioned: nodes booked, Workload Admitted",
          "w1->>manager: 12. copy of j is Admitted: MultiKueue selects w1",
          "w1->>w1: 13. pods of j start running",
          "Note over w1: 14. spot reclaim",
          "Note over w1: 15. capacity lost: the idle f nodes are gone, free gpu 8 to 0",
          "w1->>snapshot: 16. refresh the view of w1: f gpu 8 to 0",
          "manager->>manager: 17. copy of j on w1 is gone: MultiKueue check Retry",
          "w1->>manager: 18. j finished",
          "Note over user,a2: no-stuck-job is violated: made by hand",
      });
}

TEST_CASE("render: Mermaid's ';' and '#' in a message are escaped", "[cli][render]") {
  const std::string trace = write_temp("odd.itf.json", R"({
    "#meta": {"property": "no-stuck-job", "detail": "a; b # c <d>"},
    "vars": ["mbt::actionTaken", "mbt::nondetPicks", "ns/j#1 @manager", "ns/j#1 @w;1"],
    "states": [
      {"mbt::actionTaken": "init", "mbt::nondetPicks": {}, "ns/j#1 @manager": "Pending", "ns/j#1 @w;1": "-"},
      {"mbt::actionTaken": "CreateRemoteWorkload", "mbt::nondetPicks": {"job": "ns/j#1", "cluster": "w;1"},
       "ns/j#1 @manager": "QuotaReserved", "ns/j#1 @w;1": "Pending"}
    ]})");
  auto r = kmc("render " + trace + " --format mermaid");
  REQUIRE(r.code == 0);
  check_mermaid(r.out);
  CHECK(r.out.find("a#59; b #35; c #60;d#62;") != std::string::npos);
}

TEST_CASE("render: bad input is exit 3 and names the file and the field",
          "[cli][render][bad-input]") {
  const std::string missing = temp_path("missing.itf.json");
  auto none = kmc("render " + missing);
  CHECK(none.code == 3);
  CHECK(none.err.find(missing) != std::string::npos);

  const std::string not_json = write_temp("not.json", "{\n  \"states\": [\n    oops\n");
  auto nj = kmc("render " + not_json);
  CHECK(nj.code == 3);
  CHECK(nj.err.find(not_json + ":3: not JSON") != std::string::npos);

  const std::string not_itf = write_temp("not-itf.json", R"({"kind": "Workload"})");
  auto ni = kmc("render " + not_itf);
  CHECK(ni.code == 3);
  CHECK(ni.err.find(not_itf + ": states: not an ITF trace") != std::string::npos);

  const std::string unknown = write_temp("unknown.itf.json", R"({"states": [
      {"mbt::actionTaken": "init", "j @manager": "Pending", "j @w": "-"},
      {"mbt::actionTaken": "Teleport", "mbt::nondetPicks": {"job": "j"}, "j @manager": "Pending", "j @w": "-"}]})");
  auto uk = kmc("render " + unknown);
  CHECK(uk.code == 3);
  CHECK(uk.err.find(unknown + ": states[1].mbt::actionTaken: unknown action Teleport") !=
        std::string::npos);

  const std::string stray = write_temp("stray.itf.json", R"({"states": [
      {"mbt::actionTaken": "init", "j @manager": "Pending", "j @w": "-"},
      {"mbt::actionTaken": "CreateRemoteWorkload", "mbt::nondetPicks": {"job": "j", "cluster": "mars"}}]})");
  auto st = kmc("render " + stray);
  CHECK(st.code == 3);
  CHECK(st.err.find(stray + ": states[1].mbt::nondetPicks.cluster: names mars") !=
        std::string::npos);

  const std::string bad_loop = write_temp("loop.itf.json", R"({"loop": 7, "states": [
      {"mbt::actionTaken": "init", "j @manager": "Pending", "j @w": "-"}]})");
  auto bl = kmc("render " + bad_loop);
  CHECK(bl.code == 3);
  CHECK(bl.err.find(bad_loop + ": loop:") != std::string::npos);

  const std::string trace = trace_of("check examples/gpu-hunter");
  auto fmt = kmc("render " + trace + " --format svg");
  CHECK(fmt.code == 3);
  CHECK(fmt.err.find("--format: unknown format svg") != std::string::npos);
  CHECK(kmc("render").code == 3);
}
