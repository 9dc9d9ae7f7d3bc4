#pragma once
// Whole-file reading for the loaders, with the error every loader gives for an unreadable file.
//
//   DTPLAN_TRY(std::string text, core::read_text_file("plan.json", "plan file"));
//   // error: "cannot read the plan file plan.json: No such file or directory"
#include <string>
#include <string_view>

#include "core/result.h"

namespace dtplan::core {

// @post errors: kBadInput naming `what`, the path and the system's reason.
Result<std::string> read_text_file(const std::string& path, std::string_view what);

// Writes `text` to `path` whole: to a temporary file beside it, then renamed over it, so a failed
// write leaves any existing file as it was.
// @post errors: kBadInput naming `what`, the path and the system's reason.
Status write_text_file(const std::string& path, std::string_view text, std::string_view what);

}  // namespace dtplan::core
