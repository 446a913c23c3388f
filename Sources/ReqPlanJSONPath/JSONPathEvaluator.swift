import ReqPlanSyntax

/// Evaluates compiled queries on one document (RFC 9535 §2.3–§2.5).
struct JSONPathEvaluator {
    let root: Value
    let maximumNodes: Int
    /// The evaluation's budget: every node visited, item filtered and value compared is a step, so a query
    /// that runs an absolute query per item (`$[?count($[*]) > 1]`) stops instead of holding the run.
    let meter: EvaluationMeter

    init(root: Value, maximumNodes: Int, meter: EvaluationMeter = EvaluationMeter()) {
        self.root = root
        self.maximumNodes = maximumNodes
        self.meter = meter
    }

    /// Counts `steps` steps against the budget.
    func spend(_ steps: Int = 1) throws(JSONPathEvaluationError) {
        do {
            try meter.spend(steps)
        } catch {
            throw JSONPathEvaluationError(message: "the query was stopped: \(error.message)", stopped: error)
        }
    }

    func select(_ query: JSONPathQuery, current: Value) throws(JSONPathEvaluationError) -> [Value] {
        var nodes = [query.isAbsolute ? root : current]
        for segment in query.segments {
            var next: [Value] = []
            for node in nodes {
                try spend()
                if segment.isDescendant {
                    try descend(node, segment.selectors, into: &next)
                } else {
                    try apply(segment.selectors, to: node, into: &next)
                }
            }
            nodes = next
        }
        return nodes
    }

    /// The selectors applied to `node` and then to each of its descendants, in document order (§2.5.2.2).
    private func descend(_ node: Value, _ selectors: [JSONPathSelector], into nodes: inout [Value])
        throws(JSONPathEvaluationError)
    {
        try spend()
        try apply(selectors, to: node, into: &nodes)
        switch node {
        case .list(let items):
            for item in items { try descend(item, selectors, into: &nodes) }
        case .object(let fields):
            for field in fields { try descend(field.value, selectors, into: &nodes) }
        default: break
        }
    }

    private func apply(_ selectors: [JSONPathSelector], to node: Value, into nodes: inout [Value])
        throws(JSONPathEvaluationError)
    {
        for selector in selectors {
            try select(selector, of: node, into: &nodes)
            guard nodes.count <= maximumNodes else {
                throw JSONPathEvaluationError(message: "the query selects more than \(maximumNodes) nodes")
            }
        }
    }

    private func select(_ selector: JSONPathSelector, of node: Value, into nodes: inout [Value])
        throws(JSONPathEvaluationError)
    {
        switch (selector, node) {
        case (.name(let name), .object(let fields)):
            if let field = fields.last(where: { $0.key.unicodeScalars.elementsEqual(name.unicodeScalars) }) {
                nodes.append(field.value)
            }
        case (.wildcard, .list(let items)):
            try spend(items.count)
            nodes.append(contentsOf: items)
        case (.wildcard, .object(let fields)):
            try spend(fields.count)
            nodes.append(contentsOf: fields.map(\.value))
        case (.index(let index), .list(let items)):
            let position = index >= 0 ? index : items.count + index
            if items.indices.contains(position) { nodes.append(items[position]) }
        case (.slice(let start, let end, let step), .list(let items)):
            try spend(items.count)
            for position in Self.slice(start: start, end: end, step: step, count: items.count) {
                nodes.append(items[position])
            }
        case (.filter(let expression), .list(let items)):
            for item in items where try test(expression, on: item) { nodes.append(item) }
        case (.filter(let expression), .object(let fields)):
            for field in fields where try test(expression, on: field.value) { nodes.append(field.value) }
        default:
            break
        }
    }

    /// The indices a slice selects, in order (§2.3.4.2.2).
    static func slice(start: Int?, end: Int?, step: Int?, count: Int) -> [Int] {
        let step = step ?? 1
        guard step != 0 else { return [] }
        func normalized(_ index: Int) -> Int { index >= 0 ? index : count + index }
        var positions: [Int] = []
        if step > 0 {
            let lower = min(max(normalized(start ?? 0), 0), count)
            let upper = min(max(normalized(end ?? count), 0), count)
            var position = lower
            while position < upper {
                positions.append(position)
                position += step
            }
        } else {
            let upper = min(max(normalized(start ?? count - 1), -1), count - 1)
            let lower = min(max(end.map(normalized) ?? -1, -1), count - 1)
            var position = upper
            while lower < position {
                positions.append(position)
                position += step
            }
        }
        return positions
    }

    // MARK: Filters

    private func test(_ expression: JSONPathLogical, on current: Value) throws(JSONPathEvaluationError) -> Bool {
        switch expression {
        case .or(let terms):
            for term in terms where try test(term, on: current) { return true }
            return false
        case .and(let terms):
            for term in terms where try !test(term, on: current) { return false }
            return true
        case .not(let inner):
            return try !test(inner, on: current)
        case .comparison(let left, let comparison, let right):
            let (first, second) = (try value(left, on: current), try value(right, on: current))
            // Comparing two large values is work in proportion to them.
            try spend((first?.size() ?? 0) + (second?.size() ?? 0))
            return Self.compare(first, comparison, second)
        case .exists(let query):
            return try !select(query, current: current).isEmpty
        case .function(let call):
            switch try call.function.evaluate(call.arguments, on: current, with: self) {
            case .logical(let flag): return flag
            case .nodes(let nodes): return !nodes.isEmpty
            case .value: return false  // Not reached: the parser allows only LogicalType and NodesType here.
            }
        }
    }

    /// A comparable's value; nil for Nothing (an empty nodelist or a function without a result).
    func value(_ comparable: JSONPathComparable, on current: Value) throws(JSONPathEvaluationError) -> Value? {
        switch comparable {
        case .literal(let value): return value
        case .query(let query): return try select(query, current: current).first
        case .function(let call):
            guard case .value(let value) = try call.function.evaluate(call.arguments, on: current, with: self)
            else { return nil }
            return value
        }
    }

    /// A comparison of two values or Nothing (§2.3.5.2.2).
    static func compare(_ left: Value?, _ comparison: JSONPathComparison, _ right: Value?) -> Bool {
        switch comparison {
        case .equal: equal(left, right)
        case .notEqual: !equal(left, right)
        case .less: less(left, right)
        case .lessOrEqual: less(left, right) || equal(left, right)
        case .greater: less(right, left)
        case .greaterOrEqual: less(right, left) || equal(left, right)
        }
    }

    private static func equal(_ left: Value?, _ right: Value?) -> Bool {
        switch (left, right) {
        case (nil, nil): return true
        case (let left?, let right?): return equal(left, right)
        default: return false
        }
    }

    /// JSON equality: numbers by value, strings by code points, arrays item by item, objects by member.
    static func equal(_ left: Value, _ right: Value) -> Bool {
        switch (left, right) {
        case (.int(let a), .int(let b)): return a == b
        case (.largeInt(let a), .largeInt(let b)): return a == b
        case (.int, .largeInt), (.largeInt, .int): return false
        case (.int, .double), (.double, .int), (.double, .double), (.largeInt, .double), (.double, .largeInt):
            return left.doubleValue == right.doubleValue
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.list(let a), .list(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && a.allSatisfy { field in
                    b.contains { other in
                        other.key.unicodeScalars.elementsEqual(field.key.unicodeScalars)
                            && equal(field.value, other.value)
                    }
                }
        default: return left == right
        }
    }

    /// `<`: numbers by value, strings by code points; false for anything else.
    private static func less(_ left: Value?, _ right: Value?) -> Bool {
        switch (left, right) {
        case (.int(let a), .int(let b)): return a < b
        case (.int, .double), (.double, .int), (.double, .double), (.largeInt, _), (_, .largeInt):
            guard let a = left?.doubleValue, let b = right?.doubleValue else { return false }
            return a < b
        case (.string(let a), .string(let b)):
            return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
        default: return false
        }
    }
}
