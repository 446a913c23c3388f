import ReqPlanPlanner
import ReqPlanSyntax

/// The inputs of each row of a data file (`DataFile`), for a plan run once per row (`reqplan load`'s
/// iterations): every row checked before anything runs, each problem located in the data file.
///
/// **Which value wins.** A row's value wins over every other source: the command line's `--input`, the inputs
/// file and environment (`--inputs-file`, `--env`), the environment variable and the default, in that order
/// after it. So a column is what makes one iteration differ from the next, and no constant given elsewhere
/// flattens it without a word: a `--input` for an input every row gives is never used, and says so (warning
/// RP0908). An input a row does not give (a key a JSON Lines row leaves out) takes its value from the other
/// sources, as a run without a data file would; when none gives one, that row is an error.
///
/// **Values.** A CSV field is text, converted to its input's declared type exactly as `--input NAME=VALUE`
/// text is (`InputResolver.convert`: `3` is a number, `true` a boolean, a JSON list or comma-separated items a
/// list; an empty field is the empty text, so no number: JSON Lines can leave a value out, or give null). A JSON
/// Lines value keeps its JSON type, which must be the declared one, as an inputs file's must (null fits every
/// type). A secret input's value is never quoted in a message (the excerpt under it shows the line as written).
///
/// **Problems**, all found before anything runs: a value of the wrong type (RP0501, at the value, a note at the
/// declaration), a row that gives no value for an input nothing else gives (RP0502, at the row), up to
/// `maxErrors` of them in row order, then counted; a required input that neither a column nor any other source
/// gives (RP0502 once, at the declaration, its hint naming the column to add). A column no input declares is a
/// warning (RP0904, with the closest input's name as did-you-mean); a run ignores it.
///
/// **Memory.** `resolve` takes the data file and returns the rows' values only, converted, one `Value` per
/// row and input the data gives (columns no input declares are dropped): the file's text and cells go when
/// `resolve` returns (pass the file with `consume`, or let its last use be the call). `inputs(ofRow:)` builds
/// one row's `RunInputs` when asked, in O(inputs); the type is immutable and safe to share between iterations.
public struct DataInputs: Sendable {
    /// A plan made ready to run once per row of a data file.
    public struct Prepared: Sendable {
        /// The plan's graph, the inputs no row changes (the data's inputs are null there: take each row's from
        /// `rows`), and the optional inputs left null for want of their variable (the data's inputs count as
        /// given).
        public var plan: PlanRun.Prepared
        /// Each row's inputs.
        public var rows: DataInputs
        /// Warnings, located in the data file: a column no input declares (RP0904), a `--input` every row
        /// replaces (RP0908).
        public var warnings: [Diagnostic]
        /// The data file's text, when there are warnings, to render them; `rows` keeps no text, so let go of this
        /// once they are shown.
        public var sources: [SourceFile]
    }

    /// How one input the data gives goes into a run's inputs.
    private struct Slot: Sendable {
        /// The input's name.
        var name: String
        /// The input's environment variable, when its value sets it (the process environment does not).
        var variable: String?
        /// Whether the input's value is a secret of the run (`secret: true`, or read as credentials).
        var isSecret: Bool
    }

    /// The data file's display path.
    public let file: String
    /// The inputs the data gives (the columns that name a declared input), in column order.
    public var names: [String] { slots.map(\.name) }
    /// How many rows there are (at least one).
    public var count: Int { lines.count }

    /// The inputs every row starts from: every other source resolved, the data's inputs null.
    private let base: RunInputs
    private let slots: [Slot]
    /// Row after row, one value per slot (a row's own, or, where it gives none, the other sources').
    private let values: [Value]
    /// The line each row starts on.
    private let lines: [Int32]

    /// The line of the data file row `index` starts on, to name the row of an iteration that failed.
    public func line(ofRow index: Int) -> Int { Int(lines[index]) }

    /// The inputs of row `index` (`0..<count`), secrets included.
    /// - Complexity: O(*k*) for the *k* inputs the data gives, and a copy of the base's dictionaries.
    public func inputs(ofRow index: Int) -> RunInputs {
        var inputs = base
        let start = index * slots.count
        for (offset, slot) in slots.enumerated() {
            Self.set(values[start + offset], of: slot, in: &inputs)
        }
        return inputs
    }

    /// Puts `value` in `inputs` as `InputResolver` puts an input's value: its name, its variable when the
    /// environment does not set it, its text among the secrets when it is one.
    private static func set(_ value: Value, of slot: Slot, in inputs: inout RunInputs) {
        inputs.values[slot.name] = value
        if let variable = slot.variable { inputs.environment[variable] = value.interpolated }
        guard slot.isSecret else { return }
        if case .string(let text) = value, !text.isEmpty { inputs.secrets.append(text) }
        if value.type != .string, value != .null { inputs.secrets.append(value.jsonText()) }
    }

    // MARK: Resolving

    /// Resolves the inputs of every row of `data` for the validated plan of `report`, every other source
    /// resolved once as `PlanRun.resolveInputs` resolves them.
    /// - Parameters:
    ///   - data: the rows; taken, and gone when this returns (but for the text of warnings).
    ///   - overrides: `--input name=value` pairs, in order (later wins); a row's value wins over them.
    ///   - file: the inputs files' values (`--inputs-file`, `--env`); names the plan does not declare are ignored.
    ///   - environment: the process environment.
    ///   - ignoreUndeclared: drop the `--input`s the plan does not declare.
    ///   - naming: how messages name the values given.
    ///   - maxErrors: the most problems with rows reported; the others are counted.
    /// - Returns: the plan ready to run and each row's inputs, or every problem found (those of the data file
    ///   with its text among the sources).
    public static func resolve(
        _ data: consuming DataFile, for report: ValidationReport, overrides: [(name: String, value: String)],
        file: [String: Value], environment: [String: String], ignoreUndeclared: Bool = false,
        naming: InputResolver.Naming = .library, maxErrors: Int = 20
    ) -> Result<Prepared, PlanRun.PreparationError> {
        guard report.errorCount == 0, let graph = report.graph else {
            return .failure(PlanRun.PreparationError(invalid: report))
        }
        let plan = graph.plan
        let source = data.source
        let format = data.format
        let declared = Dictionary(plan.inputs.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
        var warnings = CappedDiagnostics(limit: maxErrors)

        // The columns the plan declares, each an input's slot; the others, warnings.
        var slotOfColumn = [Int?](repeating: nil, count: data.columns.count)
        var inputs: [InputDeclaration] = []
        var headers: [Located<String>] = []
        for (index, column) in data.columns.enumerated() {
            if let input = declared[column.value] {
                slotOfColumn[index] = inputs.count
                inputs.append(input)
                headers.append(column)
            } else if warnings.isFull {
                warnings.countDropped()
            } else {
                warnings.append(undeclaredColumn(column, format: format, in: source, plan: plan))
            }
        }

        // Which inputs some row leaves out (JSON Lines): their values where a row gives none.
        var given = [Int](repeating: 0, count: inputs.count)
        for row in 0..<data.rowCount {
            for cell in data.cells(ofRow: row) { if let slot = slotOfColumn[cell.column] { given[slot] += 1 } }
        }
        let sometimesAbsent = Set(inputs.indices.filter { given[$0] < data.rowCount })
        let dataNames = Set(inputs.map(\.name.value))

        // The base: every input the data gives, null, and its `--input` dropped (a row wins over it).
        let placeholders = Dictionary(uniqueKeysWithValues: dataNames.map { ($0, Value.null) })
        let prepared: PlanRun.Prepared
        switch PlanRun.resolveInputs(
            of: report, overrides: overrides.filter { !dataNames.contains($0.name) },
            file: file.merging(placeholders, uniquingKeysWith: { _, placeholder in placeholder }),
            environment: environment, ignoreUndeclared: ignoreUndeclared, naming: naming)
        {
        case .failure(let failure):
            return .failure(
                PlanRun.PreparationError(
                    diagnostics: failure.diagnostics.map {
                        namingTheColumn(for: $0, plan: plan, format: format, file: source.path)
                    }, sources: failure.sources))
        case .success(let resolved): prepared = resolved
        }

        // The values of inputs some row leaves out, from the other sources; nil where none gives one.
        var fallbacks = [Value?](repeating: nil, count: inputs.count)
        if !sometimesAbsent.isEmpty {
            switch fallbackValues(
                of: inputs, absent: sometimesAbsent, report: report, overrides: overrides, file: file,
                environment: environment, ignoreUndeclared: ignoreUndeclared, naming: naming)
            {
            case .failure(let failure): return .failure(failure)
            case .success(let found): fallbacks = found
            }
        }

        // Every row, checked and converted.
        var rowProblems = CappedDiagnostics(limit: maxErrors)
        var values: [Value] = []
        values.reserveCapacity(data.rowCount * inputs.count)
        var lines: [Int32] = []
        lines.reserveCapacity(data.rowCount)
        let credentials = plan.inputsReadAsCredentials
        var row: [Value?] = Array(repeating: nil, count: inputs.count)
        for index in 0..<data.rowCount {
            for slot in row.indices { row[slot] = nil }
            for cell in data.cells(ofRow: index) {
                guard let slot = slotOfColumn[cell.column] else { continue }
                switch check(cell, for: inputs[slot], format: format, in: source, plan: plan) {
                case .success(let value): row[slot] = value
                case .failure(let problem):
                    if rowProblems.isFull { rowProblems.countDropped() } else { rowProblems.append(problem) }
                    row[slot] = .null
                }
            }
            // Only JSON Lines rows leave inputs out; a CSV row gives every column.
            let missing = sometimesAbsent.isEmpty ? [] : row.indices.filter { row[$0] == nil && fallbacks[$0] == nil }
            if !missing.isEmpty {
                if rowProblems.isFull {
                    rowProblems.countDropped()
                } else {
                    rowProblems.append(
                        missingInRow(
                            missing.map { inputs[$0] }, line: data.line(ofRow: index), format: format, in: source))
                }
            }
            for slot in row.indices { values.append(row[slot] ?? fallbacks[slot] ?? .null) }
            lines.append(Int32(clamping: data.line(ofRow: index)))
        }
        if !rowProblems.isEmpty {
            return .failure(
                PlanRun.PreparationError(diagnostics: rowProblems.diagnostics, sources: [source] + report.sources))
        }

        // A `--input` every row replaces.
        for (slot, input) in inputs.enumerated() where !sometimesAbsent.contains(slot) {
            let name = input.name.value
            guard overrides.contains(where: { $0.name == name }) else { continue }
            warnings.append(
                located(
                    .warning(
                        .replacedByDataFile,
                        "\(naming.given(name)) is never used: every row of the data file gives `\(name)`",
                        at: headers[slot].range,
                        hint: "a row's value wins over every other source; to give every iteration the same value, "
                            + "remove the \(format.fieldName) `\(name)` from the data file"),
                    in: source))
        }
        let warningList = warnings.diagnostics

        let slots = inputs.map { input in
            Slot(
                name: input.name.value, variable: variableSetByValue(of: input, environment: environment),
                isSecret: input.secret || credentials.contains(input.name.value))
        }
        let rows = DataInputs(file: source.path, base: prepared.inputs, slots: slots, values: values, lines: lines)
        return .success(
            Prepared(plan: prepared, rows: rows, warnings: warningList, sources: warningList.isEmpty ? [] : [source]))
    }

    private init(file: String, base: RunInputs, slots: [Slot], values: [Value], lines: [Int32]) {
        self.file = file
        self.base = base
        self.slots = slots
        self.values = values
        self.lines = lines
    }

    /// The variable of `input` that its value sets, as `InputResolver` decides: one the environment does not
    /// set (or sets empty, for a required input).
    private static func variableSetByValue(of input: InputDeclaration, environment: [String: String]) -> String? {
        guard let variable = input.env?.value else { return nil }
        guard let text = environment[variable] else { return variable }
        return input.required?.value == true && text.isEmpty ? variable : nil
    }

    /// The values the other sources give the inputs some row leaves out: the base resolved without those
    /// inputs' placeholders (their `--input`s kept), then once more with placeholders for those no source gives.
    private static func fallbackValues(
        of inputs: [InputDeclaration], absent: Set<Int>, report: ValidationReport,
        overrides: [(name: String, value: String)],
        file: [String: Value], environment: [String: String], ignoreUndeclared: Bool, naming: InputResolver.Naming
    ) -> Result<[Value?], PlanRun.PreparationError> {
        let always = Set(inputs.indices.filter { !absent.contains($0) }.map { inputs[$0].name.value })
        var unresolvable: Set<Int> = []
        for _ in 0..<2 {
            let held = always.union(unresolvable.map { inputs[$0].name.value })
            let placeholders = Dictionary(uniqueKeysWithValues: held.map { ($0, Value.null) })
            switch PlanRun.resolveInputs(
                of: report, overrides: overrides.filter { !held.contains($0.name) },
                file: file.merging(placeholders, uniquingKeysWith: { _, placeholder in placeholder }),
                environment: environment, ignoreUndeclared: ignoreUndeclared, naming: naming)
            {
            case .success(let resolved):
                return .success(
                    inputs.indices.map { slot in
                        absent.contains(slot) && !unresolvable.contains(slot)
                            ? resolved.inputs.values[inputs[slot].name.value] : nil
                    })
            case .failure(let failure):
                var others: [Diagnostic] = []
                for diagnostic in failure.diagnostics {
                    if diagnostic.code == .missingInput,
                        let slot = absent.first(where: { slot in
                            diagnostic.range == inputs[slot].name.range && diagnostic.file == report.plan?.source.path
                        })
                    {
                        unresolvable.insert(slot)
                    } else {
                        others.append(diagnostic)
                    }
                }
                if !others.isEmpty {
                    return .failure(PlanRun.PreparationError(diagnostics: others, sources: failure.sources))
                }
            }
        }
        // Every input no source gives was held the second time: only other problems are left, returned above.
        return .success(inputs.map { _ in nil })
    }

    // MARK: Checking a value

    /// The value of `cell` for `input`: a CSV field converted as `--input` text is, a JSON value checked against
    /// the declared type.
    private static func check(
        _ cell: DataFile.Cell, for input: InputDeclaration, format: DataFile.Format, in source: SourceFile, plan: Plan
    ) -> Result<Value, Diagnostic> {
        let name = input.name.value
        let type = input.effectiveType
        let declaredHere = Diagnostic.Note(
            "`\(name)` is declared here as \(type.withArticle)", at: input.type?.range ?? input.name.range,
            in: plan.source.path)
        switch format {
        case .csv:
            guard case .string(let text) = cell.value else { return .success(cell.value) }
            if let value = InputResolver.convert(text, to: input.knownType) { return .success(value) }
            let shown = input.secret ? "" : ", got \(DataFile.quoted(text))"
            return .failure(
                located(
                    .error(
                        .invalidInput, "input `\(name)` must be \(type.withArticle)\(shown)", at: cell.range,
                        notes: [declaredHere], hint: csvHint(for: type)),
                    in: source))
        case .jsonLines:
            if input.knownType == nil || cell.value == .null || cell.value.type == type { return .success(cell.value) }
            return .failure(
                located(
                    .error(
                        .invalidInput,
                        "input `\(name)` must be \(type.withArticle), but the data file gives "
                            + cell.value.type.withArticle,
                        at: cell.range, notes: [declaredHere]),
                    in: source))
        }
    }

    /// What a CSV field of `type` looks like.
    private static func csvHint(for type: ValueType) -> String {
        switch type {
        case .number: "write a number, as in `3` or `-1.5`"
        case .boolean: "write `true` or `false`"
        case .list: "write a JSON list in a quoted field, its quotes doubled (`\"[\"\"a\"\", \"\"b\"\"]\"`)"
        case .object: "write a JSON object in a quoted field, its quotes doubled (`\"{\"\"id\"\": 3}\"`)"
        default: "write a value of the declared type"
        }
    }

    // MARK: Messages

    /// RP0904 for a column no input declares, with the closest input as did-you-mean.
    private static func undeclaredColumn(
        _ column: Located<String>, format: DataFile.Format, in source: SourceFile, plan: Plan
    ) -> Diagnostic {
        let names = plan.inputs.map(\.name.value)
        // A name of thousands of characters is no misspelling; edit distance is quadratic in it.
        let suggestion = column.value.utf8.count <= 64 ? Suggestion.replacement(for: column.value, in: names) : nil
        // The fix rewrites a CSV header's name written as is (not a quoted one, nor a JSON key, whose quotes it
        // would drop).
        let fix = format == .csv && source.text(onOneLine: column.range) == column.value ? suggestion?.fix : nil
        let declared =
            names.isEmpty
            ? "the plan declares no inputs"
            : "declared inputs: " + names.prefix(10).map { "`\($0)`" }.joined(separator: ", ")
        return located(
            .warning(
                .undeclaredInputsFileKey,
                "the data file's \(format.fieldName) \(DataFile.quoted(column.value)) is not an input the plan declares",
                at: column.range, hint: suggestion?.hint ?? "a run ignores it; \(declared)", fix: fix),
            in: source)
    }

    /// RP0502 at a row that gives no value for inputs no other source gives.
    private static func missingInRow(
        _ inputs: [InputDeclaration], line: Int, format: DataFile.Format, in source: SourceFile
    )
        -> Diagnostic
    {
        let names = inputs.map { "`\($0.name.value)`" }
        let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        return located(
            .error(
                .missingInput,
                "this row gives no \(list), and no other source gives \(names.count == 1 ? "it" : "them")",
                at: SourceRange(at: SourceLocation(line: line, column: 1)),
                hint: "give each row every \(format.fieldName) the plan requires, or give the input another value "
                    + "(`--input`, an inputs file, its environment variable or a default)"),
            in: source)
    }

    /// `diagnostic` in the data file.
    private static func located(_ diagnostic: Diagnostic, in source: SourceFile) -> Diagnostic {
        var diagnostic = diagnostic
        diagnostic.file = source.path
        return diagnostic
    }

    /// A diagnostic of the base resolution; RP0502 for a required input no source gives, its hint naming the
    /// column to add to the data file.
    private static func namingTheColumn(for diagnostic: Diagnostic, plan: Plan, format: DataFile.Format, file: String)
        -> Diagnostic
    {
        guard diagnostic.code == .missingInput, diagnostic.file == plan.source.path,
            let input = plan.inputs.first(where: { $0.name.range == diagnostic.range })
        else { return diagnostic }
        var diagnostic = diagnostic
        let add =
            format == .csv
            ? "add a column `\(input.name.value)` to the data file `\(file)`"
            : "give `\(input.name.value)` on each line of the data file `\(file)`"
        diagnostic.hint = diagnostic.hint.map { "\($0), or \(add)" } ?? add
        return diagnostic
    }
}
