import ReqPlanSyntax

/// A JSONPath query (RFC 9535), compiled and checked to be well-typed, that `jsonpath(value, query)`
/// evaluates on a value.
///
/// All of RFC 9535: `$`, child and descendant segments, name, wildcard, index, slice and filter
/// selectors, comparisons, `&&`, `||`, `!`, existence tests, and the functions `length()`, `count()`,
/// `match()`, `search()` and `value()` (whose patterns are I-Regexp, RFC 9485). Every error of syntax or
/// type is found when the query is compiled.
public struct JSONPath: Sendable {
    /// The most nodes a nodelist may hold while a query is evaluated: `$[*,*][*,*]…` doubles with each
    /// segment, so without a bound a short query could exhaust memory.
    public static let maximumNodes = 1_000_000

    /// The query as written.
    public let text: String
    let query: JSONPathQuery

    /// Compiles `text`.
    /// - Throws: `JSONPathError` with the position of the first problem.
    public static func compile(_ text: String) throws(JSONPathError) -> JSONPath {
        JSONPath(text: text, query: try JSONPathParser.parse(text))
    }

    /// The one place a query of names and indexes selects (`$.order.items[0]`), as its steps from the root;
    /// nil for a query that may select several (a wildcard, a slice, a filter, a descendant segment) or that
    /// counts an index from the end. What a JSON pointer can say, for a replacement's target.
    public var singularPlace: [PathComponent]? {
        guard query.isAbsolute else { return nil }
        var place: [PathComponent] = []
        for segment in query.segments {
            guard !segment.isDescendant, segment.selectors.count == 1 else { return nil }
            switch segment.selectors[0] {
            case .name(let name): place.append(.member(name))
            case .index(let index) where index >= 0: place.append(.index(index))
            default: return nil
            }
        }
        return place
    }

    /// The nodelist the query selects in `document`: the values of its nodes, in the order RFC 9535
    /// gives them (document order, the order of an object's members as the document has them).
    /// - Throws: `JSONPathEvaluationError` when a nodelist grows past `maximumNodes`.
    public func select(in document: Value) throws(JSONPathEvaluationError) -> [Value] {
        try JSONPathEvaluator(root: document, maximumNodes: Self.maximumNodes).select(query, current: document)
    }
}
