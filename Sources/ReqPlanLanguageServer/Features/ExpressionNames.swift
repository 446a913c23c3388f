import Foundation
import ReqPlanSyntax

/// Completion of the names an expression reads, inside `${{ }}`: input names after `inputs.`, var names after
/// `vars.`, the outputs of a `plan` step's sub-plan after `steps.ID.outputs.`, and the built-in functions
/// (with the roots `inputs`, `steps`, `vars`, `env`) where an expression's word starts.
///
/// The names come from the document's last reading that gave a plan (its last check, mostly), so that a
/// half-written document still completes; a sub-plan's outputs from the text of it that check read, else
/// from its file.
public struct ExpressionNames: Sendable {
    /// A name completion offers, with what it shows beside it.
    public struct Name: Sendable, Equatable {
        /// The name.
        public var name: String
        /// A short line beside it (an input's type, `var`).
        public var detail: String?
        /// Its `description:`, if written.
        public var documentation: String?
    }

    /// What is being written inside `${{ }}`.
    enum Context: Equatable {
        case input
        case variable
        /// After `steps.ID.outputs.`.
        case output(step: String)
        /// The first word of a path, or a function's name.
        case root
    }

    /// The plan's inputs.
    public var inputs: [Name] = []
    /// The plan's vars.
    public var vars: [Name] = []
    /// The sub-plan file of each `plan` step, by step id, resolved from the plan's folder.
    public var subPlanFiles: [String: String] = [:]
    /// Where the plan's files may be read from (its project, or its folder).
    var boundary = FileBoundary(root: URL(fileURLWithPath: "/"))
    /// The texts of the sub-plans the last check read, by path.
    public var sources: [String: SourceFile] = [:]

    /// No names: only the functions and roots are offered.
    public init() {}

    /// The names of `plan`.
    /// - Parameter sources: the texts its last check read (`ValidationReport.sources`), where its sub-plans'
    ///   outputs are read from; a sub-plan not among them is read from its file when its outputs are asked.
    public init(plan: Plan, sources: [SourceFile]) {
        inputs = plan.inputs.map { input in
            Name(
                name: input.name.value, detail: "input: \(input.effectiveType.rawValue)",
                documentation: input.description)
        }
        vars = plan.vars.map { Name(name: $0.name.value, detail: "var", documentation: nil) }
        let folder = URL(fileURLWithPath: plan.source.path).deletingLastPathComponent()
        boundary = FileBoundary(planFolder: folder)
        for step in plan.allSteps {
            guard let call = step.subPlan, call.entry == nil else { continue }
            subPlanFiles[step.id.value] = FileBoundary.resolve(call.file.value, relativeTo: folder).path
        }
        // The sub-plans' texts only: the plan's own is the document's.
        let files = Set(subPlanFiles.values)
        self.sources = Dictionary(
            sources.filter { files.contains($0.path) }.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The `CompletionItem`s for `position` of `text` when it is inside `${{ }}` where a name of these is
    /// written; `nil` elsewhere (other completions apply there).
    public func items(at position: TextPosition, in text: String) -> [Value]? {
        guard let (context, wordStart) = Self.context(at: position, in: text) else { return nil }
        let range = TextRange(start: wordStart, end: position)
        switch context {
        case .input:
            return inputs.map { Self.item($0, kind: 6, range: range) }
        case .variable:
            return vars.map { Self.item($0, kind: 6, range: range) }
        case .output(let step):
            return outputs(of: step).map { Self.item($0, kind: 10, range: range) }
        case .root:
            let roots = ["inputs", "steps", "vars", "env"].map { Self.item(Name(name: $0), kind: 9, range: range) }
            let functions = BuiltinFunction.allCases.map { function in
                Self.item(Name(name: function.rawValue, detail: function.signature), kind: 3, range: range)
            }
            return roots + functions
        }
    }

    /// The outputs of the sub-plan step `step` runs; empty when it is not a `plan` step or its file does not
    /// read.
    func outputs(of step: String) -> [Name] {
        guard let path = subPlanFiles[step] else { return [] }
        // A file the plan names: read as every such file is, inside the plan's project (`FileReader`).
        let source =
            sources[path]
            ?? (try? FileReader.text(
                atPath: path, origin: .input(boundary), limit: ParseLimits().maxFileSize, what: "the sub-plan"
            ).get()).map { SourceFile(path: path, text: $0) }
        guard let source, let plan = PlanParser.parse(source).plan else { return [] }
        return plan.outputs.map { Name(name: $0.name.value, detail: "output", documentation: $0.description) }
    }

    /// What is being written at `position` of `text` inside an unclosed `${{`, and where its word starts.
    static func context(at position: TextPosition, in text: String) -> (Context, wordStart: TextPosition)? {
        let lines = CompletionContext.lines(text)
        guard position.line < lines.count else { return nil }
        let prefix = CompletionContext.prefix(of: lines[position.line], units: position.character)
        let word = prefix.reversed().prefix { CompletionContext.isNameCharacter($0) }.count
        let before = prefix.dropLast(word)
        let wordStart = TextPosition(line: position.line, character: before.reduce(0) { $0 + $1.utf16.count })
        guard let open = CompletionContext.openExpression(before) else { return nil }
        let expression = Array(before[open...])
        // Inside a string literal of the expression: nothing to complete.
        for quote: Unicode.Scalar in ["'", "\""] where expression.count(where: { $0 == quote }) % 2 == 1 {
            return nil
        }
        // The path before the word: `a.b.` as ["a", "b"]; nil when the word does not follow a dot.
        guard expression.last == "." else {
            let previous = expression.last { $0 != " " }
            if let previous, previous == "]" || previous == ")" || CompletionContext.isNameCharacter(previous) {
                return nil
            }
            return (.root, wordStart)
        }
        var path: [String] = []
        var end = expression.count - 1
        while end > 0, expression[end] == "." {
            var start = end
            while start > 0, CompletionContext.isNameCharacter(expression[start - 1]) { start -= 1 }
            guard start < end else { return nil }
            path.insert(String(String.UnicodeScalarView(expression[start..<end])), at: 0)
            end = start - 1
        }
        // The path starts the expression's word: not `x.inputs.`.
        if end >= 0, expression[end] == "." || expression[end] == "]" { return nil }
        switch path {
        case ["inputs"]: return (.input, wordStart)
        case ["vars"]: return (.variable, wordStart)
        case let path where path.count == 3 && path[0] == "steps" && path[2] == "outputs":
            return (.output(step: path[1]), wordStart)
        default: return nil
        }
    }

    /// A `CompletionItem` replacing the word being written (`range`) with the name.
    private static func item(_ name: Name, kind: Int, range: TextRange) -> Value {
        Completion.item(name.name, kind: kind, detail: name.detail, documentation: name.documentation, range: range)
    }
}

extension ExpressionNames.Name {
    /// A name with nothing beside it but `detail`.
    init(name: String, detail: String? = nil) {
        self.init(name: name, detail: detail, documentation: nil)
    }
}
