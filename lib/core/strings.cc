#include "core/strings.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace dtplan::core {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view trim(std::string_view text) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string join(std::span<const std::string> parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

Result<std::int64_t> parse_int(std::string_view text, std::string_view what) {
  std::string_view t = trim(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec == std::errc::invalid_argument || ptr != t.data() + t.size()) {
    return Error::bad_input(std::string(what) + ": '" + std::string(text) + "' is not an integer");
  }
  if (ec == std::errc::result_out_of_range) {
    return Error::bad_input(std::string(what) + ": '" + std::string(text) +
                            "' does not fit in a 64-bit integer");
  }
  return value;
}

Result<std::vector<std::int64_t>> parse_int_list(std::string_view text, std::string_view what) {
  if (trim(text).empty()) return Error::bad_input(std::string(what) + ": empty list");
  std::vector<std::int64_t> out;
  for (std::string_view piece : split(text, ',')) {
    DTPLAN_TRY(std::int64_t v, parse_int(piece, what));
    out.push_back(v);
  }
  return out;
}

Result<std::vector<std::string>> parse_name_list(std::string_view text, std::string_view what) {
  std::vector<std::string> out;
  for (std::string_view piece : split(text, ',')) {
    std::string_view name = trim(piece);
    if (name.empty()) {
      return Error::bad_input(std::string(what) + ": empty name in '" + escape_controls(text) +
                              "'");
    }
    DTPLAN_CHECK(check_no_control_chars(name, what));
    out.emplace_back(name);
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions.
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(n, m);
}

std::optional<std::string> closest_name(std::string_view text,
                                        std::span<const std::string> candidates) {
  std::size_t limit = std::max<std::size_t>(1, text.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(text, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string format_int_list(std::span<const std::int64_t> values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "]";
}

namespace {

// The control character starting at text[i] and its length in bytes, or {0, 0}.
std::pair<char32_t, std::size_t> control_at(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x20 || c == 0x7f) return {c, 1};
  if (c == 0xc2 && i + 1 < text.size()) {
    const auto next = static_cast<unsigned char>(text[i + 1]);
    if (next >= 0x80 && next <= 0x9f) return {next, 2};
  }
  return {0, 0};
}

}  // namespace

std::optional<char32_t> find_control_char(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (auto [c, n] = control_at(text, i); n > 0) return c;
  }
  return std::nullopt;
}

std::string code_point_name(char32_t c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "U+";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xf];
  return out;
}

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    auto [c, n] = control_at(text, i);
    if (n == 0) {
      out += text[i++];
      continue;
    }
    out += "<" + code_point_name(c) + ">";
    i += n;
  }
  return out;
}

Status check_no_control_chars(std::string_view text, std::string_view what) {
  if (auto c = find_control_char(text)) {
    return Error::bad_input(std::string(what) + ": '" + escape_controls(text) +
                            "' contains the control character " + code_point_name(*c));
  }
  return {};
}

}  // namespace dtplan::core
