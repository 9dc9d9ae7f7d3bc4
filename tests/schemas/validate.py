#!/usr/bin/env python3
"""Validates JSON documents against the JSON Schemas of docs/schemas/.

Usage: validate.py SCHEMA_DIR NAME=DOC.json [NAME=DOC.json...]
Checks each DOC against SCHEMA_DIR/NAME.schema.json (JSON Schema 2020-12) and prints one line per
document; exit 1 if any is invalid, 77 (CTest's skip code) when python3-jsonschema is missing.
With --expect-invalid, every document must be rejected instead (to prove the check can fail).
"""
import glob
import json
import os
import sys
import warnings

try:
    import jsonschema
except ImportError:
    print("validate.py: python3-jsonschema is not installed (scripts/setup.sh installs it); skipped")
    sys.exit(77)


def validator_for(schema_dir, name):
    """A validator of SCHEMA_DIR/NAME.schema.json whose $refs resolve to the other schemas."""
    store = {}
    for path in glob.glob(os.path.join(schema_dir, "*.schema.json")):
        s = json.load(open(path))
        store[s["$id"]] = s
    schema = json.load(open(os.path.join(schema_dir, f"{name}.schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


def main():
    args = sys.argv[1:]
    expect_invalid = "--expect-invalid" in args
    args = [a for a in args if a != "--expect-invalid"]
    schema_dir, pairs = args[0], args[1:]
    failed = 0
    for pair in pairs:
        name, path = pair.split("=", 1)
        doc = json.load(open(path))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            errors = sorted(validator_for(schema_dir, name).iter_errors(doc), key=lambda e: list(e.path))
        if expect_invalid:
            if not errors:
                print(f"FAIL {path}: {name} accepted a document it must reject")
                failed += 1
            else:
                print(f"ok   {path}: {name} rejects it ({errors[0].message[:100]})")
        elif errors:
            e = errors[0]
            where = "/".join(str(p) for p in e.path) or "(root)"
            print(f"FAIL {path}: {name} at {where}: {e.message[:300]} ({len(errors)} errors)")
            failed += 1
        else:
            print(f"ok   {path}: {name}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
