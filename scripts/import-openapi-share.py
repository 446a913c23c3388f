#!/usr/bin/env python3
"""The share of path parameters `reqplan import openapi` reads from another step's response, over descriptions.

    scripts/import-openapi-share.py REQPLAN DESCRIPTION...

Imports each description (into a temporary folder beside nothing: the plan is only read, not validated), and
counts, in the plan's `path:` mappings and its plain URLs' `${{ }}`, the path parameters given by a reference to
another step (`${{ steps.… }}`) and those given a literal example. Prints one line per description and the total.
"""
import re
import subprocess
import sys
import tempfile
import os

def counts(plan):
    referenced = literal = 0
    in_path = False
    for line in plan.splitlines():
        stripped = line.strip()
        if stripped == "path:":
            in_path = True
            continue
        if in_path:
            if line.startswith("        ") and ":" in stripped:
                if "${{ steps." in stripped:
                    referenced += 1
                else:
                    literal += 1
                continue
            in_path = False
    return referenced, literal

def main():
    reqplan, descriptions = sys.argv[1], sys.argv[2:]
    total_ref = total_lit = 0
    for description in descriptions:
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "plan.yaml")
            result = subprocess.run([reqplan, "import", "openapi", description, "-o", out], capture_output=True, text=True)
            if result.returncode != 0:
                print(f"{description}: import failed: {result.stderr.strip()[:200]}")
                continue
            plan = open(out, encoding="utf-8").read()
        referenced, literal = counts(plan)
        steps = plan.count("\n    request:\n")
        total_ref += referenced
        total_lit += literal
        share = 100 * referenced / (referenced + literal) if referenced + literal else 0
        print(f"{description}: {steps} steps, path parameters {referenced} read from a step, {literal} examples ({share:.1f} %)")
    all_ = total_ref + total_lit
    print(f"total: {total_ref} of {all_} path parameters read from a step ({100 * total_ref / all_ if all_ else 0:.1f} %)")

main()
