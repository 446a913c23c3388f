/// The schema of steps: `steps`, a `step` (its keys, and which kinds allow which), `needs`, `if`, `for_each`, `as`.
extension SchemaBuilder {
    /// `steps` … `itemName`, in the order they are printed.
    mutating func stepDefinitions() -> SchemaJSON {
        [
            "steps": Self.map(
                [
                    "description":
                        "A non-empty mapping of step id → step. Step ids are unique across the whole plan, members included (RP0107).",
                    "type": "object",
                    "minProperties": 1,
                ], names: "nameKey", values: Self.ref("step")),
            "step": step(),
            "needs": [
                "description":
                    "Steps that must end (in any state) before this one starts: a step id or a list of step ids (RP0102 otherwise). Each must name an existing step (RP0301) addressable from here (RP0211).",
                "anyOf": [Self.ref("name"), ["type": "array", "items": Self.ref("name")]],
            ],
            "condition": [
                "description":
                    "Whether the step runs, decided once just before it would start (for a for_each, once before the loop). `true`/`false`, a bare expression (`steps.a.status == 200`), or exactly one `${{ }}` with only spaces around it. Without `if:` the step behaves as `if: ${{ success() }}`; an explicit `if:` replaces it (write `success() && …` to keep it). `success()`, `failure()` and `always()` are allowed only here.",
                "type": ["boolean", "string"],
                "pattern": .string(
                    #"^(?![\s\S]*\$\{\{)|^[ \t\r\n]*"# + Self.expressionPattern + #"[ \t\r\n]*(?![\s\S])"#),
                "patternErrorMessage":
                    "A condition is a bare expression or exactly one `${{ … }}`; text around `${{ }}` is not allowed (RP0210).",
                "examples": [
                    "${{ always() }}",
                    "${{ success() && inputs.mode == 'full' }}",
                    "steps.config.body.maintenance == true",
                ],
            ],
            "forEachItems": [
                "description":
                    "Runs the body (`request` or `group`) once per item: a YAML list (whose elements may hold `${{ }}`), exactly one `${{ }}` giving a list (RP0102 otherwise), or `{ file: PATH }`, the rows of a CSV or JSON Lines file. Evaluated once, when the step starts; it cannot read the item. Results keep the input order.",
                "anyOf": [
                    ["type": "array", "items": Self.ref("value")], Self.ref("singleExpression"), Self.ref("itemsFile"),
                ],
            ],
            "itemsFile": closedObject(
                "`for_each` (a data file)",
                [
                    "description":
                        "The rows of a data file are the items, in the file's order: `{ file: rows.csv }`. A CSV row is an object keyed by the header's names, its values text; a JSON Lines line is any JSON value. `reqplan validate` reads the file (inside the plan's project, under the plan size limit), reports its problems in it (RP0009) and checks `item.FIELD` against its columns (RP0212).",
                    "type": "object",
                    "required": ["file"],
                ],
                keys: PlanReader.itemsFileKeys,
                properties: [
                    "file": [
                        "description":
                            "The data file, relative to the file this step is written in; a literal path (no `${{ }}`, RP0210), not empty (RP0105). It must exist inside the plan's project (RP0601, RP0602).",
                        "type": "string",
                        "minLength": 1,
                        "not": ["pattern": .string(Self.expressionStart)],
                    ],
                    "format": [
                        "description":
                            "`csv` (RFC 4180, a header row of field names) or `jsonl` (one JSON value per line). Needed when the file's name ends in neither `.csv` nor `.jsonl`/`.ndjson` (RP0103).",
                        "enum": ["csv", "jsonl"],
                    ],
                ]),
            "itemName": [
                "description": .string(
                    "The item's name inside the body (default `item`): a name, not "
                        + Self.wordList(PlanReader.reservedItemNames, or: true)
                        + " (RP0106). Only on for_each steps (RP0114)."),
                "type": "string",
                "pattern": .string(Self.anchored(Self.namePattern)),
                "patternErrorMessage": .string(Self.nameMessage),
                "not": ["enum": Self.strings(PlanReader.reservedItemNames)],
                "default": "item",
            ],
        ]
    }

    /// A step: `PlanReader.allStepKeys`, then a `oneOf` with one branch per kind of step, each forbidding
    /// the keys the parser refuses on that kind (the other kinds, `as` off a for_each, the request-only
    /// keys off a request body, the collection-only keys on a request).
    private mutating func step() -> SchemaJSON {
        let kinds = PlanReader.stepKindKeys
        let requestOnly = PlanReader.requestOnlyKeys
        func otherKinds(_ allowed: String...) -> [String] { kinds.filter { !allowed.contains($0) } }
        func branch(_ title: String, _ required: [String], forbidding keys: [String]) -> SchemaJSON {
            ["title": .string(title), "required": Self.strings(required)] + Self.forbidding(keys)
        }
        let unsafeMethods = Self.strings(Self.nonIdempotentMethods)
        return closedObject(
            "a step",
            [
                "description":
                    "A step: exactly one of `request`, `group`, `sequence`, `for_each` (with a `request` or a `group` body) or `plan` (a sub-plan), plus the keys that kind allows.",
                "type": "object",
            ],
            keys: PlanReader.allStepKeys,
            properties: [
                "request": Self.ref(
                    "request",
                    "Sends one HTTP request (with its retries). On a for_each step: the body, sent once per item."),
                "group": Self.ref(
                    "steps",
                    "Member steps that run concurrently; the group ends when all have ended. Needing a group means needing all its members. On a for_each step: the body, run as a group once per item. Empty is RP0115."
                ),
                "sequence": Self.ref(
                    "steps",
                    "Member steps that run one after another, in the order written: each depends on the one before it. Not allowed as a for_each body (RP0104: use a `group` with a `sequence` member). Empty is RP0115."
                ),
                "for_each": Self.ref("forEachItems"),
                "plan": Self.ref("subPlan"),
                "as": Self.ref("itemName"),
                "needs": Self.ref("needs"),
                "if": Self.ref("condition"),
                "description": Self.ref("text", "Free text."),
                "timeout": Self.ref(
                    "duration",
                    "On a `request` step: each attempt (overrides `defaults.timeout`). On a `group`, `sequence` or `for_each`: the whole step (its running members are cancelled and it fails)."
                ),
                "retry": Self.ref(
                    "retry",
                    "Retry policy (request steps and for_each over a request; RP0114 elsewhere). Fields set here win over `defaults.retry`, field by field."
                ),
                "expect": Self.ref(
                    "expect",
                    "What the response must look like (request steps and for_each over a request, where it applies to each item; RP0114 elsewhere). Fields set here replace those of `defaults.expect`."
                ),
                "concurrency": Self.ref(
                    "concurrency",
                    "Most requests of this step's members or items in flight at once, at any depth (group, sequence, for_each; RP0114 on a request step)."
                ),
                "on_failure": Self.ref(
                    "onFailure",
                    "What a failing member or item does to the others (group, sequence, for_each; RP0114 on a request step). Without it, the enclosing scope's policy applies."
                ),
                "cookies": [
                    "description":
                        "Whether the run's cookie jar applies to this step's requests (on a group, sequence or for_each, to every request inside): with `false` no stored cookie is sent and no `Set-Cookie` is stored. The innermost setting wins, then the plan's `cookies`.",
                    "type": "boolean",
                ],
                "poll": Self.ref("poll"),
            ],
            then: [
                // Polling a method that is not idempotent needs `unsafe: true` (RP0702).
                "if": [
                    "required": ["poll", "request"],
                    "properties": [
                        "request": ["required": ["method"], "properties": ["method": ["enum": unsafeMethods]]]
                    ],
                ],
                "then": ["properties": ["poll": ["required": ["unsafe"], "properties": ["unsafe": ["const": true]]]]],
                "oneOf": [
                    branch(
                        "request step", ["request"],
                        forbidding: otherKinds("request") + ["as"] + PlanReader.collectionOnlyKeys),
                    branch("group step", ["group"], forbidding: otherKinds("group") + ["as"] + requestOnly),
                    branch("sequence step", ["sequence"], forbidding: otherKinds("sequence") + ["as"] + requestOnly),
                    branch(
                        "for_each over a request", ["for_each", "request"],
                        forbidding: otherKinds("for_each", "request")),
                    branch(
                        "for_each over a group", ["for_each", "group"],
                        forbidding: otherKinds("for_each", "group") + requestOnly),
                    branch(
                        "plan step (a sub-plan)", ["plan"],
                        forbidding: otherKinds("plan") + ["as"] + requestOnly + ["on_failure"]),
                ],
            ])
    }
}
