#!/usr/bin/env python3
"""Prints a draft JSON Schema (2020-12) inferred from sample JSON documents.

Usage: scripts/schema_draft.py TITLE SAMPLE.json [SAMPLE.json...] > docs/schemas/NAME.schema.json

A starting point when a document gains fields or a new document is added: every key seen in every
sample of an object is required, objects admit no other keys, numbers that are integers in every
sample are "integer", arrays merge the shapes of all their items, a value that is null in some
samples and typed in others admits both. Review the draft and add descriptions by hand
(docs/formats.md explains the fields in words).
"""
import json
import sys


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def infer(values):
    kinds = {kind(v) for v in values}
    if "number" in kinds:
        kinds.discard("integer")
    schema = {}
    types = sorted(kinds)
    schema["type"] = types[0] if len(types) == 1 else types
    objects = [v for v in values if isinstance(v, dict)]
    if objects:
        keys = []
        for o in objects:
            for k in o:
                if k not in keys:
                    keys.append(k)
        schema["properties"] = {k: infer([o[k] for o in objects if k in o]) for k in keys}
        schema["required"] = [k for k in keys if all(k in o for o in objects)]
        schema["additionalProperties"] = False
    arrays = [v for v in values if isinstance(v, list)]
    items = [x for a in arrays for x in a]
    if items:
        schema["items"] = infer(items)
    return schema


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: schema_draft.py TITLE SAMPLE.json [SAMPLE.json...]")
    docs = [json.load(open(p)) for p in sys.argv[2:]]
    out = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": sys.argv[1]}
    out.update(infer(docs))
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
