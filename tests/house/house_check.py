#!/usr/bin/env python3
"""The house rules of DESIGN.md as checks over the source tree (CTest dtplan_house_*).

Usage: house_check.py SOURCE_DIR layering|size

layering: every #include "module/..." in lib/<module> names a module the layering allows (the
  table ALLOWED below, DESIGN.md's dependency direction); nlohmann/json only in *_io files and
  apps/; CLI11 and spdlog only in apps/.
size: no file in lib/ or apps/ over MAX_FILE_LINES lines and no function body over
  MAX_FUNCTION_LINES lines (from its opening brace to its closing one; lambdas count toward the
  function that holds them).
Each violation is one line `path:line: reason`; exit 1 when there is any.
"""
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 100

BELOW_REDIST = {"core", "layout", "mesh", "placement", "collective", "cost"}
ALLOWED = {
    "core": set(),
    "layout": {"core"},
    "mesh": {"core", "layout"},
    "placement": {"core", "layout", "mesh"},
    "collective": {"core"},
    "cost": {"core", "collective"},
    "redist": BELOW_REDIST,
    "graph": {"core"},
    # SVG and HTML primitives for the reports (charts); domain-free.
    "report": {"core"},
    "solve": {"core"},
    "plan": BELOW_REDIST | {"redist"},
    # strategy builds a solve::Problem from graph + placement + cost and writes a plan::Plan.
    "strategy": BELOW_REDIST | {"redist", "graph", "solve", "plan"},
    # sim and replay read plans; they never include strategy/ or graph/.
    "sim": BELOW_REDIST | {"redist", "plan", "report"},
    "replay": BELOW_REDIST | {"redist", "plan", "sim"},
    # sweep evaluates meshes with the whole pipeline below the CLI, replay aside.
    "sweep": BELOW_REDIST | {"redist", "graph", "solve", "plan", "strategy", "sim", "report"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def sources(root, top):
    for base, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".cc", ".h")):
                yield os.path.join(base, f)


def check_layering(root):
    bad = []
    for top in ("lib", "apps"):
        for path in sources(root, top):
            rel = os.path.relpath(path, root)
            module = rel.split(os.sep)[1] if top == "lib" else "apps"
            is_io = re.search(r"_io\.(cc|h)$", rel) is not None
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                head = inc.split("/")[0]
                if top == "lib" and "/" in inc and head in ALLOWED and head != module:
                    if head not in ALLOWED[module]:
                        bad.append(f"{rel}:{n}: lib/{module} may not include {inc} "
                                   f"(allowed: {', '.join(sorted(ALLOWED[module])) or 'none'})")
                if head == "nlohmann" and top == "lib" and not is_io:
                    bad.append(f"{rel}:{n}: only *_io files and apps/ include {inc}")
                if head in ("CLI", "spdlog") and top == "lib":
                    bad.append(f"{rel}:{n}: only apps/ includes {inc}")
    return bad


def code_only(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


CONTROL = re.compile(r"^\s*(?:\}\s*)?(if|for|while|switch|catch|do|else|try)\b")
TYPE_BLOCK = re.compile(r"\b(class|struct|union|enum|namespace)\b")


def functions(text):
    """(name, first line, last line) of every function body outside other function bodies."""
    code = code_only(text)
    stack = []  # kinds of the open braces: 'scope' (namespace/class/extern) or 'function' or 'other'
    header_start = 0
    found = []
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c in ";{}":
            if c == "{":
                header = code[header_start:i]
                inside_function = "function" in stack
                kind = "other"
                if not inside_function:
                    flat = " ".join(header.split())
                    if TYPE_BLOCK.search(flat) and "(" not in flat.split("=")[0]:
                        kind = "scope"
                    elif flat.startswith('extern'):
                        kind = "scope"
                    elif ")" in flat and not CONTROL.match(flat) and not flat.endswith("="):
                        kind = "function"
                        name = re.findall(r"([~\w:]+)\s*\(", flat)
                        found.append([name[0] if name else "?", line, None])
                stack.append(kind)
            elif c == "}":
                if stack:
                    kind = stack.pop()
                    if kind == "function":
                        for f in reversed(found):
                            if f[2] is None:
                                f[2] = line
                                break
            header_start = i + 1
    return [f for f in found if f[2] is not None]


def check_size(root):
    bad = []
    for top in ("lib", "apps"):
        for path in sources(root, top):
            rel = os.path.relpath(path, root)
            text = open(path, encoding="utf-8").read()
            lines = text.count("\n")
            if lines > MAX_FILE_LINES:
                bad.append(f"{rel}:1: {lines} lines, more than {MAX_FILE_LINES}")
            for name, first, last in functions(text):
                if last - first + 1 > MAX_FUNCTION_LINES:
                    bad.append(f"{rel}:{first}: function {name} has {last - first + 1} lines, "
                               f"more than {MAX_FUNCTION_LINES}")
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("layering", "size"):
        sys.exit("usage: house_check.py SOURCE_DIR layering|size")
    root, what = sys.argv[1], sys.argv[2]
    bad = check_layering(root) if what == "layering" else check_size(root)
    for b in bad:
        print(b)
    print(f"house_check {what}: {len(bad)} violation(s)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
