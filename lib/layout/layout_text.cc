#include "layout/layout_text.h"

#include <cctype>
#include <string>

#include "core/limits.h"

namespace dtplan::layout {

namespace {

constexpr int kMaxDepth = core::kMaxLayoutDepth;

// Recursive-descent parser over one text; `pos` is the next character to read.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  core::Result<IntTuple> tuple(int depth) {
    skip_space();
    if (pos_ >= text_.size()) return fail("expected an integer or '('");
    if (text_[pos_] != '(') return integer();
    if (depth >= kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth) +
                  core::limit_note("kMaxLayoutDepth"));
    ++pos_;
    std::vector<IntTuple> elems;
    skip_space();
    if (peek(')')) {
      ++pos_;
      return IntTuple::tuple(std::move(elems));
    }
    while (true) {
      DTPLAN_TRY(IntTuple e, tuple(depth + 1));
      elems.push_back(std::move(e));
      skip_space();
      if (peek(')')) {
        ++pos_;
        return IntTuple::tuple(std::move(elems));
      }
      if (!peek(',')) return fail("expected ',' or ')'");
      ++pos_;
      skip_space();
      if (peek(')') && elems.size() == 1) {  // Python's one-element tuple `(4,)`
        ++pos_;
        return IntTuple::tuple(std::move(elems));
      }
    }
  }

  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  void advance() { ++pos_; }

  core::Error fail(const std::string& what) const {
    return core::Error::bad_input("layout '" + std::string(text_) + "': " + what + " at position " +
                                  std::to_string(pos_));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

 private:
  core::Result<IntTuple> integer() {
    std::size_t start = pos_;
    std::int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, digit, &value)) {
        pos_ = start;
        return fail("integer overflows 64 bits");
      }
      ++pos_;
    }
    if (pos_ == start) return fail("expected an integer or '('");
    return IntTuple(value);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string to_string(const Layout& l) {
  return to_string(l.shape()) + ":" + to_string(l.stride());
}

core::Result<IntTuple> parse_int_tuple(std::string_view text) {
  Parser p(text);
  DTPLAN_TRY(IntTuple t, p.tuple(0));
  if (!p.at_end()) return p.fail("unexpected text");
  return t;
}

core::Result<Layout> parse_layout(std::string_view text) {
  Parser p(text);
  DTPLAN_TRY(IntTuple shape, p.tuple(0));
  p.skip_space();
  if (!p.peek(':')) return p.fail("expected ':' between sizes and strides");
  p.advance();
  DTPLAN_TRY(IntTuple stride, p.tuple(0));
  if (!p.at_end()) return p.fail("unexpected text");
  return Layout::make(std::move(shape), std::move(stride));
}

}  // namespace dtplan::layout
