#pragma once
// Small text helpers shared by every parser: splitting, trimming, integer parsing with errors that
// name the input, and nearest-name suggestions ("did you mean").

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace dtplan::core {

// Splits on `sep`, keeping empty pieces. Example: split("a,,b", ',') == {"a", "", "b"}.
std::vector<std::string_view> split(std::string_view text, char sep);

// Removes leading and trailing ASCII whitespace.
std::string_view trim(std::string_view text);

// Joins with `sep`. Example: join({"dp","tp"}, "_") == "dp_tp".
std::string join(std::span<const std::string> parts, std::string_view sep);

// Decimal integer (optional sign, surrounding whitespace allowed). Errors name `what` and the text:
// "--shape: 'x2' is not an integer".
Result<std::int64_t> parse_int(std::string_view text, std::string_view what);

// Comma-separated integers, e.g. "16,16,16". An empty text is an error.
Result<std::vector<std::int64_t>> parse_int_list(std::string_view text, std::string_view what);

// Comma-separated names with surrounding spaces trimmed; empty names are an error.
Result<std::vector<std::string>> parse_name_list(std::string_view text, std::string_view what);

// Edit distance counting insertions, deletions, substitutions and adjacent transpositions as 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `text` if it is close enough to be a plausible typo (distance at most
// max(1, |text|/3)); ties go to the earliest candidate.
std::optional<std::string> closest_name(std::string_view text,
                                        std::span<const std::string> candidates);

// Formats a list of integers as "[1,2,3]".
std::string format_int_list(std::span<const std::int64_t> values);

// The first control character of UTF-8 `text`: C0 (U+0000-U+001F), DEL (U+007F) or C1
// (U+0080-U+009F, encoded C2 80-C2 9F), as its code point; nullopt when there is none. Input names
// and text may not hold them: a newline, tab or escape in a name would break the one-line tables
// and errors that print it.
std::optional<char32_t> find_control_char(std::string_view text);

// "U+0009": how messages name a code point.
std::string code_point_name(char32_t c);

// `text` with every control character of find_control_char written as "<U+XXXX>", so that any text
// prints on one line: escape_controls("a\tb") == "a<U+0009>b".
std::string escape_controls(std::string_view text);

// An error (kBadInput) when `text` holds a control character:
// "--names: 'a<U+0009>b' contains the control character U+0009". Names from flags use it.
Status check_no_control_chars(std::string_view text, std::string_view what);

}  // namespace dtplan::core
