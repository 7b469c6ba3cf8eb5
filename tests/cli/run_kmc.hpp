// Runs the real `kmc` binary, as a user or CI would, and captures its
// stdout, stderr and exit code.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

struct Run {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Whether `text` contains `part` (an output line, a field name).
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// How many times `what` occurs in `text`, overlaps included.
inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A path no other test run uses, under the system's temporary folder
// (STYLE.md: tests never write to a fixed /tmp path).
inline std::string temp_path(const std::string& name) {
  static int n = 0;
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/kmc-" + std::to_string(::getpid()) + "-" +
         std::to_string(n++) + "-" + name;
}

// `prefix` goes before the binary: "timeout 5" fails a run that hangs (exit 124).
// Whether `message` says "FILE:LINE: FIELD: " with a line past 0, as every
// exit-3 message about a field of a file starts.
inline bool names_line(const std::string& message, const std::string& file,
                       const std::string& field) {
  const std::string head = file + ":";
  for (auto at = message.find(head); at != std::string::npos; at = message.find(head, at + 1)) {
    std::size_t digits = at + head.size();
    while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9') ++digits;
    if (digits == at + head.size() || message[at + head.size()] == '0') continue;
    if (message.compare(digits, field.size() + 4, ": " + field + ": ") == 0) return true;
  }
  return false;
}

inline Run kmc(const std::string& args, const std::string& prefix = "") {
  static int n = 0;
  const std::string base =
      "/tmp/kmc-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
  const std::string cmd = prefix + (prefix.empty() ? "" : " ") + std::string(KMC_BINARY) + " " +
                          args + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// A temporary copy of folder `source`, with its file `rel` holding `text`.
inline std::string folder_with(const std::string& source, const std::string& rel,
                               const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path dir = temp_path("example-" + fs::path(source).filename().string());
  fs::remove_all(dir);
  fs::copy(source, dir, fs::copy_options::recursive);
  std::ofstream(dir / rel) << text;
  return dir.string();
}

// The same of examples/<example>.
inline std::string example_with(const std::string& example, const std::string& rel,
                                const std::string& text) {
  return folder_with(std::string(KMC_SOURCE_DIR) + "/examples/" + example, rel, text);
}

// The text of examples/<example>/<rel> with `from` replaced by `to`; throws
// when `from` is not there.
inline std::string example_text_replacing(const std::string& example, const std::string& rel,
                                          const std::string& from, const std::string& to) {
  std::string text = slurp(std::string(KMC_SOURCE_DIR) + "/examples/" + example + "/" + rel);
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error(rel + " holds no '" + from + "'");
  text.replace(at, from.size(), to);
  return text;
}

// example_with, that file's text with `from` replaced by `to`.
inline std::string example_replacing(const std::string& example, const std::string& rel,
                                     const std::string& from, const std::string& to) {
  return example_with(example, rel, example_text_replacing(example, rel, from, to));
}
