import ReqPlanSyntax

/// A query (RFC 9535 §2.1): `$` or `@` and its segments.
struct JSONPathQuery: Sendable {
    /// `$` (from the root) rather than `@` (from the current node, in a filter).
    var isAbsolute: Bool
    var segments: [JSONPathSegment]

    /// Whether the query selects at most one node: every segment a child segment of one name or index,
    /// written without blanks inside its brackets (§2.3.5.1, `singular-query`).
    var isSingular: Bool {
        segments.allSatisfy { segment in
            guard !segment.isDescendant, !segment.hasBlanks, segment.selectors.count == 1 else { return false }
            switch segment.selectors[0] {
            case .name, .index: return true
            default: return false
            }
        }
    }
}

/// A child segment (`[…]`, `.name`, `.*`) or a descendant segment (`..[…]`, `..name`, `..*`) (§2.5).
struct JSONPathSegment: Sendable {
    var isDescendant: Bool
    var selectors: [JSONPathSelector]
    /// Whether blanks are written inside its brackets, which a singular query's segments have none of.
    var hasBlanks = false
}

/// The selectors of §2.3.
enum JSONPathSelector: Sendable {
    case name(String)
    case wildcard
    case index(Int)
    case slice(start: Int?, end: Int?, step: Int?)
    case filter(JSONPathLogical)
}

/// A logical expression of a filter (§2.3.5): true or false for each node it tests.
indirect enum JSONPathLogical: Sendable {
    case or([JSONPathLogical])
    case and([JSONPathLogical])
    case not(JSONPathLogical)
    case comparison(JSONPathComparable, JSONPathComparison, JSONPathComparable)
    /// An existence test: the query selects at least one node.
    case exists(JSONPathQuery)
    /// A function whose result is of LogicalType or NodesType (§2.4.3).
    case function(JSONPathCall)
}

/// One side of a comparison: a literal, a singular query or a function of ValueType (§2.3.5.1).
enum JSONPathComparable: Sendable {
    case literal(Value)
    case query(JSONPathQuery)
    case function(JSONPathCall)
}

/// The comparison operators of §2.3.5.1.
enum JSONPathComparison: String, Sendable, CaseIterable {
    case equal = "==", notEqual = "!=", lessOrEqual = "<=", greaterOrEqual = ">=", less = "<", greater = ">"
}

/// A call of one of the function extensions, its arguments checked against its parameters' types.
struct JSONPathCall: Sendable {
    var function: JSONPathFunction
    var arguments: [JSONPathArgument]
}

/// An argument, as its parameter's type reads it (§2.4.3).
enum JSONPathArgument: Sendable {
    case value(JSONPathComparable)
    case nodes(JSONPathQuery)
    case logical(JSONPathLogical)
}

/// The types of function parameters and results (§2.4.1).
enum JSONPathType: String, Sendable {
    case value = "ValueType"
    case logical = "LogicalType"
    case nodes = "NodesType"
}

/// The function extensions RFC 9535 defines (§2.4.4–§2.4.8).
enum JSONPathFunction: String, Sendable, CaseIterable {
    case length, count, match, search, value

    var parameters: [JSONPathType] {
        switch self {
        case .length: [.value]
        case .count, .value: [.nodes]
        case .match, .search: [.value, .value]
        }
    }

    var result: JSONPathType {
        switch self {
        case .length, .count, .value: .value
        case .match, .search: .logical
        }
    }
}
