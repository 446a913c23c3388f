import ReqPlanPlanner
import ReqPlanSyntax

/// A path into a step's response body as an expression writes it, `steps.ID.body.data[0].name`, read from
/// the text before a place of a plan (completion and hover read half-written expressions, which the
/// expression parser would refuse), and walked through the response schema of the step's operation.
struct ResponsePath: Equatable {
    /// One step below `body`.
    enum Component: Equatable {
        /// `.name`, `['name']`.
        case member(String)
        /// `[3]`, `[-1]`, `[*]`: an element of a list.
        case element
    }

    /// The step whose response it reads.
    var step: String
    /// The components after `body`, in order.
    var components: [Component]

    /// The path that ends `text` (scalars of an expression, up to the place asked about), if it is one:
    /// `steps.ID.body` then components, with nothing that could be part of a longer name before `steps`.
    init?(ending text: Substring.UnicodeScalarView) {
        // The path's own characters run back from the end: names, dots, brackets and what is inside them.
        var start = text.endIndex
        var depth = 0
        while start > text.startIndex {
            let previous = text.index(before: start)
            let scalar = text[previous]
            if scalar == "]" {
                depth += 1
            } else if scalar == "[" {
                guard depth > 0 else { break }
                depth -= 1
            } else if depth == 0, !(CompletionContext.isNameCharacter(scalar) || scalar == ".") {
                break
            }
            start = previous
        }
        guard depth == 0 else { return nil }
        var scanner = Scanner(Array(text[start...]))
        guard scanner.name() == "steps", scanner.take("."), let step = scanner.name(), scanner.take("."),
            scanner.name() == "body"
        else { return nil }
        self.step = step
        components = []
        while !scanner.atEnd {
            if scanner.take(".") {
                guard let name = scanner.name() else { return nil }
                components.append(.member(name))
            } else if scanner.take("[") {
                guard let inside = scanner.upTo("]") else { return nil }
                let quoted =
                    inside.count >= 2 && (inside.first == "'" || inside.first == "\"") && inside.last == inside.first
                components.append(
                    quoted ? .member(String(String.UnicodeScalarView(inside.dropFirst().dropLast()))) : .element)
            } else {
                return nil
            }
        }
    }

    /// Reads the characters of a path.
    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { index == scalars.count }

        mutating func take(_ scalar: Unicode.Scalar) -> Bool {
            guard index < scalars.count, scalars[index] == scalar else { return false }
            index += 1
            return true
        }

        mutating func name() -> String? {
            let start = index
            while index < scalars.count, CompletionContext.isNameCharacter(scalars[index]) { index += 1 }
            return index > start ? String(String.UnicodeScalarView(scalars[start..<index])) : nil
        }

        /// The scalars up to `end`, which is skipped; `nil` when it does not come.
        mutating func upTo(_ end: Unicode.Scalar) -> [Unicode.Scalar]? {
            guard let close = scalars[index...].firstIndex(of: end) else { return nil }
            defer { index = close + 1 }
            return Array(scalars[index..<close])
        }
    }
}

/// A schema of a response, with the table its references are read in.
struct TypedSchema {
    var schema: APISchema
    var table: APISchemaTable

    /// The schema of what `path` reads below this one; `nil` when the schema does not say (a member it
    /// does not declare and an open object allows is typed by what the object allows).
    func walk(_ path: [ResponsePath.Component]) -> TypedSchema? {
        var current = schema
        for component in path {
            switch component {
            case .member(let name):
                switch table.member(name, of: current) {
                case .declared(let member, _), .undeclared(let member): current = member
                case .unknown, .unchecked: return nil
                }
            case .element:
                guard let items = table.items(of: current) else { return nil }
                current = items
            }
        }
        return TypedSchema(schema: current, table: table)
    }

    /// The properties a value of this schema may have, in document order, each once: those of the schema,
    /// of its `allOf` parts and of each `oneOf`/`anyOf` alternative, references followed.
    var properties: [(name: String, schema: TypedSchema, required: Bool)] {
        var found: [(name: String, schema: TypedSchema, required: Bool)] = []
        var seen: Set<String> = []
        var visited = 0
        func collect(_ schema: APISchema, depth: Int) {
            let resolved = table.resolve(schema)
            visited += 1
            guard depth < 16, visited < 512 else { return }
            for property in resolved.properties where seen.insert(property.name).inserted {
                found.append(
                    (
                        property.name, TypedSchema(schema: property.schema, table: table),
                        resolved.required.contains(property.name)
                    ))
            }
            for part in resolved.allOf + resolved.oneOf + resolved.anyOf { collect(part, depth: depth + 1) }
        }
        collect(schema, depth: 0)
        return found
    }

    /// Its type as a reader says it: `string`, `integer | null`, `array of object (Pet)`, `object (Pet)`;
    /// `any` when the schema allows any type.
    var typeText: String {
        typeText(depth: 0)
    }

    private func typeText(depth: Int) -> String {
        guard let types = table.types(of: schema) else { return "any" }
        var parts: [String] = []
        for type in types.sorted().reversed() where type != .null {
            if type == .array, depth < 4, let items = table.items(of: schema) {
                parts.append("array of " + TypedSchema(schema: items, table: table).typeText(depth: depth + 1))
            } else {
                parts.append(type.rawValue)
            }
        }
        if types.contains(.null) { parts.append("null") }
        var text = parts.isEmpty ? "never" : parts.joined(separator: " | ")
        if let name = schema.reference ?? nullableReference { text += " (\(name))" }
        return text
    }

    /// The name of the schema a nullable reference (`anyOf: [$ref, null]`) refers to.
    private var nullableReference: String? {
        let choices = schema.anyOf + schema.oneOf
        guard choices.count == 2, choices.contains(where: { $0.types == [.null] }) else { return nil }
        return choices.lazy.compactMap(\.reference).first
    }

    /// Its description: the one written where it is used, else the named schema's own.
    var description: String? {
        schema.description ?? table.resolve(schema).description
    }
}
