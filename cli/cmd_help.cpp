// The conventions a command-line tool owes its users: `kmc` alone and
// `kmc help [TOPIC]` print help and exit 0, `kmc --version` names the Kueue
// commit the semantics follow, and `kmc completion bash` prints a completion
// script made from the commands and options actually registered, so it can
// never list an option that does not exist.
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/version.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cli {

namespace {

// kmc.yaml's own properties: the language, and the cells MultiKueue's can name, from its schema.
std::string properties_help() {
  std::string out =
      "kmc.yaml may add properties over the protocol's typed cells (README, \"Your own "
      "properties\"):\n"
      "  properties:\n"
      "    - name: copies-run-where-selected\n"
      "      always: \"all j: job. all w: worker. remote[j, w] == Running => cluster[j] == w\"\n"
      "    - name: double-quota\n"
      "      sometimes: \"some j: job. (count w: worker. remote[j, w] == Admitted) >= 2\"\n"
      "    - name: admitted-runs\n"
      "      leadsTo: {from: \"phase[j] == Admitted\", to: \"some w: worker. remote[j, w] == "
      "Running\", each: \"j: job\"}\n"
      "Quantifiers all, some, no, count, sum over an axis; => || && ! (or, and, not);\n"
      "== != < <= > >=, x in {A, B}, + -. Cells by entity name or bound variable; phases and\n"
      "entities compared with a cell are that cell's names (none: unset).\n"
      "MultiKueue's cells (field[axes]: values):\n";
  for (const auto& f : protocols::MultiKueue::cell_fields()) {
    out += fmt::format("  {}[{}]", f.field, fmt::join(f.axes, ", "));
    if (f.kind == model::CellKind::Enum) out += fmt::format(": {}", fmt::join(f.values, " | "));
    if (f.kind == model::CellKind::Name) out += ": an entity name, or none";
    if (f.kind == model::CellKind::Int) out += ": an integer";
    out += "\n";
  }
  return out;
}

// Topics that are not a command: what people look up between runs.
const std::map<std::string, std::string>& topics() {
  static const std::map<std::string, std::string> t = {
      {"exit-codes",
       "Every kmc command exits with:\n"
       "  0  Verified (check, matrix, corpus, diff without new violations), Reproduced (replay),\n"
       "     every expectation met (admit --expect)\n"
       "  1  Violated, Diverged, a changed corpus entry, a new violation (diff), an expectation\n"
       "     not met (admit --expect)\n"
       "  2  Incomplete: a bound was hit (--max-depth, --max-states, --time-limit, --max-memory,\n"
       "     a signal); never Verified, and the report says what was proven within it\n"
       "  3  bad input or usage: the message names FILE:LINE: FIELD\n"
       "A liveness property whose premise never holds (no worker could ever run the job) is\n"
       "Vacuous: it says nothing, so it fails nothing; the other properties decide the exit.\n"},
      {"dump",
       "A scenario is Kueue's objects as kubectl prints them. To dump one cluster:\n"
       "  kubectl get resourceflavors,clusterqueues,cohorts,workloadpriorityclasses,\\\n"
       "    admissionchecks,provisioningrequestconfigs -o yaml > cluster.yaml\n"
       "  kubectl get namespaces,localqueues,workloads,jobs -A -o yaml > queued.yaml\n"
       "  kubectl -n kueue-system get configmap kueue-manager-config -o yaml > config.yaml\n"
       "With the pod integration, the Pods Kueue gates carry kueue.x-k8s.io/managed=true:\n"
       "  kubectl get pods -A -l kueue.x-k8s.io/managed=true -o yaml > pods.yaml\n"
       "The Namespaces carry the labels namespace selectors read. A Workload and the Job\n"
       "that owns it are one job: kmc keeps the Workload (it has the status) and drops its\n"
       "owner with a note. `kmc admit -` reads a dump from standard input:\n"
       "  kubectl get clusterqueues,localqueues,resourceflavors,workloads -A -o yaml | kmc admit "
       "-\n"
       "For kmc check, put each cluster's files in manager/ and workers/<cluster>/ beside a\n"
       "kmc.yaml (see examples/gpu-hunter).\n"},
      {"properties", properties_help()},
      {"ci",
       "In CI:\n"
       "  kmc check DIR --output junit > kmc.xml      one testcase per property\n"
       "  kmc check DIR --output sarif > kmc.sarif    results located at the manifests' lines\n"
       "  (a Vacuous property is a skipped testcase, a SARIF result of kind notApplicable)\n"
       "  kmc matrix DIR --output junit|sarif         one testcase per cell\n"
       "  kmc corpus check --output junit             one testcase per entry\n"
       "  kmc admit DIR --expect admitted=NS/NAME,pending=NS/NAME   exit 1 unless so\n"
       "  kmc diff OLD NEW                            which verdicts a change turns\n"
       "docs/ci/kmc.yml is a GitHub Actions workflow that runs these on a pull request.\n"},
  };
  return t;
}

int print_help(CLI::App& app, const std::string& topic) {
  if (topic.empty()) {
    std::cout << app.help();
    std::cout << "\nTopics: kmc help COMMAND, or one of:";
    for (const auto& [name, text] : topics()) std::cout << " " << name;
    std::cout << "\n";
    return 0;
  }
  if (auto it = topics().find(topic); it != topics().end()) {
    std::cout << it->second;
    return 0;
  }
  for (const auto* sub : app.get_subcommands({}))
    if (sub->get_name() == topic && topic != "help") {
      std::cout << sub->help();
      return 0;
    }
  std::string known;
  for (const auto* sub : app.get_subcommands({})) known += " " + sub->get_name();
  for (const auto& [name, text] : topics()) known += " " + name;
  fmt::print(stderr, "error: <command line>: help: no command or topic '{}'; one of:{}\n", topic,
             known);
  return 3;
}

// Bash completion from the registered commands and their options.
std::string bash_completion(CLI::App& app) {
  std::string commands, cases;
  for (const auto* sub : app.get_subcommands({})) {
    commands += " " + sub->get_name();
    std::string options;
    for (const auto* opt : sub->get_options())
      for (const auto& name : opt->get_lnames())
        if (name != "help") options += " --" + name;
    cases += fmt::format("    {}) opts=\"{} --help\" ;;\n", sub->get_name(), options);
  }
  return fmt::format(
      "# kmc bash completion: eval \"$(kmc completion bash)\" or save it to\n"
      "# /etc/bash_completion.d/kmc\n"
      "_kmc() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} opts\n"
      "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
      "    COMPREPLY=($(compgen -W \"{} --version --help\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  case ${{COMP_WORDS[1]}} in\n"
      "{}"
      "    *) opts=\"\" ;;\n"
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}}\n"
      "complete -o filenames -F _kmc kmc\n",
      commands, cases);
}

}  // namespace

std::string version_text() {
  return fmt::format(
      "kmc {}\nKueue semantics: kubernetes-sigs/kueue at {} (the v0.20 line; "
      "kueue.x-k8s.io/v1beta2)\n",
      kVersion, kKueueCommit);
}

void add_help_command(CLI::App& app, int& exit_code) {
  auto topic = std::make_shared<std::string>();
  auto* help =
      app.add_subcommand("help", "Help on a command or a topic (exit-codes, dump, ci, properties)");
  help->add_option("topic", *topic, "A command, or exit-codes, dump, ci, properties");
  help->callback([&app, topic, &exit_code] { exit_code = print_help(app, *topic); });

  auto shell = std::make_shared<std::string>();
  auto* completion =
      app.add_subcommand("completion", "Print a shell completion script (bash): eval it");
  completion->add_option("shell", *shell, "bash")->required();
  completion->callback([&app, shell, &exit_code] {
    if (*shell != "bash") {
      fmt::print(stderr,
                 "error: <command line>: completion: must be bash (got '{}'); zsh reads it "
                 "too with bashcompinit\n",
                 *shell);
      exit_code = 3;
      return;
    }
    std::cout << bash_completion(app);
    exit_code = 0;
  });
}

}  // namespace kmc::cli
