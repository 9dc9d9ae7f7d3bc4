#include "core/json_io.h"

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <utility>

#include "core/strings.h"

namespace dtplan::core {

namespace {

using Json = nlohmann::ordered_json;

// nlohmann's DOM builder behind a SAX handler that also checks what nlohmann lets through: a key
// given twice in one object and control characters in keys and strings. It keeps one frame per
// open object or array (reused, so that a document costs no allocation per container); the path
// of a value is the keys and indexes of the frames above it. The first fault stops the parse.
class CheckingSax {
 public:
  explicit CheckingSax(Json& result) : dom_(result, /*allow_exceptions=*/true) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool v) { return value(dom_.boolean(v)); }
  bool number_integer(Json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t& text) {
    return value(dom_.number_float(v, text));
  }
  bool string(Json::string_t& text) { return check_text(text) && value(dom_.string(text)); }
  bool binary(Json::binary_t& data) { return value(dom_.binary(data)); }

  bool start_object(std::size_t size) {
    push(Container::kObject);
    return dom_.start_object(size);
  }
  bool key(Json::string_t& key) {
    frames_[depth_ - 1].keys.push_back(key);
    return check_text(key) && dom_.key(key);
  }
  bool end_object() {
    if (!check_duplicates()) return false;
    --depth_;
    return value(dom_.end_object());
  }
  bool start_array(std::size_t size) {
    push(Container::kArray);
    return dom_.start_array(size);
  }
  bool end_array() {
    --depth_;
    return value(dom_.end_array());
  }

  // Syntax errors: nlohmann's DOM builder throws them (parse_error, or out_of_range for 1e999).
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);
  }

  // The first fault: the path of its field and what is wrong.
  [[nodiscard]] const std::optional<std::pair<std::string, std::string>>& fault() const {
    return fault_;
  }

 private:
  enum class Container : std::uint8_t { kObject, kArray };

  struct Frame {
    Container kind = Container::kObject;
    std::size_t index = 0;          // arrays: the element being read
    std::vector<std::string> keys;  // objects: every key so far, in document order
  };

  void push(Container kind) {
    if (depth_ == frames_.size()) frames_.emplace_back();
    Frame& f = frames_[depth_++];
    f.kind = kind;
    f.index = 0;
    f.keys.clear();
  }

  // A value of the enclosing container is complete.
  bool value(bool ok) {
    if (depth_ > 0 && frames_[depth_ - 1].kind == Container::kArray) ++frames_[depth_ - 1].index;
    return ok;
  }

  // An error at the current path when `text` holds a control character.
  bool check_text(const std::string& text) {
    const std::optional<char32_t> c = find_control_char(text);
    if (!c) return true;
    fault_.emplace(path(), "control character " + code_point_name(*c) +
                               " in a string (not allowed in input: names and text print on "
                               "one line)");
    return false;
  }

  // An error naming the first key of the closing object that repeats an earlier one.
  bool check_duplicates() {
    Frame& top = frames_[depth_ - 1];
    sorted_.assign(top.keys.begin(), top.keys.end());
    std::sort(sorted_.begin(), sorted_.end());
    if (std::adjacent_find(sorted_.begin(), sorted_.end()) == sorted_.end()) return true;
    std::unordered_set<std::string_view> seen;
    for (std::size_t i = 0; i < top.keys.size(); ++i) {
      if (seen.insert(top.keys[i]).second) continue;
      const std::string key = top.keys[i];
      top.keys.push_back(key);  // path() names the repeated key
      fault_.emplace(path(), "duplicate key '" + escape_controls(key) +
                                 "' (each key may appear once per object)");
      return false;
    }
    return true;
  }

  [[nodiscard]] std::string path() const {
    std::string out;
    for (std::size_t d = 0; d < depth_; ++d) {
      const Frame& f = frames_[d];
      if (f.kind == Container::kArray) {
        out = index_path(out, f.index);
      } else if (!f.keys.empty()) {
        out = join_path(out, escape_controls(f.keys.back()));
      }
    }
    return out;
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::vector<Frame> frames_;
  std::size_t depth_ = 0;
  std::vector<std::string_view> sorted_;  // check_duplicates' scratch space
  std::optional<std::pair<std::string, std::string>> fault_;
};

// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string parse_message(const Json::exception& e) {
  std::string what = e.what();
  if (what.starts_with("[json.exception.")) {
    const std::size_t end = what.find("] ");
    if (end != std::string::npos) what.erase(0, end + 2);
  }
  return escape_controls(what);
}

}  // namespace

Result<Json> parse_json(std::string_view text, std::string_view source) {
  const std::string prefix = source.empty() ? "" : std::string(source) + ": ";
  Json doc;
  CheckingSax sax(doc);
  try {
    Json::sax_parse(text, &sax);
  } catch (const Json::exception& e) {  // parse_error, or out_of_range for 1e999
    return Error::bad_input(prefix + "invalid JSON: " + parse_message(e));
  }
  if (const auto& fault = sax.fault()) {
    const std::string field = fault->first.empty() ? "" : "field '" + fault->first + "': ";
    return Error::bad_input(prefix + field + fault->second);
  }
  return doc;
}

}  // namespace dtplan::core
