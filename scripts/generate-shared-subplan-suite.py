#!/usr/bin/env python3
"""Generate a folder of small reqplan plans that all run one shared sub-plan, for benchmarks.

DIR/shared/login.yaml is a login sub-plan (a form, a var reading its CSRF token, a POST, a secret
output); DIR/plan-0000.yaml … each run it as a sub-plan with their own user, then read a page with
the token it returns, in a group with one more request.

Usage: scripts/generate-shared-subplan-suite.py --plans 1000 --out /tmp/suite
       reqplan validate /tmp/suite/plan-*.yaml
"""
import argparse
import os

LOGIN = """\
reqplan: 1
name: Log in
inputs:
  base_url: { default: "http://127.0.0.1:8080" }
  user: { default: alice }
defaults:
  base_url: ${{ inputs.base_url }}
  timeout: 5s
vars:
  csrf: ${{ match(steps.form.body, 'name="csrf" value="([^"]+)"')[1] }}
steps:
  form:
    request: { url: /login-form, query: { user: "${{ inputs.user }}" } }
  submit:
    request:
      method: POST
      url: /login-form
      form: { user: "${{ inputs.user }}", csrf: "${{ vars.csrf }}" }
    expect:
      body: { token: { exists: true } }
outputs:
  token: { value: "${{ steps.submit.body.token }}", secret: true }
  user: ${{ steps.submit.body.user }}
"""

PLAN = """\
reqplan: 1
name: Plan {number}
inputs:
  base_url: {{ default: "http://127.0.0.1:8080" }}
defaults:
  base_url: ${{{{ inputs.base_url }}}}
steps:
  login:
    plan:
      file: shared/login.yaml
      inputs: {{ base_url: "${{{{ inputs.base_url }}}}", user: user{number} }}
  pages:
    group:
      account: {{ request: {{ url: /account.xml, auth: {{ bearer: "${{{{ steps.login.outputs.token }}}}" }} }} }}
      preferences: {{ request: {{ url: "/users/${{{{ steps.login.outputs.user }}}}/preferences" }} }}
outputs:
  user: ${{{{ steps.login.outputs.user }}}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plans", type=int, default=1000, help="number of plan files")
    parser.add_argument("--out", required=True, help="the folder to write (created if missing)")
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, "shared"), exist_ok=True)
    with open(os.path.join(args.out, "shared", "login.yaml"), "w") as file:
        file.write(LOGIN)
    width = len(str(args.plans - 1))
    for number in range(args.plans):
        with open(os.path.join(args.out, f"plan-{number:0{width}d}.yaml"), "w") as file:
            file.write(PLAN.format(number=number))


if __name__ == "__main__":
    main()
