// Errors and warnings about user input, always naming file, line and field.
//
// Bad input is exit code 3 everywhere in kmc; loaders throw InputError and the
// CLI turns it into "FILE:LINE: FIELD: message" and that exit code.
#pragma once

#include <exception>
#include <string>
#include <vector>

namespace kmc::model {

struct SourcePos {
  std::string file;  // path as the user gave it (relative to the scenario dir when loaded from one)
  int line = 0;      // 1-based; 0 when unknown
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

struct Diagnostic {
  SourcePos pos;
  std::string
      field;  // dotted path, e.g. "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota"
  std::string message;  // what is wrong, in plain words
  // A warning about input kmc ignored although it could change the answer
  // (a ClusterQueue's admissionScope, a Configuration's quotaCheckStrategy):
  // `--strict` refuses such input instead of answering for a different cluster.
  bool may_change_answer = false;
  // The ignored concept, Kind.dotted.path without list indexes
  // ("ClusterQueue.spec.admissionScope"): what the summary counts places of.
  std::string concept_ = {};
  std::string to_string() const;  // "file:line: field: message"
};

struct InputError : std::exception {
  explicit InputError(Diagnostic d) : diagnostic(std::move(d)), text(diagnostic.to_string()) {}
  // The same from the parts: `throw InputError({file, line}, "field", "message")`. Throw sites use
  // this, not InputError(Diagnostic{...}): GCC 12 at -O3 (the Release build) warns, falsely,
  // -Wmaybe-uninitialized on the exception cleanup of a Diagnostic brace-built in the throw
  // expression (its pos.file "may be used uninitialized", even for `{}`; a GCC -Wuninitialized
  // false positive, meta-bug 24639). Built here, out of line, the parts are only moved in, so no
  // cleanup of a half-built aggregate is left at the call site to warn about.
  InputError(SourcePos pos, std::string field, std::string message);
  const char* what() const noexcept override { return text.c_str(); }
  Diagnostic diagnostic;
  std::string text;
};

// Warnings collected while loading: fields Kueue accepts that kmc does not model.
using Warnings = std::vector<Diagnostic>;

// A warning about input a protocol reads but does not model although it could change the answer
// (`--strict` refuses it), named by its concept so repeats collapse into one line.
Diagnostic ignored_input(SourcePos pos, std::string field, std::string concept_,
                         std::string message);

// What a command does with the loader's warnings before it answers.
// strict (`--strict`): the first warning that may change the answer becomes an
// InputError (exit 3) at its file, line and field, so no answer is given for a
// cluster kmc only partly read. Otherwise: the warnings as lines to print, one
// per place, except that warnings of one concept (or of one field and text)
// seen in several places collapse into one line with their count, so twenty
// identical cohort warnings read as one.
std::vector<std::string> review_warnings(const Warnings& warnings, bool strict);

}  // namespace kmc::model
