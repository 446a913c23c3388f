/// The schema of what a request checks and repeats: `retry`, `poll`, `expect` and its matchers.
extension SchemaBuilder {
    /// `retry` … `matcherChecks`, in the order they are printed.
    mutating func checkDefinitions() -> SchemaJSON {
        let attempts = PlanReader.retryAttemptsRange
        let polls = PlanReader.pollAttemptsRange
        let factor = PlanReader.pollFactorRange
        // `429` is written as a number in YAML as often as a string: both spellings are accepted.
        let conditions: [SchemaJSON] = RetryCondition.allCases.flatMap { condition -> [SchemaJSON] in
            Int(condition.rawValue).map { [.string(condition.rawValue), .integer($0)] } ?? [.string(condition.rawValue)]
        }
        return [
            "retry": [
                "description":
                    "Retry policy: `retry: 3` (shorthand for `{ attempts: 3 }`) or a mapping. `POST` and `PATCH` are retried only with `unsafe: true`. Waits use exponential backoff with full jitter; a `Retry-After` header replaces the wait (up to 60 s).",
                "anyOf": [
                    [
                        "description": "Shorthand: the total number of attempts (1–100), the first included.",
                        "type": "integer",
                        "minimum": .integer(attempts.lowerBound),
                        "maximum": .integer(attempts.upperBound),
                    ],
                    Self.ref("retryPolicy"),
                ],
            ],
            "retryPolicy": closedObject(
                "`retry`",
                [
                    "description": "A retry policy; unset fields come from `defaults.retry`.",
                    "type": ["object", "null"],
                ],
                keys: PlanReader.retryKeys,
                properties: [
                    "attempts": [
                        "description": "Total tries, the first included (1–100; default 1, no retry).",
                        "type": "integer",
                        "minimum": .integer(attempts.lowerBound),
                        "maximum": .integer(attempts.upperBound),
                        "default": 1,
                    ],
                    "backoff": Self.ref(
                        "duration",
                        "Base of the wait before the second try; the ceiling doubles before each later try (default `100ms`)."
                    )
                    .merging(["default": "100ms"]),
                    "max_backoff": Self.ref(
                        "duration",
                        "The longest wait (default `10s`). When both are written in the same `retry`, shorter than `backoff` is RP0105."
                    )
                    .merging(["default": "10s"]),
                    "on": [
                        "description":
                            "Which failures are retried: a condition or a list of conditions (default: all four).",
                        "anyOf": [Self.ref("retryCondition"), ["type": "array", "items": Self.ref("retryCondition")]],
                    ],
                    "unsafe": [
                        "description": "Allow retrying methods that are not idempotent (`POST`, `PATCH`).",
                        "type": "boolean",
                        "default": false,
                    ],
                ]),
            "retryCondition": [
                "description":
                    "`5xx`: a status 500–599 that does not satisfy `expect.status`; `429`: status 429 that does not satisfy it; `timeout`: the attempt exceeded its timeout; `connect`: the connection failed (refused, reset, DNS; not TLS). RP0105 otherwise.",
                "enum": .array(conditions),
            ],
            "poll": closedObject(
                "`poll`",
                [
                    "description":
                        "Polling (request steps and for_each over a request; RP0114 elsewhere): send the request again and again until `until` holds on its response. Each poll is one request with its `retry`; between polls the step waits `every` and holds no concurrency slot. A response `until` does not accept and `expect.status` does not accept fails the step; when the bound (`timeout`, `attempts`) runs out the step fails with reason `timeout`. `POST` and `PATCH` poll only with `unsafe: true` (RP0702).",
                    "type": "object",
                    "required": ["until"],
                    "anyOf": [["required": ["timeout"]], ["required": ["attempts"]]],
                ],
                keys: PlanReader.pollKeys,
                properties: [
                    "until": Self.ref(
                        "condition",
                        "When to stop: a condition on the latest response, read as `response` (`status`, `headers`, `body`, `cookies`, `duration`; RP0701 anywhere else). Required (RP0103). When it holds, polling ends with that response, which must meet `expect` apart from its status."
                    ),
                    "every": Self.ref("pollInterval"),
                    "timeout": Self.ref(
                        "duration",
                        "The longest time polling may take, from the start of the first poll: no poll starts after it, and one in flight gets only the time left. `timeout`, `attempts` or both are required (RP0103)."
                    ),
                    "attempts": [
                        "description":
                            "The most polls (1–10 000). `timeout`, `attempts` or both are required (RP0103).",
                        "type": "integer",
                        "minimum": .integer(polls.lowerBound),
                        "maximum": .integer(polls.upperBound),
                    ],
                    "unsafe": [
                        "description":
                            "Allow polling methods that are not idempotent (`POST`, `PATCH`; RP0702 without it).",
                        "type": "boolean",
                        "default": false,
                    ],
                ]),
            "pollInterval": [
                "description":
                    "The wait between polls (default `1s`): a duration, or a backoff `{ initial, factor, max }` whose first wait is `initial` and each later one `factor` times the one before, at most `max`. A response's `Retry-After` replaces the wait (up to 60 s).",
                "anyOf": [
                    Self.ref("duration"),
                    closedObject(
                        "`every`", ["type": "object"], keys: PlanReader.pollIntervalKeys,
                        properties: [
                            "initial": Self.ref("duration", "The first wait (default `1s`).").merging(["default": "1s"]
                            ),
                            "factor": [
                                "description": "Each wait is the one before times this (1–10, default 2).",
                                "type": "number",
                                "minimum": .number(factor.lowerBound),
                                "maximum": .number(factor.upperBound),
                                "default": 2,
                            ],
                            "max": Self.ref(
                                "duration", "The longest wait (default `30s`); shorter than `initial` is RP0105."
                            )
                            .merging(["default": "30s"]),
                        ]),
                ],
            ],
            "expect": closedObject(
                "`expect`",
                [
                    "description":
                        "What the response must look like; every check must hold, otherwise the request fails. Default `status: 2xx`.",
                    "type": ["object", "null"],
                ],
                keys: PlanReader.expectKeys,
                properties: [
                    "status": [
                        "description":
                            "A status or a list of statuses; the response status MUST match one of them (default `2xx`; an empty list is RP0109).",
                        "anyOf": [Self.ref("status"), ["type": "array", "minItems": 1, "items": Self.ref("status")]],
                    ],
                    "headers": Self.map(
                        [
                            "description": "Response header name (compared ignoring case) → matcher.",
                            "type": ["object", "null"],
                        ], names: "headerNameKey", values: Self.ref("matcher")),
                    "body": Self.map(
                        [
                            "description":
                                "Body path → matcher. Paths: `$` (the whole body), `token`, `data.items[0].id`, `items[-1]`, `['content-type']`, `items[*].id`. A malformed path is RP0201. A step's `body` replaces the default `body` mapping entirely.",
                            "type": ["object", "null"],
                        ], names: "bodyPath", values: Self.ref("matcher")),
                    "max_duration": Self.ref(
                        "duration",
                        "The response MUST arrive within this, per attempt (a failed expectation, not retried)."),
                ]),
            "bodyPath": [
                "description":
                    #"A path into the response body: `$` (or `$.`, or empty) for the whole body, else names joined by `.` and selectors `[0]`, `[-1]`, `['key']`, `["key"]`, `[*]`, optionally after `$` or `$.`."#,
                "type": "string",
                "pattern":
                    #"^(?:<<|(?:\$\.?)?(?:[ \t\r\n]*(?:[A-Za-z_][A-Za-z0-9_-]*|\[[ \t\r\n]*(?:-?[0-9]+|'(?:[^']|'')*'|"(?:[^"\\]|\\[nt"\\])*"|\*)[ \t\r\n]*\])[ \t\r\n]*(?:(?:\.[ \t\r\n]*[A-Za-z_][A-Za-z0-9_-]*|\[[ \t\r\n]*(?:-?[0-9]+|'(?:[^']|'')*'|"(?:[^"\\]|\\[nt"\\])*"|\*)[ \t\r\n]*\])[ \t\r\n]*)*))(?![\s\S])|^(?:\$\.?)?(?![\s\S])"#,
                "patternErrorMessage":
                    "Body paths look like `token`, `data.items[0].id`, `['x y']` or `$` for the whole body.",
            ],
            "matcher": [
                "description": .string(
                    "A plain value (not a mapping; `${{ }}` allowed), meaning `equals`, or a mapping of checks that MUST all hold: "
                        + PlanReader.matcherKeys.map { "`\($0)`" }.joined(separator: ", ")
                        + ". To compare with a mapping write `equals: { … }`."),
                "anyOf": [
                    ["type": ["string", "number", "boolean", "null", "array"], "allOf": [Self.ref("value")]],
                    Self.ref("matcherChecks"),
                ],
            ],
            "matcherChecks": closedObject(
                "a matcher",
                [
                    "description":
                        "Checks that MUST all hold (an empty mapping is RP0103, an unknown check RP0101). Except for `exists: false`, every check fails on an absent value.",
                    "type": "object",
                    "minProperties": 1,
                ],
                keys: PlanReader.matcherKeys,
                properties: [
                    "equals": Self.ref(
                        "value",
                        #"Holds when the value equals it (`1` equals `1.0`; objects ignore key order; `"5"` is not `5`). `${{ }}` allowed."#
                    ),
                    "exists": [
                        "description": "`true`: the value is present (a present null exists); `false`: it is absent.",
                        "type": "boolean",
                    ],
                    "matches": [
                        "description":
                            "A regular expression (ICU / NSRegularExpression syntax; RP0113 if it does not compile). Holds when the value is a string, or a number or boolean taken as text, containing a match (unanchored: use `^…$`).",
                        "type": "string",
                    ],
                    "type": Self.ref("valueType", "Holds when the value has this type."),
                    "contains": Self.ref(
                        "value",
                        "Holds when the value is a string containing it as a substring, or a list with an element equal to it. `${{ }}` allowed."
                    ),
                    "length": [
                        "description":
                            "Holds when the value is a string of that many characters, a list of that many elements or an object of that many keys.",
                        "type": "integer",
                        "minimum": 0,
                    ],
                ]),
        ]
    }
}
