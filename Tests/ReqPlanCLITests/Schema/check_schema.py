#!/usr/bin/env python3
"""Checks the plan schema printed by `reqplan schema`, and plan files against it.

Usage: check_schema.py SCHEMA.json [PLAN.yaml ...]

Prints one JSON object on standard output:

    {
      "schema": {"valid": true, "error": null, "jsonschema": "4.26.0"},
      "files": [
        {"path": "plans/app-launch.yaml", "loaded": true, "load_error": null,
         "valid": true, "best": null, "errors": []},
        ...
      ]
    }

`schema.valid` says whether the schema is itself a valid draft 2020-12 schema
(`Draft202012Validator.check_schema`). For each file, `loaded` says whether it
could be read as YAML, and `valid` whether the schema accepts it; `errors`
lists every error, including those under `oneOf`/`anyOf` (`path` is the JSON
path of the value, `keyword` the failing keyword), and `best` is the message
jsonschema picks as the most relevant. Exit status 0 when everything ran
(whatever the results), 2 on a usage error, 3 when jsonschema or PyYAML is
missing (with `setup_error` in the JSON).

YAML is read the way reqplan reads it: plain scalars are typed by the YAML 1.2
core schema (`yes`, `on`, `2001-12-14`, `1_000` stay strings; `0o17` and
`0x1F` are integers), tags are ignored (a scalar's type comes from its
spelling and quoting only), mapping keys are the text written (`200:` is the
key "200"), and `<<` merge keys are applied (an earlier mapping in a list
wins; keys written in the mapping win over merged ones), as editors do before
validating.
"""

import json
import re
import sys

try:
    import jsonschema
    import yaml
    from importlib.metadata import version as package_version
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"setup_error": f"{error}; install with: pip install jsonschema pyyaml"}))
    sys.exit(3)

MAX_ERRORS = 200
MAX_MESSAGE = 400

STR = "tag:yaml.org,2002:str"
NULL = "tag:yaml.org,2002:null"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
MERGE = "tag:yaml.org,2002:merge"
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"

NULLS = {"", "~", "null", "Null", "NULL"}
TRUES = {"true", "True", "TRUE"}
FALSES = {"false", "False", "FALSE"}
SPECIAL_FLOATS = {
    ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
    "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
    "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
DECIMAL_INT = re.compile(r"[-+]?[0-9]+\Z")
HEX_INT = re.compile(r"0x[0-9a-fA-F]+\Z")
OCTAL_INT = re.compile(r"0o[0-7]+\Z")
FLOAT_RE = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
INT64 = range(-(2**63), 2**63)


def core_value(text):
    """The value of a plain scalar by the YAML 1.2 core schema (as reqplan's reader resolves it)."""
    if text in NULLS:
        return None
    if text in TRUES:
        return True
    if text in FALSES:
        return False
    if text in SPECIAL_FLOATS:
        return SPECIAL_FLOATS[text]
    if HEX_INT.match(text):
        return int(text[2:], 16)
    if OCTAL_INT.match(text):
        return int(text[2:], 8)
    if DECIMAL_INT.match(text) and int(text) in INT64:
        return int(text)
    if FLOAT_RE.match(text) or DECIMAL_INT.match(text):
        return float(text)
    return text


def core_tag(node):
    if isinstance(node, yaml.ScalarNode):
        if node.style is not None:  # quoted or block scalar: always a string
            return STR
        if node.value == "<<":
            return MERGE
        value = core_value(node.value)
        if value is None:
            return NULL
        if isinstance(value, bool):
            return BOOL
        if isinstance(value, int):
            return INT
        if isinstance(value, float):
            return FLOAT
        return STR
    return SEQ if isinstance(node, yaml.SequenceNode) else MAP


class PlanLoader(yaml.SafeLoader):
    """PyYAML's safe loader with reqplan's scalar typing and keys."""

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None:
            # Re-type every node, ignoring tags and PyYAML's YAML 1.1 resolution.
            seen = set()
            stack = [node]
            while stack:
                current = stack.pop()
                if id(current) in seen:
                    continue
                seen.add(id(current))
                current.tag = core_tag(current)
                if isinstance(current, yaml.SequenceNode):
                    stack.extend(current.value)
                elif isinstance(current, yaml.MappingNode):
                    for key, value in current.value:
                        stack.append(key)
                        stack.append(value)
        return node

    def construct_mapping(self, node, deep=False):
        self.flatten_mapping(node)  # applies `<<` merges
        mapping = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, "a key that is a list or mapping is not supported", key_node.start_mark)
            mapping[key_node.value] = self.construct_object(value_node, deep=deep)
        return mapping


def construct_core_scalar(loader, node):
    return core_value(node.value)


for _tag in (NULL, BOOL, INT, FLOAT):
    PlanLoader.add_constructor(_tag, construct_core_scalar)


def load_plan(path):
    with open(path, encoding="utf-8-sig") as handle:
        return yaml.load(handle, Loader=PlanLoader)


def name_disallowed_key(error, document):
    """jsonschema reports a `false` subschema (`"properties": {"key": false}`: a key not allowed) at the
    mapping that holds the key; add the key to the error's path when it is the only one holding that value."""
    parent = document
    for element in error.absolute_path:
        try:
            parent = parent[element]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(parent, dict):
        keys = [key for key, value in parent.items() if value is error.instance]
        if len(keys) == 1:
            error.path.append(keys[0])


def flatten(errors, document):
    """Every error, with those of `oneOf`/`anyOf` branches (their `context`) after their parent."""
    result = []
    stack = list(reversed(list(errors)))
    while stack and len(result) < MAX_ERRORS:
        error = stack.pop()
        message = error.message
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE] + "…"
        keyword = error.validator
        if keyword is None:  # a `false` schema
            keyword = "false"
            name_disallowed_key(error, document)
        result.append({"path": error.json_path, "keyword": keyword, "message": message})
        stack.extend(reversed(error.context or []))
    return result


def check_file(validator, path):
    result = {"path": path, "loaded": False, "load_error": None, "valid": None, "best": None, "errors": []}
    try:
        document = load_plan(path)
    except (yaml.YAMLError, OSError, UnicodeDecodeError, ValueError) as error:
        result["load_error"] = str(error)
        return result
    result["loaded"] = True
    errors = list(validator.iter_errors(document))
    result["valid"] = not errors
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        result["best"] = f"{best.json_path}: {best.message}"[:MAX_MESSAGE]
        result["errors"] = flatten(errors, document)
    return result


def main(arguments):
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    with open(arguments[0], encoding="utf-8") as handle:
        schema = json.load(handle)
    report = {"schema": {"valid": True, "error": None, "jsonschema": package_version("jsonschema")}, "files": []}
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        report["schema"] = {"valid": False, "error": f"{error.json_path}: {error.message}",
                            "jsonschema": package_version("jsonschema")}
        print(json.dumps(report, ensure_ascii=False))
        return 0
    validator = jsonschema.Draft202012Validator(schema)
    report["files"] = [check_file(validator, path) for path in arguments[1:]]
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
