#!/usr/bin/env bash
# Tests the pre-commit hook `reqplan-validate` (.pre-commit-hooks.yaml) with pre-commit's own
# `try-repo`, as a user's repository would run it: in a scratch git repository, a valid plan passes, an
# invalid plan and an invalid Arazzo document fail with their diagnostics shown, and YAML that is not a
# plan (a config file, a folder starting with `_`, an environment) is never given to reqplan.
#
#   scripts/check-pre-commit-hook.sh [path/to/reqplan]     (default: .build/debug/reqplan)
#
# Needs pre-commit (`python3 -m pip install pre-commit`). Without it the check is skipped, with a line
# saying so, unless it runs in CI (`CI` set, as GitHub Actions and GitLab CI set it) or
# REQPLAN_REQUIRE_PRE_COMMIT=1, where a missing pre-commit fails. `.ci/run` installs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
reqplan="${1:-$root/.build/debug/reqplan}"

# pre-commit's command, or its module where pip put the command off the PATH (`pip install --user`).
if command -v pre-commit >/dev/null 2>&1; then
    pre_commit=(pre-commit)
elif python3 -c 'import pre_commit' >/dev/null 2>&1; then
    pre_commit=(python3 -m pre_commit)
else
    if [ -n "${CI:-}" ] || [ "${REQPLAN_REQUIRE_PRE_COMMIT:-}" = 1 ]; then
        echo "check-pre-commit-hook: pre-commit is not installed (python3 -m pip install pre-commit)" >&2
        exit 1
    fi
    echo "check-pre-commit-hook: skipped, pre-commit is not installed (python3 -m pip install pre-commit to run it)"
    exit 0
fi
[ -x "$reqplan" ] || { echo "check-pre-commit-hook: no reqplan at $reqplan (swift build first)" >&2; exit 1; }
case "$reqplan" in /*) ;; *) reqplan="$PWD/$reqplan" ;; esac

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The hook is `language: system`: it runs the reqplan on the PATH, here the one just built.
export PATH="$(dirname "$reqplan"):$PATH"
# pre-commit's own store (the clone of this repository it makes), away from the user's.
export PRE_COMMIT_HOME="$scratch/store"
export GIT_AUTHOR_NAME=check GIT_AUTHOR_EMAIL=check@example.invalid
export GIT_COMMITTER_NAME=check GIT_COMMITTER_EMAIL=check@example.invalid

repo="$scratch/repo"
mkdir -p "$repo/plans/_data" "$repo/config" "$repo/flows"
cat >"$repo/plans/health.yaml" <<'EOF'
reqplan: 1
steps:
  health:
    request: { url: "https://api.example.com/health" }
    expect: { status: 200 }
EOF
cat >"$repo/plans/launch.yaml" <<'EOF'
reqplan: 1
steps:
  login:
    request: { method: POST, url: "https://api.example.com/login" }
  home:
    need: [login]
    request: { url: "https://api.example.com/home" }
EOF
cat >"$repo/flows/pets.arazzo.yaml" <<'EOF'
arazzo: 1.0.1
info: { title: Pets, version: 1.0.0 }
sourceDescriptions:
  - { name: pets, url: ./pets.openapi.yaml, type: openapi }
workflows:
  - workflowId: adopt
    steps:
      - stepId: find
        operationId: pets.findPet
        successCriteria: [{ condition: $statusCode == 200 }]
      - stepId: adopt
        operationId: pets.adoptPet
        parameters: [{ name: id, in: path, value: $steps.fnd.outputs.id }]
EOF
# Not plans: a config file, data under a `_` folder, an environment. Each would fail `reqplan validate`.
printf 'server:\n  port: 8080\n' >"$repo/config/app.yaml"
printf 'items: [1, 2, 3]\n' >"$repo/plans/_data/items.yaml"
printf 'base_url: https://staging.example.com\n' >"$repo/plans/staging.env.yaml"
git -C "$repo" init --quiet
git -C "$repo" add -A

# try-repo clones the hook repository for every run (twice with uncommitted changes), which takes seconds
# to a minute on a busy disk. The hook is `language: system`: nothing of this repository but
# .pre-commit-hooks.yaml matters, so most checks use a repository holding that file alone, as it is in the
# working tree; the first uses this repository itself.
hooks="$scratch/hooks"
mkdir -p "$hooks"
cp "$root/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" init --quiet
git -C "$hooks" add -A
git -C "$hooks" commit --quiet -m hooks

failures=0
# check HOOK_REPO STATUS LABEL FILE... --expect TEXT...: `pre-commit try-repo HOOK_REPO reqplan-validate
# --files FILE...` in the scratch repository exits with STATUS, and every TEXT is in its output.
check() {
    local hook_repo="$1" status="$2" label="$3"
    shift 3
    local files=() expected=()
    while [ $# -gt 0 ] && [ "$1" != --expect ]; do files+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    expected=("$@")
    local output got=0
    output="$(cd "$repo" && "${pre_commit[@]}" try-repo --color never "$hook_repo" reqplan-validate --files "${files[@]}" 2>&1)" || got=$?
    local bad=""
    [ "$got" = "$status" ] || bad="exit status $got, expected $status"
    for text in "${expected[@]}"; do
        grep -qF -- "$text" <<<"$output" || bad="${bad:+$bad; }no \`$text\` in the output"
    done
    if [ -n "$bad" ]; then
        echo "FAIL $label: $bad"
        sed 's/^/    /' <<<"$output"
        failures=$((failures + 1))
    else
        echo "ok   $label"
    fi
}

check "$root" 0 "a valid plan passes (this repository as the hook repository)" plans/health.yaml --expect "reqplan validate" "Passed"
check "$hooks" 1 "an invalid plan fails, with its diagnostic" plans/launch.yaml \
    --expect "Failed" "error[RP0101]: unknown key \`need\`" "plans/launch.yaml:6:5" "did you mean \`needs\`?"
check "$hooks" 1 "an invalid Arazzo document fails, with its diagnostic" flows/pets.arazzo.yaml \
    --expect "Failed" "flows/pets.arazzo.yaml:"
check "$hooks" 0 "YAML that is not a plan is not given to reqplan" \
    config/app.yaml plans/_data/items.yaml plans/staging.env.yaml --expect "(no files to check)Skipped"
check "$hooks" 0 "a valid plan among files that are not plans passes" \
    plans/health.yaml config/app.yaml plans/_data/items.yaml plans/staging.env.yaml --expect "Passed"

if [ "$failures" -gt 0 ]; then
    echo "check-pre-commit-hook: $failures check(s) failed"
    exit 1
fi
echo "check-pre-commit-hook: the hook reqplan-validate passes pre-commit try-repo"
