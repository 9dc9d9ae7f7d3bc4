#!/usr/bin/env bash
# Citations of the project's reference pages: every `docs/reference/PAGE.md §N[.M]` in lib/,
# apps/, tests/, configs/ and scripts/ must name an existing page with a heading numbered N[.M]
# (`## N. ...` or `### N.M ...`); a section sign must follow a page named earlier on the same
# line (`(docs/reference/placements.md §4.3, §4.6)`), each § checked against the nearest page
# before it; ranges (`§2.1-2.3`) are checked at both ends. The old citation forms (`study §`,
# `study section`, `reference §`, a bare `redistribute.md §` and the like) must be gone.
#
#   bash tests/docs/citations_test.sh SOURCE_DIR
set -euo pipefail
src="${1:?usage: citations_test.sh SOURCE_DIR}"
cd "$src"

python3 - <<'PY'
import os, re, sys

roots = ['lib', 'apps', 'tests', 'configs', 'scripts']
exts = ('.h', '.cc', '.cpp', '.py', '.sh', '.json', '.txt', '.cmake', '.md', '.tsv')

def headings(page):
    nums = set()
    with open(page, encoding='utf-8') as f:
        for line in f:
            m = re.match(r'#{2,4}\s+(\d+(?:\.\d+)*)[.\s]', line)
            if m:
                nums.add(m.group(1).rstrip('.'))
    return nums

pages = {}
def sections(page):
    if page not in pages:
        path = os.path.join('docs', 'reference', page + '.md')
        pages[page] = headings(path) if os.path.isfile(path) else None
    return pages[page]

page_re = re.compile(r'docs/reference/([A-Za-z0-9_-]+)\.md')
sec_re = re.compile(r'§\s?(\d+(?:\.\d+)*)(?:\s?[-–]\s?§?(\d+(?:\.\d+)*))?')
old_forms = [
    re.compile(r'\b(?:study|Study|reference|Reference) (?:§|section \d)'),
    re.compile(r'(?<![\w/])(?:redistribute|collectives|device_mesh|autoparallel|torchtitan|'
               r'placements|strategy_selection)\.md (?:§|section \d)'),
]

errors = []
checked = 0
for root in roots:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if not name.endswith(exts):
                continue
            if path == 'tests/docs/citations_test.sh':
                continue
            try:
                text = open(path, encoding='utf-8').read()
            except UnicodeDecodeError:
                continue
            for no, line in enumerate(text.split('\n'), 1):
                where = f'{path}:{no}'
                for pat in old_forms:
                    m = pat.search(line)
                    if m:
                        errors.append(f'{where}: old citation form "{m.group(0)}" '
                                      '(cite docs/reference/PAGE.md §N.M)')
                for m in sec_re.finditer(line):
                    before = list(page_re.finditer(line, 0, m.start()))
                    if not before:
                        errors.append(f'{where}: "§{m.group(1)}" names no page '
                                      '(write docs/reference/PAGE.md §N.M on the same line)')
                        continue
                    page = before[-1].group(1)
                    secs = sections(page)
                    checked += 1
                    if secs is None:
                        errors.append(f'{where}: docs/reference/{page}.md does not exist')
                        continue
                    for s in (m.group(1), m.group(2)):
                        if s is not None and s not in secs:
                            errors.append(f'{where}: docs/reference/{page}.md has no section {s}')
                for m in page_re.finditer(line):
                    if sections(m.group(1)) is None:
                        errors.append(f'{where}: docs/reference/{m.group(1)}.md does not exist')

errors = list(dict.fromkeys(errors))
for e in errors:
    print(e)
print(f'citations: {checked} checked, {len(errors)} errors', file=sys.stderr)
sys.exit(1 if errors else 0)
PY
