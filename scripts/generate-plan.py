#!/usr/bin/env python3
"""Generate large reqplan plans for benchmarks.

Shapes:
  independent  N steps with no dependencies (all start at once)
  chain        N steps, each needing the one before
  layers       L layers of W steps, each step reading one step of the layer before
  mixed        groups of 10 members, each group needing the previous group, with data references
  for_each     one step `each` looping over 0 … N-1 (`${{ item }}` in --url is the item)

In --url, `{i}` is the step's number (s0, s1, …), so each step of `independent` can ask for its own URL.

Usage: scripts/generate-plan.py --shape independent --steps 10000 > /tmp/plan.yaml
       scripts/generate-plan.py --shape for_each --steps 2000 --concurrency 64 --url '/small.json?i=${{ item }}'
"""
import argparse
import json
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=["independent", "chain", "layers", "mixed", "for_each"], default="independent")
    parser.add_argument("--steps", type=int, default=10_000, help="number of request steps")
    parser.add_argument("--width", type=int, default=20, help="layer width for --shape layers")
    parser.add_argument("--url", default="/delay/0", help="path each request asks for")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080")
    parser.add_argument("--concurrency", type=int, default=0, help="plan-wide concurrency (0: none)")
    args = parser.parse_args()

    out = sys.stdout
    out.write("reqplan: 1\n")
    out.write(f"name: generated {args.shape} plan of {args.steps} steps\n")
    out.write("inputs:\n")
    out.write(f"  base_url: {{ default: \"{args.base_url}\" }}\n")
    out.write("defaults:\n  base_url: ${{ inputs.base_url }}\n  timeout: 30s\n")
    if args.concurrency:
        out.write(f"concurrency: {args.concurrency}\n")
    out.write("steps:\n")
    n = args.steps

    def url(i: int) -> str:
        return json.dumps(args.url.replace("{i}", str(i)))

    if args.shape == "independent":
        for i in range(n):
            out.write(f"  s{i}: {{ request: {{ url: {url(i)} }} }}\n")
    elif args.shape == "for_each":
        out.write(f"  each:\n    for_each: {list(range(n))}\n    request: {{ url: {url(0)} }}\n")
    elif args.shape == "chain":
        out.write(f"  s0: {{ request: {{ url: {args.url} }} }}\n")
        for i in range(1, n):
            out.write(f"  s{i}: {{ needs: [s{i - 1}], request: {{ url: {args.url} }} }}\n")
    elif args.shape == "layers":
        width = args.width
        for i in range(n):
            layer, column = divmod(i, width)
            if layer == 0:
                out.write(f"  s{i}: {{ request: {{ url: {args.url} }} }}\n")
            else:
                previous = (layer - 1) * width + column
                out.write(f"  s{i}:\n    request:\n      url: {args.url}\n"
                          f"      headers: {{ X-From: \"${{{{ steps.s{previous}.status }}}}\" }}\n")
    else:
        groups = max(1, n // 10)
        for g in range(groups):
            out.write(f"  g{g}:\n")
            if g > 0:
                out.write(f"    needs: [g{g - 1}]\n")
            out.write("    group:\n")
            for m in range(10):
                sid = f"g{g}m{m}"
                if g > 0 and m == 0:
                    out.write(f"      {sid}: {{ request: {{ url: \"{args.url}?from=${{{{ steps.g{g - 1}m9.status }}}}\" }} }}\n")
                else:
                    out.write(f"      {sid}: {{ request: {{ url: {args.url} }} }}\n")


if __name__ == "__main__":
    main()
