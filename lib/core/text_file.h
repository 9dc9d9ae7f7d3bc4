#pragma once
// Whole-file reading for the loaders, with the error every loader gives for an unreadable file.
// (Files are written by core/output_file.h.)
//
//   DTPLAN_TRY(std::string text, core::read_text_file("plan.json", "plan file"));
//   // error: "cannot read the plan file plan.json: No such file or directory"
//
// Every input file is read whole and then parsed, so its size is capped (kMaxInputBytes, or the
// environment variable DTPLAN_MAX_INPUT_BYTES): reading stops one byte past the cap, so that a
// huge file, /dev/zero or an endless pipe is refused at once instead of filling memory.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace dtplan::core {

// The environment variable that replaces kMaxInputBytes, a size such as 1GiB.
inline constexpr std::string_view kMaxInputBytesVariable = "DTPLAN_MAX_INPUT_BYTES";

// The input cap in force: DTPLAN_MAX_INPUT_BYTES when set, else kMaxInputBytes.
// @post errors: kBadInput when the variable is not a size >= 1 (naming the variable).
Result<std::int64_t> max_input_bytes();

// Reads the file at `path` whole, at most max_input_bytes() bytes.
// @post errors: kBadInput naming `what`, the path and the system's reason, or the cap:
//   "cannot read the plan file /dev/zero: larger than the input limit of 167772160 bytes
//    (kMaxInputBytes in core/limits.h; set DTPLAN_MAX_INPUT_BYTES to raise it)".
Result<std::string> read_text_file(const std::string& path, std::string_view what);

// The same with an explicit cap (max_bytes >= 0).
Result<std::string> read_text_file(const std::string& path, std::string_view what,
                                   std::int64_t max_bytes);

}  // namespace dtplan::core
