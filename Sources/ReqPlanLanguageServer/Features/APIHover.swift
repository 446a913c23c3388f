import ReqPlanPlanner
import ReqPlanSyntax

/// What `textDocument/hover` shows from the API descriptions a plan binds: over a response path
/// (`steps.X.body.a.b`, on `body` or a field after it), its type from the step's response schema with its
/// description; over the value of `operation:`, the operation's method, path and summary. Asked before
/// `Hover`: `nil` elsewhere.
public struct APIHover: Sendable {
    /// What the document's last check learnt of its APIs.
    public var knowledge: APIKnowledge

    /// Hover over `knowledge`.
    public init(knowledge: APIKnowledge) {
        self.knowledge = knowledge
    }

    /// The LSP `Hover` for `position` of `text`, or `nil` when it is over none of the places above.
    public func hover(at position: TextPosition, in text: String) -> Value? {
        let lines = CompletionContext.lines(text)
        guard position.line < lines.count else { return nil }
        let line = lines[position.line]
        if let reference = APIPlaces.operationReference(onLine: line),
            reference.columns.contains(position.character) || reference.columns.upperBound == position.character
        {
            guard let (api, operation) = knowledge.operation(named: reference.text) else { return nil }
            var markdown = "**`\(api).\(operation.id ?? "")`**: `\(operation.label)`"
            if let summary = operation.summary { markdown += "\n\n" + summary }
            let range = TextRange(
                start: TextPosition(line: position.line, character: reference.columns.lowerBound),
                end: TextPosition(line: position.line, character: reference.columns.upperBound))
            return Self.value(markdown, range)
        }
        return responsePath(at: position, line: line)
    }

    /// The type of the response path whose last word is under `position`.
    private func responsePath(at position: TextPosition, line: Substring.UnicodeScalarView) -> Value? {
        let before = CompletionContext.prefix(of: line, units: position.character)
        guard let open = CompletionContext.openExpression(before) else {
            return nil
        }
        let tail = line[before.endIndex...].prefix { CompletionContext.isNameCharacter($0) }
        let head = before[open...].reversed().prefix { CompletionContext.isNameCharacter($0) }
        guard !head.isEmpty || !tail.isEmpty else { return nil }
        // The path up to the end of the word under the cursor.
        let upToWord = line[open..<tail.endIndex]
        guard let path = ResponsePath(ending: upToWord), let response = knowledge.responseSchema(of: path.step),
            let schema = TypedSchema(schema: response.schema, table: response.table).walk(path.components)
        else { return nil }
        let written = String(String.UnicodeScalarView(upToWord.reversed().prefix { !$0.isSpaceOrBrace }.reversed()))
        var markdown = "**`\(written)`**: `\(schema.typeText)`"
        markdown += "\n\nfrom the response of `\(response.label)`"
        if let description = schema.description { markdown += "\n\n" + description }
        let start = position.character - head.reduce(0) { $0 + $1.utf16.count }
        let end = position.character + tail.reduce(0) { $0 + $1.utf16.count }
        return Self.value(
            markdown,
            TextRange(
                start: TextPosition(line: position.line, character: start),
                end: TextPosition(line: position.line, character: end)))
    }

    private static func value(_ markdown: String, _ range: TextRange) -> Value {
        .object([
            .init("contents", .object([.init("kind", .string("markdown")), .init("value", .string(markdown))])),
            .init("range", range.value),
        ])
    }
}

extension Unicode.Scalar {
    /// Where a path written in an expression stops, going back.
    fileprivate var isSpaceOrBrace: Bool { self == " " || self == "{" || self == "(" || self == "," }
}
