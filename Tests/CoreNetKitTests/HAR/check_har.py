#!/usr/bin/env python3
# Checks a HAR file as tools outside CoreNetKit read it: validates it against the HAR 1.2 JSON
# Schema next to this script (python-jsonschema), then reads it with haralyzer, an independent
# HAR reader from PyPI, and prints what it read: one line per entry, "METHOD STATUS URL".
# Exit status 0 when both accept the file; 1 with the reason otherwise.
import json
import os
import sys

import jsonschema
from haralyzer import HarParser


def main(path):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "har-1.2.schema.json")) as schema_file:
        schema = json.load(schema_file)
    with open(path) as har_file:
        har = json.load(har_file)
    jsonschema.Draft7Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(har), key=lambda e: list(e.path))
    for error in errors:
        print("schema: %s at %s" % (error.message, "/".join(str(p) for p in error.absolute_path)))
    if errors:
        return 1
    parser = HarParser(har)
    entries = [entry for page in parser.pages for entry in page.entries]
    if len(entries) != len(har["log"]["entries"]):
        print("haralyzer read %d entries of %d" % (len(entries), len(har["log"]["entries"])))
        return 1
    for entry in entries:
        print("%s %d %s" % (entry.request.method, entry.response.status, entry.request.url))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
