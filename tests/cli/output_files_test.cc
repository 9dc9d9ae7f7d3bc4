// Every output of the CLI is checked: each command's each output flag (found from --help) against
// /dev/full, a symbolic link, a directory and a file-size limit; stdout against a full device, a
// file-size limit, a closed descriptor and a reader that stops early; and the sources, so that no
// file other than the one writer opens a file for writing or prints on stdout.

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.h"
#include "support/temp_dir.h"

namespace dtplan::testing {
namespace {

namespace fs = std::filesystem;

// An output flag and a quick command line that writes it (without the flag).
struct OutputFlag {
  std::string command;
  std::string flag;
  std::string args;
};

const std::vector<OutputFlag>& output_flags() {
  static const std::vector<OutputFlag> flags = {
      {"plan", "--out",
       "plan --model tests/data/fx_export_sample.json --mesh configs/meshes/2x2.json --threads 1"},
      {"simulate", "--trace", "simulate --plan tests/data/replay/small_model_plan.json"},
      {"simulate", "--html", "simulate --plan tests/data/replay/small_model_plan.json"},
      {"sweep", "--csv", "sweep --model tests/data/fx_export_sample.json --world 32 --threads 1"},
      {"sweep", "--html", "sweep --model tests/data/fx_export_sample.json --world 32 --threads 1"},
      {"replay", "--out",
       "replay --plan tests/data/replay/small_model_plan.json --iters 1 --warmup 0"},
      {"calibrate", "--out",
       "calibrate --nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log"},
  };
  return flags;
}

// The subcommands `dtplan --help` lists.
std::vector<std::string> subcommands() {
  const std::string help = cli_output("--help");
  const std::regex header("^subcommands:$", std::regex::icase);
  const std::regex line(R"(^  ([a-z]+)  +\S)");
  std::vector<std::string> out;
  bool listed = false;
  std::istringstream in(help);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, header)) listed = true;
    if (listed && std::regex_search(l, m, line)) out.push_back(m[1]);
  }
  return out;
}

TEST_CASE("cli output files: the table holds every flag whose help says it writes a file") {
  const std::vector<std::string> commands = subcommands();
  CHECK(commands.size() >= 8);
  std::set<std::string> documented;
  const std::regex option(R"(^\s+(--[a-z-]+)\s.*\b[Ww]rite)");
  for (const std::string& command : commands) {
    std::istringstream in(cli_output(command + " --help"));
    for (std::string l; std::getline(in, l);) {
      std::smatch m;
      if (std::regex_search(l, m, option)) documented.insert(command + " " + m[1].str());
    }
  }
  std::set<std::string> tested;
  for (const OutputFlag& f : output_flags()) tested.insert(f.command + " " + f.flag);
  CHECK(documented == tested);
}

TEST_CASE("cli output files: /dev/full, a directory and a file-size limit fail, naming the flag") {
  TempDir dir("output_cli");
  fs::create_directory(dir.path() / "sub");
  for (const OutputFlag& f : output_flags()) {
    const std::string prefix = "dtplan " + f.command + ": error: " + f.flag + " ";
    CAPTURE(f.args + " " + f.flag);
    CHECK(cli_failure(f.args + " " + f.flag + " /dev/full", 1) ==
          prefix + "/dev/full: No space left on device\n");
    CHECK(fs::symlink_status("/dev/full").type() == fs::file_type::character);
    CHECK(cli_failure(f.args + " " + f.flag + " " + dir.at("sub"), 2) ==
          prefix + dir.at("sub") + ": is a directory\n");
    CHECK(fs::is_empty(dir.path() / "sub"));

    // ulimit -f 1 is 512 bytes in dash, 1024 in bash; every output here is longer.
    const std::string kept = dir.at("kept");
    std::ofstream(kept) << "old";
    CliResult cut = run_script("ulimit -f 1; exec \"$DTPLAN\" " + f.args + " " + f.flag + " " +
                               kept + " > /dev/null");
    CHECK(cut.exit_code == 1);
    CHECK(cut.err == prefix + kept + ": File too large\n");
    CHECK(file_text(kept) == "old");
    CHECK(dir.names() == std::set<std::string>{"kept", "sub"});
  }
}

TEST_CASE("cli output files: a symbolic link is written through and stays a link") {
  for (const OutputFlag& f : output_flags()) {
    CAPTURE(f.args + " " + f.flag);
    TempDir dir("output_cli");
    const std::string target = dir.at("target");
    std::ofstream(target) << "old";
    REQUIRE(::chmod(target.c_str(), 0640) == 0);
    fs::create_symlink("target", dir.path() / "link");
    cli_output(f.args + " " + f.flag + " " + dir.at("link"));
    CHECK(fs::is_symlink(dir.path() / "link"));
    CHECK(fs::read_symlink(dir.path() / "link") == "target");
    const std::string written = file_text(target);
    CHECK(written.size() > 100);
    CHECK(written != "old");
    CHECK((fs::status(target).permissions() & fs::perms::mask) ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    CHECK(dir.names() == std::set<std::string>{"link", "target"});
  }
}

TEST_CASE("cli output files: --out /dev/stdout writes through the shell's redirection") {
  TempDir dir("output_cli");
  const std::string log = dir.at("log");
  std::ofstream(log) << "head\n";
  const auto inode = [&] {
    struct stat st {};
    REQUIRE(::stat(log.c_str(), &st) == 0);
    return st.st_ino;
  };
  const auto before = inode();
  const std::string calibrate =
      "\"$DTPLAN\" calibrate --nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log";
  CliResult r = run_script(calibrate + " --json --out /dev/stdout >> " + log);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Appended (profile, then the summary) to the same file: not truncated, not renamed over.
  const std::string text = file_text(log);
  CHECK(text.starts_with("head\n{"));
  CHECK(text.find("\"measured\"") != std::string::npos);
  CHECK(inode() == before);
  CliResult piped = run_script(calibrate + " --out /dev/stdout | grep -c '\"measured\"'");
  CHECK(piped.exit_code == 0);
  CHECK(piped.out == "1\n");
}

TEST_CASE("cli stdout: a full device, a size limit and a closed descriptor are errors") {
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"mesh", "mesh --shape 2,2 --names a,b"},
      {"redistribute", "redistribute --mesh 2,2 --names a,b --shape 8,8 --from 'S(0),R' --to R,R"},
      {"cost", "cost --collective all_reduce --ranks 8 --json"},
      {"plan", "plan --model tests/data/fx_export_sample.json --mesh configs/meshes/2x2.json"},
  };
  for (const auto& [name, args] : commands) {
    CAPTURE(args);
    const std::string prefix = "dtplan " + name + ": error: stdout: ";
    CliResult full = run_script("\"$DTPLAN\" " + args + " > /dev/full");
    CHECK(full.exit_code == 1);
    CHECK(full.err == prefix + "No space left on device\n");
    CliResult closed = run_script("\"$DTPLAN\" " + args + " >&-");
    CHECK(closed.exit_code == 1);
    CHECK(closed.err == prefix + "Bad file descriptor\n");
  }
  CliResult help = run_script("\"$DTPLAN\" --help > /dev/full");
  CHECK(help.exit_code == 1);
  CHECK(help.err == "dtplan: error: stdout: No space left on device\n");

  TempDir dir("output_cli");
  const std::string mesh = "mesh --shape 8,8,8 --names a,b,c";
  const std::string whole = cli_output(mesh);
  CliResult cut = run_script("ulimit -f 1; exec \"$DTPLAN\" " + mesh + " > " + dir.at("out"));
  CHECK(cut.exit_code == 1);
  CHECK(cut.err == "dtplan mesh: error: stdout: File too large\n");
  // What was written before the limit is the output's beginning, and no more is.
  const std::string written = file_text(dir.at("out"));
  CHECK(!written.empty());
  CHECK(written.size() < whole.size());
  CHECK(whole.starts_with(written));
}

TEST_CASE("cli stdout: a reader that stops early ends the output quietly") {
  // Far more than a pipe holds (64 KiB by default), so that dtplan is still writing when head
  // has gone.
  const std::string big = "mesh --shape 32,32,16 --names a,b,c --json";
  CHECK(cli_output(big).size() > (1 << 19));
  CliResult r = run_script("( \"$DTPLAN\" " + big + "; echo \"exit $?\" >&2 ) | head -c 10");
  CHECK(r.out.size() == 10);
  CHECK(r.err == "exit 0\n");
}

// Each line of a C++ source with its comments, the contents of its string literals and its
// #include lines removed; a literal "r" or "rb" (a read mode) reads READ_MODE.
std::vector<std::string> code_lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(file_text(path));
  const std::regex literal(R"("([^"\\]|\\.)*")");
  const std::regex read_mode(R"("rb?")");
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with("#include")) l.clear();  // <fstream> may be included for reading
    l = std::regex_replace(l, read_mode, "READ_MODE");
    l = std::regex_replace(l, literal, "\"\"");
    if (auto c = l.find("//"); c != std::string::npos) l.resize(c);
    out.push_back(l);
  }
  return out;
}

TEST_CASE("cli sources: only the writer opens files for writing, only output.cc prints stdout") {
  // Whatever writes a file, a descriptor or stdout by another way than core::write_output_file and
  // apps/dtplan/output.cc would bypass their checks (atomic replace, devices, write errors).
  const std::regex file_writes(
      R"(\bofstream\b|\bfstream\b|\bf(re|d)?open\s*\((?![^;]*READ_MODE)|(^|[^\w.])(::)?open(at)?\s*\(|\bcreat\s*\()"
      R"(|\bmk(o)?s?temps?\s*\(|\brename(at)?\s*\(|copy_file|\bfilesystem::copy\b)"
      R"(|::write\s*\(|\bp?writev?\s*\(\s*\d|\bfwrite\b)");
  const std::regex stdout_writes(
      R"(\bcout\b|\bstdout\b|STDOUT_FILENO|\bprintf\s*\(|\bputs\s*\(|\bputchar\b)"
      R"(|fmt::print\s*\((?!\s*stderr)|std::print|stdout_(color_)?sink_[ms]t)");
  std::vector<std::string> found;
  int files = 0;
  for (const char* root : {"lib", "apps"}) {
    for (const auto& e : fs::recursive_directory_iterator(source_path(root))) {
      const std::string ext = e.path().extension().string();
      if (ext != ".cc" && ext != ".h" && ext != ".cu") continue;
      ++files;
      const std::string rel = fs::relative(e.path(), source_path("")).string();
      const std::vector<std::string> lines = code_lines(e.path().string());
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const bool file_hit =
            rel != "lib/core/output_file.cc" && std::regex_search(lines[i], file_writes);
        const bool stdout_hit =
            rel != "apps/dtplan/output.cc" && std::regex_search(lines[i], stdout_writes);
        if (file_hit || stdout_hit)
          found.push_back(rel + ":" + std::to_string(i + 1) + ": " + lines[i]);
      }
    }
  }
  CHECK(files > 100);
  std::string list;
  for (const std::string& f : found) list += f + "\n";
  INFO(list);
  CHECK(found.empty());
}

}  // namespace
}  // namespace dtplan::testing
