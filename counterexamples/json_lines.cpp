#include "counterexamples/json_lines.hpp"

#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

namespace kmc::cx {

namespace {

// A character iterator over the text that counts the newlines it has passed:
// when the parser reports an event, the count is the line of the token it has
// just read (a key's closing quote, an element's opening brace).
struct CountingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* at = nullptr;
  int* newlines = nullptr;
  reference operator*() const { return *at; }
  CountingIterator& operator++() {
    if (*at == '\n') ++*newlines;
    ++at;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  friend bool operator==(const CountingIterator& a, const CountingIterator& b) {
    return a.at == b.at;
  }
};

// Records the line of every object key and every object or array element
// that is itself a container; scalars inside arrays are named by their
// container's line.
class LineRecorder : public nlohmann::json_sax<nlohmann::json> {
 public:
  LineRecorder(const int& newlines, std::unordered_map<std::string, int>& lines, int& error_line)
      : newlines_(newlines), lines_(lines), error_line_(error_line) {}

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    Frame& f = frames_.back();
    f.key = f.path.empty() ? k : f.path + "." + k;
    lines_.emplace(f.key, line());
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    error_line_ = line();
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t next = 0;   // arrays: the index of the next element
    std::string path, key;  // objects: the path of the value after the last key
  };

  int line() const { return newlines_ + 1; }
  // The path of the value that starts now.
  std::string value_path() {
    if (frames_.empty()) return "";
    Frame& f = frames_.back();
    if (!f.array) return f.key;
    return f.path + "[" + std::to_string(f.next++) + "]";
  }
  bool scalar() {
    value_path();
    return true;
  }
  bool open(bool array) {
    std::string path = value_path();
    if (!path.empty()) lines_.emplace(path, line());
    frames_.push_back({array, 0, std::move(path), ""});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  const int& newlines_;
  std::unordered_map<std::string, int>& lines_;
  int& error_line_;
  std::vector<Frame> frames_;
};

}  // namespace

JsonLines::JsonLines(const std::string& text) {
  int newlines = 0;
  LineRecorder recorder(newlines, lines_, error_line_);
  const CountingIterator first{text.data(), &newlines}, last{text.data() + text.size(), &newlines};
  nlohmann::json::sax_parse(first, last, &recorder);
}

int JsonLines::line_of(const std::string& path) const {
  std::string p = path;
  while (!p.empty()) {
    if (auto it = lines_.find(p); it != lines_.end()) return it->second;
    const auto cut = p.find_last_of(".[");
    if (cut == std::string::npos) break;
    p.resize(cut);
  }
  return 1;
}

}  // namespace kmc::cx
