/// The functions of the `${{ }}` language.
public enum BuiltinFunction: String, Sendable, Hashable, CaseIterable {
    /// `success()` — every dependency succeeded (the default condition).
    case success
    /// `failure()` — some dependency failed.
    case failure
    /// `always()` — true whatever happened before.
    case always
    /// `length(x)` — characters of a string, elements of a list, keys of an object.
    case length
    /// `contains(haystack, needle)` — substring of a string, or element of a list.
    case contains
    /// `json(x)` — `x` as compact JSON text.
    case json
    /// `from_json(text)` — parses JSON text into a value.
    case fromJSON = "from_json"
    /// `default(x, fallback)` — `x` unless it is null (or missing), else `fallback`.
    case `default`
    /// `match(text, pattern)` — the first match of a regular expression: the whole match, then the groups.
    case match
    /// `xpath(text, expression)` — an XPath 1.0 expression evaluated on an XML or HTML document.
    case xpath
    /// `jsonpath(value, query)` — the nodelist an RFC 9535 JSONPath query selects in a value.
    case jsonpath
    /// `set(value, pointer, new)` — `value` with `new` at a JSON pointer (an Arazzo payload replacement).
    case set

    /// How many arguments the function takes.
    public var arity: Int {
        switch self {
        case .success, .failure, .always: 0
        case .length, .json, .fromJSON: 1
        case .contains, .default, .match, .xpath, .jsonpath: 2
        case .set: 3
        }
    }

    /// Whether the function speaks about dependencies' states, and so belongs in `if:`.
    public var isStatusFunction: Bool {
        switch self {
        case .success, .failure, .always: true
        default: false
        }
    }

    /// What the second argument of `match`, `xpath` and `jsonpath` is, as messages name it; nil for the others.
    public var patternKind: String? {
        switch self {
        case .match: "a regular expression"
        case .xpath: "an XPath expression"
        case .jsonpath: "a JSONPath query"
        default: nil
        }
    }

    /// `name(a, b)` as shown in messages.
    public var signature: String {
        switch self {
        case .success, .failure, .always: "\(rawValue)()"
        case .length: "length(value)"
        case .contains: "contains(haystack, needle)"
        case .json: "json(value)"
        case .fromJSON: "from_json(text)"
        case .default: "default(value, fallback)"
        case .match: "match(text, pattern)"
        case .xpath: "xpath(text, expression)"
        case .jsonpath: "jsonpath(value, query)"
        case .set: "set(value, pointer, new)"
        }
    }
}

/// The fields of a step's result that expressions can read: `steps.X.<field>`.
public enum ResultField: String, Sendable, Hashable, CaseIterable, Comparable {
    case status, headers, body, duration, state, error, attempts
    /// Requests: the URL requested (before any redirect), secret values as `***`.
    case url
    /// Requests: name → value of the cookies the response (and the redirects followed to reach it) set.
    case cookies
    /// Groups, sequences and for_each: member or item results, in order.
    case results
    /// Groups, sequences and for_each: member or item errors, in order.
    case errors
    /// Sub-plan steps: the sub-plan's outputs, an object name → value.
    case outputs

    /// Whether only groups, sequences, for_each and sub-plan steps have it.
    public var isCollectionField: Bool { self == .results || self == .errors }

    /// Whether only sub-plan steps have it.
    public var isSubPlanField: Bool { self == .outputs }

    /// Whether only request steps (and each for_each item) have it.
    public var isRequestField: Bool {
        switch self {
        case .status, .headers, .body, .attempts, .cookies, .url: true
        default: false
        }
    }

    public static func < (lhs: ResultField, rhs: ResultField) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}
