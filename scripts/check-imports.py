#!/usr/bin/env python3
"""Checks that every module a target imports is declared in Package.swift.

Usage: scripts/check-imports.py   (from the package root; reads `swift package dump-package`)

SwiftPM lets a target import a module that only a dependency of one of its dependencies declares
(it is on the search path anyway), until a change elsewhere in the graph removes it. Every target
here names what it imports: a module of another target, or a product of a package dependency.
Modules of the toolchain (Foundation, Dispatch, Glibc, Testing, ...) need no declaration.

It also keeps the pipeline's layers apart: only ReqPlanHTTP (the transport), the demo API and the tests,
their support and fuzzers may import a networking module (SwiftNIO's, AsyncHTTPClient, FoundationNetworking); the
syntax, the planner, XPath, JSONPath, the runtime, the presentation, the library and the command line may not. The
tests of a stage before the runtime (`<stage>Tests`) test that stage alone: they import neither the runtime
nor the presentation (what `validate` prints is tested by ReqPlanGoldenTests, which may). The language server
checks plans and never runs them: it imports neither the runtime nor the transport (nor, as above, networking).
The stages that take a transport rather than make one (the runtime, the presentation, the transport's own value
types) do not even link networking: no target they depend on, however indirectly, declares a networking product.
A dependency declared but never imported is a problem too (it links a module for nothing, and hides where a
layer really depends), but for executable targets a test depends on to have them built.
Exit status 0 when all are declared, each declared one imported, and none is out of its layer, 1 otherwise
(each problem is printed).
"""
import json
import pathlib
import re
import subprocess
import sys

TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Musl",
    "Darwin", "Android", "WinSDK", "Synchronization", "Testing", "XCTest", "os", "_Concurrency", "Observation",
    "RegexBuilder", "Swift", "_StringProcessing",
}
# Modules a package product brings with it, which a target that declares the product may import: Yams builds
# libyaml as its module CYaml (so named since Yams' first release), and the plan reader composes from libyaml's
# events (`YAMLComposer`), which Yams has no public API for.
PRODUCT_MODULES = {"Yams": {"CYaml"}}
IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)",
                    re.MULTILINE)
STRING_BLOCK = re.compile(r'#*"""[\s\S]*?"""#*')
# Networking modules, and the targets that may import them.
NETWORKING = re.compile(r"^(NIO\w*|AsyncHTTPClient|FoundationNetworking|Hummingbird\w*)$")
# reqplan-bench measures the floor of a bare SwiftNIO client beside `reqplan load` (Sources/ReqPlanBench/NIOFloor.swift).
MAY_NETWORK = {"ReqPlanHTTP", "ReqPlanURLSession", "ReqPlanDemoAPI", "ReqPlanTestSupport", "reqplan-bench"}
# The stages before the runtime, and the later stages their test targets may not import.
EARLY_STAGES = {"ReqPlanSyntax", "ReqPlanXPath", "ReqPlanJSONPath", "ReqPlanPlanner", "ReqPlanOpenAPI", "ReqPlanArazzo", "ReqPlanImport",
               "ReqPlanHTTP"}
LATER_STAGES = {"ReqPlanRuntime", "ReqPlanPresentation", "ReqPlanPipeline", "ReqPlan", "reqplan"}
# Targets that check plans without running them, and the modules that run plans, which they may not import.
CHECK_ONLY = {"ReqPlanLanguageServer"}
RUNNING = {"ReqPlanRuntime", "ReqPlanHTTP", "ReqPlanURLSession", "ReqPlan", "ReqPlanDemoAPI"}
# Targets that link no networking at all, through any dependency.
LINK_NO_NETWORKING = {"ReqPlanSyntax", "ReqPlanPlanner", "ReqPlanTransport", "ReqPlanRuntime", "ReqPlanPresentation",
                      "ReqPlanLanguageServer", "ReqPlanOpenAPI", "ReqPlanArazzo", "ReqPlanImport"}


def linked_networking(package: dict, name: str) -> list:
    """The networking products `name` links, through every target it depends on."""
    targets = {t["name"]: t for t in package["targets"]}
    seen, stack, found = set(), [name], []
    while stack:
        current = stack.pop()
        if current in seen or current not in targets:
            continue
        seen.add(current)
        for dependency in targets[current]["dependencies"]:
            if "product" in dependency and NETWORKING.match(dependency["product"][0]):
                found.append(f"{dependency['product'][0]} (through {current})")
            for kind in ("byName", "target"):
                if kind in dependency:
                    stack.append(dependency[kind][0])
    return sorted(found)


def main() -> int:
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True,
                                        text=True).stdout)
    problems = []
    executables = {t["name"] for t in package["targets"] if t["type"] == "executable"}
    for target in package["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        declared = set()
        # Each declared dependency, with the modules that importing would count as using it.
        uses = {}
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    name = dependency[kind][0]
                    declared.add(name)
                    uses[name] = {name}
                    if kind == "product":
                        declared.update(PRODUCT_MODULES.get(name, set()))
                        uses[name] |= PRODUCT_MODULES.get(name, set())
        default = "Tests" if target["type"] == "test" else "Sources"
        folder = pathlib.Path(target.get("path") or f"{default}/{target['name']}")
        imported = set()
        for source in folder.rglob("*.swift"):
            # Text inside multi-line string literals (a Python script a test runs) is not Swift.
            code = STRING_BLOCK.sub("", source.read_text(encoding="utf-8"))
            imported.update(IMPORT.findall(code))
        for module in sorted(imported - declared - TOOLCHAIN - {target["name"]}):
            problems.append(f"{target['name']} imports {module}, which Package.swift does not declare for it")
        for name, modules in sorted(uses.items()):
            if name not in executables and not modules & imported:
                problems.append(f"{target['name']} declares {name} in Package.swift but never imports it")
        if target["type"] != "test" and target["name"] not in MAY_NETWORK and not target["name"].startswith("fuzz-"):
            for module in sorted(m for m in imported if NETWORKING.match(m)):
                problems.append(f"{target['name']} imports {module}: only ReqPlanHTTP talks to the network "
                                f"(the runtime, planner and presentation go through its `Transport`)")
        if target["name"] in CHECK_ONLY:
            for module in sorted(imported & RUNNING):
                problems.append(f"{target['name']} imports {module}: it checks plans and never runs them")
        if target["type"] == "test" and target["name"].removesuffix("Tests") in EARLY_STAGES:
            for module in sorted(imported & LATER_STAGES):
                problems.append(f"{target['name']} imports {module}: the tests of "
                                f"{target['name'].removesuffix('Tests')} test that stage alone (golden output of "
                                f"later stages goes in ReqPlanGoldenTests)")
    for name in sorted(LINK_NO_NETWORKING):
        for product in linked_networking(package, name):
            problems.append(f"{name} links {product}: it is given a transport, and links no networking")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
