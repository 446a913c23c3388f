import ReqPlanSyntax

/// The answer to `textDocument/completion`: keys the grammar allows where the cursor is (with their
/// descriptions, from the schema `reqplan schema` prints), step ids in `needs:` and after `steps.`, the
/// fields of a step's result after `steps.ID.`, and the names of `ExpressionNames` inside `${{ }}`.
public struct Completion: Sendable {
    /// The steps of the plan, from its last reading that gave one: a half-written document may not read.
    public var steps: [StepSummary]
    /// The schema's keys.
    public var outline: SchemaOutline
    /// The inputs, vars and sub-plan outputs expressions read, and the built-in functions.
    public var names = ExpressionNames()

    /// What completion knows of one step.
    public struct StepSummary: Sendable, Equatable {
        /// Its id.
        public var id: String
        /// `request`, `group`, `sequence`, `for_each` or `plan`.
        public var kind: String
        /// Whether it is a group, sequence, for_each or plan step (they have `results`, not `status`).
        public var isCollection: Bool
        /// Its `description:`.
        public var description: String?

        /// A step known by its id only (read from a text that does not read as a plan).
        public init(id: String) {
            self.id = id
            kind = "request"
            isCollection = false
            kindIsKnown = false
        }

        /// Whether `kind` and `isCollection` are known (from the AST), not assumed.
        public var kindIsKnown = true

        /// The summary of a step of the AST.
        public init(_ step: Step) {
            id = step.id.value
            kind = step.kindName
            isCollection = step.isCollection
            description = step.description
        }
    }

    /// A completion over the steps of `plan` (none when `nil`).
    public init(plan: Plan?, outline: SchemaOutline = .plan) {
        self.steps = plan?.allSteps.map(StepSummary.init) ?? []
        self.outline = outline
    }

    /// A completion over the steps given.
    public init(steps: [StepSummary], outline: SchemaOutline = .plan) {
        self.steps = steps
        self.outline = outline
    }

    /// The most step ids one answer lists: a plan of thousands of steps would make each answer slow to send
    /// and read. The list is then marked incomplete, and the editor asks again as the id is typed.
    public static let maxStepIDs = 100

    /// The `CompletionItem`s for `position` of `text` (an empty list when nothing fits).
    public func items(at position: TextPosition, in text: String) -> [Value] {
        list(at: position, in: text).items
    }

    /// The `CompletionItem`s for `position` of `text`, and whether more would fit (`isIncomplete`: more step
    /// ids hold what is typed than `maxStepIDs`).
    public func list(at position: TextPosition, in text: String) -> (items: [Value], isIncomplete: Bool) {
        if let items = names.items(at: position, in: text) { return (items, false) }
        guard let (context, wordStart) = CompletionContext.at(position, in: text) else { return ([], false) }
        let range = TextRange(start: wordStart, end: position)
        switch context {
        case .stepID:
            // The ids that hold what is typed of the word, in order (as an editor's fuzzy match takes them).
            let lines = CompletionContext.lines(text)
            var typed: [Unicode.Scalar] = []
            if position.line < lines.count {
                let line = lines[position.line]
                let before = CompletionContext.prefix(of: line, units: position.character)
                let head = CompletionContext.prefix(of: line, units: wordStart.character)
                typed = Array(
                    String(String.UnicodeScalarView(before.dropFirst(head.count))).lowercased().unicodeScalars)
            }
            var items: [Value] = []
            for step in steps where Self.holds(step.id, typed) {
                guard items.count < Self.maxStepIDs else { return (items, true) }
                items.append(
                    Self.item(
                        step.id, kind: 18, detail: step.kindIsKnown ? "\(step.kind) step" : "step",
                        documentation: step.description, range: range))
            }
            return (items, false)
        case .resultField(let id):
            guard let step = steps.first(where: { $0.id == id }) else { return ([], false) }
            let fields = ResultField.allCases.filter { field in
                if !step.kindIsKnown { return true }
                if field.isSubPlanField { return step.kind == "plan" }
                return step.isCollection ? !field.isRequestField : !field.isCollectionField
            }
            return (
                fields.map {
                    Self.item($0.rawValue, kind: 5, detail: "result field of `\(id)`", documentation: nil, range: range)
                }, false
            )
        case .key(let path, let present):
            let keys = outline.keys(at: path).filter { !present.contains($0.name) }.map { key in
                Self.item(
                    key.name, kind: 10, detail: nil, documentation: key.description, range: range,
                    insert: key.name + ": ")
            }
            return (keys, false)
        }
    }

    /// Whether `wanted` (lower case) is a subsequence of `name`, ignoring case (an empty one is in every name).
    static func holds(_ name: String, _ wanted: [Unicode.Scalar]) -> Bool {
        guard !wanted.isEmpty else { return true }
        var next = 0
        for scalar in name.lowercased().unicodeScalars where scalar == wanted[next] {
            next += 1
            if next == wanted.count { return true }
        }
        return false
    }

    /// A `CompletionItem` that replaces the word being written (`range`) with `insert` (default: `label`): every
    /// completion of the server is made here.
    static func item(
        _ label: String, kind: Int, detail: String?, documentation: String?, range: TextRange, insert: String? = nil
    ) -> Value {
        var fields: [Value.Field] = [.init("label", .string(label)), .init("kind", .int(kind))]
        if let detail { fields.append(.init("detail", .string(detail))) }
        if let documentation {
            fields.append(
                .init(
                    "documentation",
                    .object([.init("kind", .string("markdown")), .init("value", .string(documentation))])))
        }
        fields.append(
            .init("textEdit", .object([.init("range", range.value), .init("newText", .string(insert ?? label))])))
        return .object(fields)
    }
}
