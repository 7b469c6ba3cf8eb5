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

// A hand-made typed ITF state (the fields render reads) for one job on
// some workers; what a Hand leaves out reads as no copy, not nominated.
struct Hand {
  std::string phase = "Pending", cluster;
  std::map<std::string, std::int64_t> nominated;
  std::map<std::string, std::string> remote, prov;
  std::int64_t usage_manager = 0, usage_w1 = 0, free = 8, snapshot = 8;
};

nlohmann::json tup(const std::vector<std::string>& names) {
  return {{"#tup", names}};
}

nlohmann::json typed_state(const Hand& h, const std::string& job = "j",
                           const std::vector<std::string>& workers = {"w1", "w2"}) {
  using J = nlohmann::json;
  // [key, value]: a pair, spelled out so that it does not read as an object.
  auto entry = [](J key, J value) { return J::array({std::move(key), std::move(value)}); };
  auto map = [](std::vector<J> entries) { return J{{"#map", J(entries)}}; };
  std::vector<J> nominated, remote, prov;
  for (const auto& w : workers) {
    nominated.push_back(entry(tup({job, w}), h.nominated.count(w) ? h.nominated.at(w) : 0));
    remote.push_back(entry(tup({job, w}), h.remote.count(w) ? h.remote.at(w) : "None"));
    prov.push_back(entry(tup({job, w}), h.prov.count(w) ? h.prov.at(w) : "None"));
  }
  const std::string w = workers.front();
  J st = J::object();
  st["phase"] = map({entry(job, h.phase)});
  st["cluster"] = map({entry(job, h.cluster)});
  st["nominated"] = map(nominated);
  st["remote"] = map(remote);
  st["prov"] = map(prov);
  st["usage"] = map({entry(tup({"manager/cq", "f", "gpu"}), h.usage_manager),
                     entry(tup({w + "/cq", "f", "gpu"}), h.usage_w1)});
  st["capacity"] = map({entry(tup({w, "f", "gpu"}), h.free)});
  st["snapshot"] = map({entry(tup({w, "f", "gpu"}), h.snapshot)});
  return st;
}

// Every MultiKueue action, one after another: not a behaviour the model
// allows, but each kind must draw its line between the right lanes.
std::string every_action_trace() {
  Hand h;
  nlohmann::json doc;
  doc["#meta"] = {{"property", "no-stuck-job"}, {"detail", "made by hand"}};
  auto step = [&](const std::string& kind, const std::string& cluster, auto&& change) {
    change(h);
    nlohmann::json st = typed_state(h);
    st["mbt::actionTaken"] = kind;
    st["mbt::nondetPicks"] = {{"job", "j"}};
    if (!cluster.empty()) st["mbt::nondetPicks"]["cluster"] = cluster;
    if (kind == "CapacityLost") st["mbt::nondetPicks"] = {{"cluster", cluster}, {"flavor", "f"}};
    if (kind == "RefreshSnapshot") st["mbt::nondetPicks"] = {{"cluster", cluster}};
    doc["states"].push_back(st);
  };
  auto none = [](Hand&) {};
  step("init", "", none);
  step("ReserveQuota", "", [](Hand& x) { x.phase = "QuotaReserved", x.usage_manager = 8; });
  step("Nominate", "", [](Hand& x) { x.nominated["w1"] = 1; });
  step("NominateNextRound", "", [](Hand& x) { x.nominated["w2"] = 1; });
  step("NominateWorker", "w1", none);
  step("Renominate", "", [](Hand& x) { x.nominated["w2"] = 0; });
  step("CreateRemoteWorkload", "w1", [](Hand& x) { x.remote["w1"] = "Pending"; });
  step("ReserveQuotaOnWorker", "w1", [](Hand& x) {
    x.remote["w1"] = "QuotaReserved", x.prov["w1"] = "Requested", x.usage_w1 = 8;
  });
  step("ProvisioningAccepted", "w1", [](Hand& x) { x.prov["w1"] = "Accepted"; });
  step("ProvisioningFailed", "w1",
       [](Hand& x) { x.remote["w1"] = "Pending", x.prov["w1"] = "None"; });
  step("ProvisioningTimeout", "w1", [](Hand& x) { x.remote["w1"] = "Rejected"; });
  step("ProvisioningProvisioned", "w1", [](Hand& x) {
    x.remote["w1"] = "Admitted", x.prov["w1"] = "Provisioned", x.nominated["w1"] = 0;
  });
  step("SelectWorker", "w1", [](Hand& x) { x.phase = "Admitted", x.cluster = "w1"; });
  step("JobStarted", "w1", [](Hand& x) { x.remote["w1"] = "Running"; });
  step("SpotReclaim", "w1", [](Hand& x) { x.remote["w1"] = "Pending", x.prov["w1"] = "None"; });
  step("CapacityLost", "w1", [](Hand& x) { x.free = 0; });
  step("RefreshSnapshot", "w1", [](Hand& x) { x.snapshot = 0; });
  step("RetryDispatch", "w1", [](Hand& x) { x.phase = "Pending", x.remote["w1"] = "None"; });
  step("JobFinished", "w1", [](Hand& x) { x.phase = "Finished"; });
  return write_temp("every-action.itf.json", doc.dump(2));
}

// A trace of hand-made states: each (action, picks) over typed_state(Hand{}).
std::string hand_trace(const std::string& name,
                       const std::vector<std::pair<std::string, nlohmann::json>>& steps,
                       const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json doc = extra;
  for (const auto& [kind, picks] : steps) {
    nlohmann::json st = typed_state(Hand{}, "j", {"w"});
    st["mbt::actionTaken"] = kind;
    st["mbt::nondetPicks"] = picks;
    doc["states"].push_back(st);
  }
  return write_temp(name, doc.dump(2));
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
  nlohmann::json doc;
  doc["#meta"] = {{"property", "no-stuck-job"}, {"detail", "a; b # c <d>"}};
  doc["states"].push_back(typed_state(Hand{}, "ns/j#1", {"w;1"}));
  doc["states"][0]["mbt::actionTaken"] = "init";
  Hand created;
  created.phase = "QuotaReserved";
  created.remote["w;1"] = "Pending";
  doc["states"].push_back(typed_state(created, "ns/j#1", {"w;1"}));
  doc["states"][1]["mbt::actionTaken"] = "CreateRemoteWorkload";
  doc["states"][1]["mbt::nondetPicks"] = {{"job", "ns/j#1"}, {"cluster", "w;1"}};
  const std::string trace = write_temp("odd.itf.json", doc.dump(2));
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
  CHECK(names_line(ni.err, not_itf, "states"));
  CHECK(ni.err.find("not an ITF trace") != std::string::npos);

  const std::string unknown = hand_trace(
      "unknown.itf.json", {{"init", nlohmann::json::object()}, {"Teleport", {{"job", "j"}}}});
  auto uk = kmc("render " + unknown);
  CHECK(uk.code == 3);
  CHECK(names_line(uk.err, unknown, "states[1].mbt::actionTaken"));
  CHECK(uk.err.find("'Teleport' is not an action of this protocol") != std::string::npos);

  const std::string stray =
      hand_trace("stray.itf.json", {{"init", nlohmann::json::object()},
                                    {"CreateRemoteWorkload", {{"job", "j"}, {"cluster", "mars"}}}});
  auto st = kmc("render " + stray);
  CHECK(st.code == 3);
  CHECK(names_line(st.err, stray, "states[1].mbt::nondetPicks.cluster"));
  CHECK(st.err.find("no worker named 'mars'") != std::string::npos);

  const std::string bad_loop =
      hand_trace("loop.itf.json", {{"init", nlohmann::json::object()}}, {{"loop", 7}});
  auto bl = kmc("render " + bad_loop);
  CHECK(bl.code == 3);
  CHECK(names_line(bl.err, bad_loop, "loop"));

  const std::string trace = trace_of("check examples/gpu-hunter");
  auto fmt = kmc("render " + trace + " --format svg");
  CHECK(fmt.code == 3);
  CHECK(fmt.err.find("--format: unknown format svg") != std::string::npos);
  CHECK(kmc("render").code == 3);
}

// A trace the reader cannot use is exit 3 naming the file, the state's line
// and states[N].FIELD: a cell left out, an English value where a typed one belongs.
TEST_CASE("render: a missing or mistyped cell names states[N].field", "[cli][render][bad-input]") {
  const std::string trace = trace_of("check examples/gpu-hunter");
  const auto good = nlohmann::json::parse(slurp(trace));
  auto broken = [&](const std::string& name, auto&& edit) {
    nlohmann::json doc = good;
    edit(doc["states"][2]);
    return write_temp(name, doc.dump(2));
  };
  const std::string no_remote =
      broken("no-remote.itf.json", [](nlohmann::json& s) { s.erase("remote"); });
  auto r = kmc("render " + no_remote);
  CHECK(r.code == 3);
  CHECK(
      std::regex_search(r.err, std::regex(no_remote + ":[0-9]+: states\\[2\\]\\.remote: missing")));
  const std::string english = broken("english.itf.json", [](nlohmann::json& s) {
    s["remote"]["#map"][0][1] = "QuotaReserved, ProvisioningRequest Requested, nominated";
  });
  r = kmc("render " + english);
  CHECK(r.code == 3);
  CHECK(r.err.find("states[2].remote: 'QuotaReserved, ProvisioningRequest Requested, nominated' is "
                   "not one of None,") != std::string::npos);
  const std::string quantity =
      broken("quantity.itf.json", [](nlohmann::json& s) { s["capacity"]["#map"][0][1] = "96"; });
  r = kmc("render " + quantity);
  CHECK(r.code == 3);
  CHECK(r.err.find("states[2].capacity: expected an integer") != std::string::npos);
}
