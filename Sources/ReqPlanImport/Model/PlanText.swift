import ReqPlanSyntax

/// Text of a plan value: literal pieces, read as written, and references (`${{ steps.login.body.token }}`).
///
/// A literal is never an expression, whatever it holds: the writer turns a literal `${{` into
/// `${{ '${{' }}`, the one way the language has to write it (grammar.md §10.2 has no escape).
public struct PlanText: Sendable, Hashable {
    /// One piece of the text.
    public enum Piece: Sendable, Hashable {
        /// Text sent as written.
        case literal(String)
        /// An expression, written inside `${{ }}`.
        case reference(Reference)
    }

    /// The pieces, in order.
    public var pieces: [Piece]

    /// Literal text.
    public init(_ literal: String) {
        pieces = literal.isEmpty ? [] : [.literal(literal)]
    }

    /// Text of `pieces`.
    public init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// Text that is exactly one reference.
    public static func reference(_ reference: Reference) -> PlanText {
        PlanText(pieces: [.reference(reference)])
    }

    /// The text when it has no reference, else `nil`.
    public var literal: String? {
        var text = ""
        for piece in pieces {
            guard case .literal(let part) = piece else { return nil }
            text += part
        }
        return text
    }

    /// Every reference in the text.
    public var references: [Reference] {
        pieces.compactMap { piece in
            if case .reference(let reference) = piece { return reference }
            return nil
        }
    }

    /// This text followed by `other`.
    public static func + (lhs: PlanText, rhs: PlanText) -> PlanText {
        PlanText(pieces: lhs.pieces + rhs.pieces)
    }
}

/// What a `${{ }}` reads: a step's result, or an input.
public struct Reference: Sendable, Hashable {
    /// The expression, as written between `${{ ` and ` }}`.
    public var expression: String
    /// The step it reads, when it reads one (a dependency).
    public var step: String?

    /// A reference to the input `name`.
    public static func input(_ name: String) -> Reference {
        Reference(expression: "inputs.\(name)", step: nil)
    }

    /// A reference to `path` (`body.id`, `headers.location`) of the result of the step `id`.
    public static func step(_ id: String, _ path: String) -> Reference {
        Reference(expression: "steps.\(id).\(path)", step: id)
    }
}

/// A JSON value of a body whose strings may hold references; numbers keep their digits.
public indirect enum PlanValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number as written in the source (`18446744073709551615` keeps its digits).
    case number(String)
    case text(PlanText)
    case list([PlanValue])
    case object([Member])

    /// One key and value of an object.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: PlanValue
        /// A member.
        public init(_ key: String, _ value: PlanValue) {
            self.key = key
            self.value = value
        }
    }

    /// The plan value of a JSON value.
    public init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .number(String(number))
        case .largeInt(let digits): self = .number(digits)
        case .double(let number): self = .number(number.isFinite ? "\(number)" : "null")
        case .string(let text): self = .text(PlanText(text))
        case .list(let items): self = .list(items.map(PlanValue.init))
        case .object(let fields): self = .object(fields.map { Member($0.key, PlanValue($0.value)) })
        }
    }
}
