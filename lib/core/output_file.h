#pragma once
// The one writer of the files a user names (plan --out, sweep --csv and --html, simulate --trace,
// replay --out, calibrate --out, graph and plan files): what it does depends on what the path is
// now, and the path stays what it was.
//
//   nothing yet, or a regular file   the text goes to a new file with a unique name beside it,
//                                    which is then renamed over the path: a reader sees the old
//                                    text or the new, never a part, and a failed write leaves the
//                                    old file as it was; a replaced file keeps its permission bits
//   a symbolic link                  these rules applied to the file it points to; the link stays
//   a character device or a FIFO     opened and written directly (/dev/null, a terminal, a pipe)
//   /dev/stdout, /dev/stderr,        written through this process's open descriptor N, at its
//   /dev/fd/N, /proc/self/fd/N       offset (a shell's `>>` keeps appending; nothing is renamed)
//   a directory, block device,       refused
//   socket
//
//   DTPLAN_CHECK(core::write_output_file("plan.json", text, "--out"));
//   // error (exit 1): "--out plan.json: No space left on device"
#include <string>
#include <string_view>
#include <system_error>

#include "core/result.h"

namespace dtplan::core {

// Writes `text` to `path` by the rules above; `name` says which output it is (a flag, "plan file").
// @post errors read "NAME PATH: REASON": kBadInput where the path cannot be written (a directory,
//   a missing parent directory, no permission), kInternal where writing failed (a full disk, a
//   file-size limit, a closed pipe); after an error a regular file is as it was and no temporary
//   file is left.
Status write_output_file(const std::string& path, std::string_view text, std::string_view name);

// Writes all of `text` to the open descriptor `fd`, resuming after partial writes and interrupts.
// @return the error of the write that failed; empty when all was written.
std::error_code write_all(int fd, std::string_view text);

}  // namespace dtplan::core
