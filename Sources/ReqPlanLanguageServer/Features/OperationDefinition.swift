import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

/// Go to definition of `operation: API.operationId`: the operation in the description file, the file that
/// holds it when the reader says (a description split over files: the path item's file), else the root file.
/// The description reader keeps no lines, so the operation is found in the file's text: its `operationId` key
/// with the id as value (YAML or JSON, quoted or not); for an operation without an id (or one whose id is not
/// there), the method's key under the path's key; else the file's first line.
public struct OperationDefinition: Sendable {
    /// What the document's last check learnt of its APIs.
    public var knowledge: APIKnowledge
    /// Definitions over `knowledge`.
    public init(knowledge: APIKnowledge) {
        self.knowledge = knowledge
    }

    /// The file and range of the operation named by the `operation:` value under `position`, or `nil` when
    /// the position is not on one (or its API is not bound).
    ///
    /// Read from the text, for a document that does not read as a plan (being edited): one that does is
    /// asked with `definition(at:in:)` of its plan.
    public func definition(at position: TextPosition, in text: String) -> Location? {
        let lines = CompletionContext.lines(text)
        guard position.line < lines.count,
            let reference = APIPlaces.operationReference(onLine: lines[position.line]),
            reference.columns.contains(position.character) || reference.columns.upperBound == position.character
        else { return nil }
        return definition(named: reference.text)
    }

    /// The file and range of the operation named by the `operation:` of the step of `plan` whose reference
    /// is under `position` (as the parser read it), or `nil` when the position is not on one (or its API is
    /// not bound).
    public func definition(at position: TextPosition, in plan: Plan) -> Location? {
        for step in plan.allSteps {
            guard let reference = step.request?.operation, case .id = reference.operation else { continue }
            let range = TextRange(reference.written.range, in: plan.source)
            guard range.start <= position && position <= range.end else { continue }
            return definition(named: reference.written.value)
        }
        return nil
    }

    /// The file and range of the operation `reference` (`API.operationId`) names.
    private func definition(named reference: String) -> Location? {
        guard let (api, operation) = knowledge.operation(named: reference), let root = knowledge.files[api]
        else { return nil }
        let file = operation.file ?? root
        let start = TextPosition(line: 0, character: 0)
        return Location(
            uri: DocumentURI(filePath: file),
            range: Self.locate(operation, inFile: file, boundary: knowledge.boundary)
                ?? TextRange(start: start, end: start))
    }

    /// Where `operation` is in the file at `path`.
    static func locate(_ operation: APIOperation, inFile path: String, boundary: FileBoundary) -> TextRange? {
        guard let text = read(path, boundary: boundary) else { return nil }
        if let id = operation.id, let range = operationIDLine(id, in: text) { return range }
        return pathAndMethod(operation, in: text)
    }

    /// The `operationId` whose value is `id`: `operationId: id`, `"operationId": "id"`, quoted or not.
    public static func operationIDLine(_ id: String, in text: String) -> TextRange? {
        // Over the UTF-8 bytes of the whole text, not line by line: a description of megabytes is searched in
        // a few milliseconds. Every byte looked for is ASCII, which never occurs inside another character.
        let bytes = Array(text.utf8)
        let key = Array("operationId".utf8)
        let wanted = Array(id.utf8)
        let (quote, apostrophe, space, colon) = (
            UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: " "), UInt8(ascii: ":")
        )
        var from = 0
        while let found = firstIndex(of: key, in: bytes, from: from) {
            from = found + key.count
            var cursor = from
            if cursor < bytes.count, bytes[cursor] == quote || bytes[cursor] == apostrophe { cursor += 1 }
            while cursor < bytes.count, bytes[cursor] == space { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == colon else { continue }
            cursor += 1
            while cursor < bytes.count, bytes[cursor] == space { cursor += 1 }
            var closing: UInt8?
            if cursor < bytes.count, bytes[cursor] == quote || bytes[cursor] == apostrophe {
                closing = bytes[cursor]
                cursor += 1
            }
            guard bytes.count - cursor >= wanted.count, bytes[cursor..<cursor + wanted.count].elementsEqual(wanted)
            else { continue }
            var end = cursor + wanted.count
            if let closing {
                guard end < bytes.count, bytes[end] == closing else { continue }
                end += 1
            } else {
                let next = bytes[end...].first { $0 != space }
                guard next.map({ Self.endsPlainValue($0) }) ?? true else { continue }
            }
            let keyStart =
                found > 0 && (bytes[found - 1] == quote || bytes[found - 1] == apostrophe) ? found - 1 : found
            return range(of: keyStart..<end, in: bytes)
        }
        return nil
    }

    /// Whether `byte` may follow a plain (unquoted) value: a comment, the end of a flow entry or of the line.
    private static func endsPlainValue(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "#") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || isLineBreak(byte)
    }

    private static func isLineBreak(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    /// The LSP range (lines as `CompletionContext.lines` splits them, UTF-16 columns) of a range of bytes on one
    /// line.
    private static func range(of span: Range<Int>, in bytes: [UInt8]) -> TextRange {
        var line = 0
        var lineStart = 0
        for index in 0..<span.lowerBound where isLineBreak(bytes[index]) {
            // `\r\n` is one break.
            if bytes[index] == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                continue
            }
            line += 1
            lineStart = index + 1
        }
        func column(_ offset: Int) -> Int { String(decoding: bytes[lineStart..<offset], as: UTF8.self).utf16.count }
        return TextRange(
            start: TextPosition(line: line, character: column(span.lowerBound)),
            end: TextPosition(line: line, character: column(span.upperBound)))
    }

    /// The method's key under the path's key (block-style YAML, or JSON written one key a line).
    public static func pathAndMethod(_ operation: APIOperation, in text: String) -> TextRange? {
        let lines = CompletionContext.lines(text)
        let method = operation.method.lowercased()
        var pathIndent: Int?
        for (number, line) in lines.enumerated() {
            guard let (key, indent) = key(of: line) else { continue }
            if let known = pathIndent {
                if indent <= known {
                    pathIndent = nil
                } else if key == method {
                    let start = units(Array(line)[..<indent])
                    return TextRange(
                        start: TextPosition(line: number, character: start),
                        end: TextPosition(line: number, character: units(Array(line)[...])))
                }
            }
            if pathIndent == nil, key == operation.path { pathIndent = indent }
        }
        return nil
    }

    /// A line's key (quotes removed) and the column it starts at.
    private static func key(of line: Substring.UnicodeScalarView) -> (String, Int)? {
        let text = String(String.UnicodeScalarView(line))
        let indent = text.prefix { $0 == " " }.count
        var rest = text.dropFirst(indent)
        guard !rest.isEmpty, rest.first != "#" else { return nil }
        let key: Substring
        if let quote = rest.first, quote == "\"" || quote == "'" {
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: quote) else { return nil }
            key = rest[..<close]
            guard rest[rest.index(after: close)...].drop(while: { $0 == " " }).first == ":" else { return nil }
        } else {
            guard let colon = rest.firstIndex(of: ":") else { return nil }
            key = rest[..<colon]
        }
        return (String(key), indent)
    }

    /// A description file's text, read as the description reader reads it (`FileReader`: a regular file
    /// inside the plan's project, 64 MiB at most, as the reader allows).
    private static func read(_ path: String, boundary: FileBoundary) -> String? {
        guard
            case .success(let bytes) = FileReader.bytes(
                atPath: path, origin: .input(boundary), limit: 64 << 20, what: "the description")
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count, start <= bytes.count - needle.count else {
            return nil
        }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func units(_ scalars: ArraySlice<Unicode.Scalar>) -> Int {
        scalars.reduce(0) { $0 + $1.utf16.count }
    }
}
