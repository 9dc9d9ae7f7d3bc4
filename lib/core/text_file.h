#pragma once
// Whole-file reading for the loaders, with the error every loader gives for an unreadable file.
// (Files are written by core/output_file.h.)
//
//   DTPLAN_TRY(std::string text, core::read_text_file("plan.json", "plan file"));
//   // error: "cannot read the plan file plan.json: No such file or directory"
#include <string>
#include <string_view>

#include "core/result.h"

namespace dtplan::core {

// @post errors: kBadInput naming `what`, the path and the system's reason.
Result<std::string> read_text_file(const std::string& path, std::string_view what);

}  // namespace dtplan::core
