/// The schema's names and scalar formats: what a step id, header name, text, value, duration, status or
/// method looks like, and the YAML merge key.
extension SchemaBuilder {
    /// A name (step id, input, output, var, item): the pattern's body, anchored by ``anchored(_:orMergeKey:)``.
    static let namePattern = "[A-Za-z_][A-Za-z0-9_-]*"
    /// A header name: an HTTP token (RFC 9110).
    static let headerNamePattern = "[A-Za-z0-9!#$%&'*+.^_`|~-]+"
    /// Exactly one `${{ }}`: string literals may hold `}}`, so they are skipped whole.
    static let expressionPattern = #"\$\{\{(?:'(?:[^']|'')*'|"(?:[^"\\]|\\[\s\S])*"|[^}'"]|\}(?!\}))*\}\}"#
    /// Where a `${{` starts (refused in literal places, RP0210).
    static let expressionStart = #"\$\{\{"#

    /// `^(?:body)` anchored at the very end; as a mapping key, `<<` is allowed too (for editors without merges).
    ///
    /// Patterns end with `(?![\s\S])` rather than `$`, which in some engines (Python's `re`) also matches
    /// before a final newline.
    static func anchored(_ body: String, orMergeKey: Bool = false) -> String {
        orMergeKey ? #"^(?:<<|"# + body + #")(?![\s\S])"# : "^" + body + #"(?![\s\S])"#
    }

    static let nameMessage = "A name starts with a letter or `_` and contains letters, digits, `_` and `-`."
    static let headerNameMessage = "A header name is letters, digits and `!#$%&'*+-.^_`|~` (no spaces or `:`)."
    static let headerNameDescription =
        "A header name: an HTTP token (RFC 9110) of letters, digits and ``!#$%&'*+-.^_`|~`` (RP0106 otherwise)."

    /// `name` … `mergeKey`, in the order they are printed.
    mutating func formatDefinitions() -> SchemaJSON {
        [
            "name": [
                "description": "A name: `[A-Za-z_][A-Za-z0-9_-]*` (ASCII letters only; RP0106 otherwise).",
                "type": "string",
                "pattern": .string(Self.anchored(Self.namePattern)),
                "patternErrorMessage": .string(Self.nameMessage),
            ],
            "nameKey": [
                "description": "A step id, input name or output name: `[A-Za-z_][A-Za-z0-9_-]*` (RP0106 otherwise).",
                "type": "string",
                "pattern": .string(Self.anchored(Self.namePattern, orMergeKey: true)),
                "patternErrorMessage": .string(Self.nameMessage),
            ],
            "headerName": [
                "description": .string(Self.headerNameDescription),
                "type": "string",
                "pattern": .string(Self.anchored(Self.headerNamePattern)),
                "patternErrorMessage": .string(Self.headerNameMessage),
            ],
            "headerNameKey": [
                "description": .string(Self.headerNameDescription),
                "type": "string",
                "pattern": .string(Self.anchored(Self.headerNamePattern, orMergeKey: true)),
                "patternErrorMessage": .string(Self.headerNameMessage),
            ],
            "text": [
                "description": "Text: a string, or a number or boolean taken as written. Null is not text (RP0102).",
                "type": ["string", "number", "boolean"],
            ],
            "textTemplate": [
                "description":
                    "A text template: a string that may hold `${{ expression }}` (interpolated into the text), or a number or boolean taken as written. Null is not text (RP0102).",
                "type": ["string", "number", "boolean"],
            ],
            "headerLineText": [
                "description":
                    "A text template that goes into a header line: no control character but a tab (a line break would end the header; RP0517).",
                "type": ["string", "number", "boolean"],
                "pattern": "^[^\\u0000-\\u0008\\u000A-\\u001F\\u007F]*$",
            ],
            "value": [
                "description":
                    "A value template: any YAML value. Strings may hold `${{ }}`; a string that is exactly one `${{ }}` keeps the type of its value (a list stays a list), other strings are interpolated text. Mapping keys are literal: a key with `${{` is RP0210.",
                "propertyNames": ["not": ["pattern": .string(Self.expressionStart)]],
                "additionalProperties": Self.ref("value"),
                "items": Self.ref("value"),
            ],
            "literal": [
                "description": "A literal YAML value: `${{ }}` is not evaluated here (RP0210).",
                "not": ["type": "string", "pattern": .string(Self.expressionStart)],
                "propertyNames": ["not": ["pattern": .string(Self.expressionStart)]],
                "additionalProperties": Self.ref("literal"),
                "items": Self.ref("literal"),
            ],
            "singleExpression": [
                "description": "Exactly one `${{ expression }}`, with nothing before or after it.",
                "type": "string",
                "pattern": .string(Self.anchored(Self.expressionPattern)),
                "patternErrorMessage":
                    "Write exactly one `${{ … }}` with nothing around it (text around it makes a string).",
            ],
            "duration": [
                "description":
                    "A duration: whole numbers with units `ms`, `s`, `m`, `h`, components added (`250ms`, `5s`, `2m`, `1h`, `1m30s`). A string longer than zero and at most 7 days (`168h`); no decimals, spaces or other units (RP0108).",
                "type": "string",
                "pattern": .string(Self.anchored("(?=[0-9hms]*[1-9])(?:[0-9]+(?:ms|s|m|h))+")),
                "patternErrorMessage":
                    "A duration is a whole number and a unit (`ms`, `s`, `m`, `h`) with no space, such as `250ms`, `5s`, `2m` or `1m30s`.",
                "examples": ["250ms", "5s", "2m", "1m30s"],
            ],
            "latencyLimit": [
                "description":
                    "A latency limit of `slo`: a duration, bare (at most) or after `<` or `<=` and spaces (`300ms`, `\"< 1s\"`, `\"<= 2s\"`). Longer than zero and at most 7 days (RP0108).",
                "type": "string",
                "pattern": .string(Self.anchored("(?:<=?[ ]*)?(?=[0-9hms]*[1-9])(?:[0-9]+(?:ms|s|m|h))+")),
                "patternErrorMessage":
                    "A latency limit is a duration such as `300ms` or `1s`, bare or after `<` or `<=`.",
                "examples": ["300ms", "< 1s"],
            ],
            "status": [
                "description":
                    "A status: an exact code from `100` to `599`, or a class `1xx`–`5xx` (`2XX` too). RP0109 otherwise.",
                "anyOf": [
                    ["type": "integer", "minimum": 100, "maximum": 599],
                    [
                        "type": "string",
                        "pattern": .string(Self.anchored("(?:[1-5][0-9]{2}|[1-5][xX]{2})")),
                        "patternErrorMessage": "A status is a code from 100 to 599 or a class from `1xx` to `5xx`.",
                    ],
                ],
                "examples": [200, "2xx"],
            ],
            "method": [
                "description": .string(
                    "The HTTP method, in capitals (RP0110 otherwise). Not a template. Idempotent methods (all but "
                        + Self.wordList(Self.nonIdempotentMethods, or: false) + ") are retried without `unsafe`."),
                "enum": Self.words(HTTPMethodName.self),
                "default": .string(HTTPMethodName.GET.rawValue),
            ],
            "onFailure": [
                "description":
                    "`continue` (default): the others go on, and steps depending on the failed one are skipped unless their `if:` says otherwise. `fail_fast`: running siblings in the scope are cancelled at once and those not started end `cancelled`, `always()` steps included. RP0105 otherwise.",
                "enum": Self.words(FailurePolicy.self),
                "default": .string(FailurePolicy.continue.rawValue),
            ],
            "concurrency": [
                "description":
                    "Most requests in flight at once (1–100 000; RP0102 if not an integer, RP0105 if out of range).",
                "type": "integer",
                "minimum": .integer(PlanReader.concurrencyRange.lowerBound),
                "maximum": .integer(PlanReader.concurrencyRange.upperBound),
            ],
            "valueType": [
                "description": .string(
                    "A value type of the language: " + Self.wordList(ValueType.allCases.map(\.rawValue), or: true)
                        + " (RP0105 otherwise)."),
                "enum": Self.words(ValueType.self),
            ],
            "mergeKey": [
                "description":
                    "YAML merge key: `<<: *anchor` merges one mapping, `<<: [*a, *b]` several (an earlier one wins); keys written in the mapping itself win over merged keys. The value MUST be a mapping or a list of mappings (RP0102).",
                "anyOf": [["type": "object"], ["type": "array", "items": ["type": "object"]]],
            ],
        ]
    }

    /// The methods retried and polled only with `unsafe: true`.
    static var nonIdempotentMethods: [String] {
        HTTPMethodName.allCases.filter { !$0.isIdempotent }.map(\.rawValue)
    }

    /// "`a`, `b` or `c`" (or "and").
    static func wordList(_ words: [String], or: Bool) -> String {
        let quoted = words.map { "`\($0)`" }
        guard let last = quoted.last, quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + last
    }
}
