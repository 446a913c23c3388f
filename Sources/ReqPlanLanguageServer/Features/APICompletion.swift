import ReqPlanPlanner
import ReqPlanSyntax

/// Completion from the API descriptions a plan binds: operations after `operation: API.` (and the
/// `openapi:` names before the dot), path-parameter names under a request's `path:`, and response fields
/// after `steps.X.body.` from the step's operation's success-response schema. Asked before `Completion`:
/// `nil` where none of these is being written.
public struct APICompletion: Sendable {
    /// What the document's last check learnt of its APIs.
    public var knowledge: APIKnowledge

    /// Completion over `knowledge`.
    public init(knowledge: APIKnowledge) {
        self.knowledge = knowledge
    }

    /// The most operations one answer lists: a description of thousands would make each answer as slow to
    /// send and read as the check. The list is then marked incomplete, and the editor asks again as the id is
    /// typed.
    public static let maxOperations = 100

    /// The `CompletionItem`s for `position` of `text`, or `nil` when the place is not one of those above.
    public func items(at position: TextPosition, in text: String) -> [Value]? {
        list(at: position, in: text)?.items
    }

    /// The `CompletionItem`s for `position` of `text`, and whether more would fit (`isIncomplete`: more
    /// operations match than `maxOperations`); `nil` when the place is not one of those above.
    public func list(at position: TextPosition, in text: String) -> (items: [Value], isIncomplete: Bool)? {
        let lines = CompletionContext.lines(text)
        guard position.line < lines.count else { return nil }
        let line = lines[position.line]
        let before = CompletionContext.prefix(of: line, units: position.character)
        if let expression = CompletionContext.openExpression(before) {
            return responseFields(before[expression...], position: position).map { ($0, false) }
        }
        if let list = operations(before, position: position) { return list }
        return parameters(before, line: position.line, lines: lines, position: position).map { ($0, false) }
    }

    // MARK: Operations

    /// After `operation:`: the entries' names, then, after `API.`, its operations whose id holds what is
    /// typed of it, in order (as an editor's fuzzy match takes them), `maxOperations` at most.
    private func operations(_ before: Substring.UnicodeScalarView, position: TextPosition) -> (
        items: [Value], isIncomplete: Bool
    )? {
        guard let written = APIPlaces.operationValue(before) else { return nil }
        let typed = before[written...]
        guard let dot = typed.firstIndex(of: ".") else {
            guard typed.allSatisfy(CompletionContext.isNameCharacter) else { return nil }
            let range = Self.range(from: written, in: before, to: position)
            let names = knowledge.apis.keys.sorted().map { name in
                Completion.item(
                    name, kind: 9, detail: knowledge.apis[name].map { "API: \($0.title)" }, documentation: nil,
                    range: range, insert: name + ".")
            }
            return (names, false)
        }
        let api = String(String.UnicodeScalarView(typed[..<dot]))
        guard let description = knowledge.apis[api] else { return ([], false) }
        let idStart = typed.index(after: dot)
        let range = Self.range(from: idStart, in: before, to: position)
        let wanted = Array(String(String.UnicodeScalarView(typed[idStart...])).lowercased().unicodeScalars)
        var items: [Value] = []
        for operation in description.operations {
            guard let id = operation.id, Completion.holds(id, wanted) else { continue }
            guard items.count < Self.maxOperations else { return (items, true) }
            items.append(
                Completion.item(id, kind: 2, detail: operation.label, documentation: operation.summary, range: range))
        }
        return (items, false)
    }

    // MARK: Parameters

    /// The request keys whose keys are an operation's parameters, and where those parameters are.
    private static let parameterKeys: [(key: String, location: APIParameter.Location)] = [
        ("path", .path), ("query", .query), ("headers", .header),
    ]

    /// A key under a request's `path:`, `query:` or `headers:` (block style, or inside `path: {` on the line):
    /// the names of its operation's parameters of that place not written yet.
    private func parameters(
        _ before: Substring.UnicodeScalarView, line: Int, lines: [Substring.UnicodeScalarView], position: TextPosition
    ) -> [Value]? {
        let word = before.reversed().prefix { CompletionContext.isNameCharacter($0) }.count
        let head = before.dropLast(word)
        let wordStart = TextPosition(line: line, character: head.reduce(0) { $0 + $1.utf16.count })
        let range = TextRange(start: wordStart, end: position)
        let operation: (APIOperation, APISchemaTable)?
        let location: APIParameter.Location
        var present: Set<String> = []
        if let (place, open) = Self.parameterKeys.lazy.compactMap({ place in
            APIPlaces.openFlowMapping(after: place.key, in: head).map { (place, $0) }
        }).first {
            // `path: { a: 1, ` on the line: the step is the line's own, or the one the line is in.
            operation = operationOfLine(line, lines: lines)
            location = place.location
            present = APIPlaces.flowKeys(head[open...])
        } else if head.allSatisfy({ $0 == " " }) {
            let parents = CompletionContext.parents(of: line, column: head.count, in: lines)
            guard parents.count >= 3, parents[parents.count - 2] == .key("request"),
                let place = Self.parameterKeys.first(where: { parents.last == .key($0.key) })
            else { return nil }
            operation = stepOperation(parents.dropLast(2))
            location = place.location
            present = CompletionContext.siblingKeys(of: line, column: head.count, in: lines)
        } else {
            return nil
        }
        guard let (operation, table) = operation else { return [] }
        let declared = operation.parameters(in: location)
        let names = location == .path ? operation.pathParameterNames : declared.map(\.name)
        return names.filter { !present.contains($0) }.map { name in
            let parameter = declared.first { $0.name == name }
            let type = parameter?.schema.map { TypedSchema(schema: $0, table: table).typeText }
            let required = location != .path && parameter?.required == true ? " (required)" : ""
            return Completion.item(
                name, kind: 5,
                detail: "\(location.rawValue) parameter of \(operation.label)" + (type.map { ": \($0)" } ?? "")
                    + required,
                documentation: nil, range: range, insert: name + ": ")
        }
    }

    /// The operation of the step whose key ends `path` (a group member's, a `for_each`'s).
    private func stepOperation(_ path: ArraySlice<SchemaOutline.PathElement>) -> (APIOperation, APISchemaTable)? {
        for element in path.reversed() {
            if case .key(let key) = element, let bound = knowledge.operations[key] {
                return (bound.operation, bound.schemas)
            }
        }
        return nil
    }

    /// The operation a line's request names: `operation: API.id` on the line, else that of the step the
    /// line belongs to.
    private func operationOfLine(_ line: Int, lines: [Substring.UnicodeScalarView]) -> (APIOperation, APISchemaTable)? {
        if let named = APIPlaces.operationReference(onLine: lines[line]),
            let found = knowledge.operation(named: named.text)
        {
            // The step's own bound operation, read in full, when it is this one; else the outline's.
            let bound = knowledge.operations.values.first {
                $0.api == found.api && $0.operation.label == found.operation.label
            }
            return (bound?.operation ?? found.operation, bound?.schemas ?? APISchemaTable())
        }
        guard let layout = CompletionContext.layout(lines[line]) else { return nil }
        var path = CompletionContext.parents(of: line, column: layout.dashes.first ?? layout.keyColumn, in: lines)
        if let key = layout.key { path.append(.key(key)) }
        return stepOperation(path[...])
    }

    // MARK: Response fields

    /// After `steps.X.body.` (and deeper): the properties of what the path reads, from the response schema.
    private func responseFields(_ expression: Substring.UnicodeScalarView, position: TextPosition) -> [Value]? {
        let word = expression.reversed().prefix { CompletionContext.isNameCharacter($0) }.count
        let head = expression.dropLast(word)
        guard head.last == ".", let path = ResponsePath(ending: head.dropLast()) else { return nil }
        guard let response = knowledge.responseSchema(of: path.step) else { return [] }
        let range = TextRange(
            start: TextPosition(
                line: position.line, character: position.character - Self.units(expression.suffix(word))),
            end: position)
        guard let schema = TypedSchema(schema: response.schema, table: response.table).walk(path.components) else {
            return []
        }
        return schema.properties.map { property in
            Completion.item(
                property.name, kind: 5,
                detail: property.schema.typeText + (property.required ? "" : " (optional)"),
                documentation: property.schema.description, range: range)
        }
    }

    // MARK: Items

    private static func range(
        from start: Substring.UnicodeScalarView.Index, in before: Substring.UnicodeScalarView, to position: TextPosition
    ) -> TextRange {
        TextRange(
            start: TextPosition(line: position.line, character: units(before[..<start])), end: position)
    }

    static func units(_ scalars: Substring.UnicodeScalarView) -> Int {
        scalars.reduce(0) { $0 + $1.utf16.count }
    }
}
