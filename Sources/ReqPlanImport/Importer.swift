import ReqPlanSyntax

/// The formats `reqplan import` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// curl command lines: a script, a README snippet, a terminal session.
    case curl
    /// HAR 1.2: a browser's network panel saved, or `reqplan run --report har:`.
    case har
    /// Postman Collection v2.0 or v2.1, with environment files (`values`) for its variables.
    case postman
    /// Insomnia export v4, JSON or YAML.
    case insomnia
    /// A Bruno collection folder: `bruno.json`, `.bru` files, `environments/`; or OpenCollection YAML
    /// (`opencollection.yml` and `.yml` files, or one file of a whole collection).
    case bruno
    /// Hurl files: entries, captures and asserts.
    case hurl
}

/// What an import does beyond its format's rules.
public struct ImportOptions: Sendable {
    /// Keep requests for images, fonts, style sheets and scripts in a HAR (left out by default).
    public var includeStatic = false

    /// The defaults: static assets left out.
    public init(includeStatic: Bool = false) {
        self.includeStatic = includeStatic
    }
}

/// The plan an import wrote, and what it has to say: errors (then no plan) and warnings (what was not
/// converted), each located in its source file.
public struct ImportResult: Sendable {
    /// The plan text, when there was no error.
    public var text: String?
    /// Every diagnostic, in the order found.
    public var diagnostics: [Diagnostic]
    /// The sources read, for the renderer's excerpts.
    public var sources: [SourceFile]

    /// Whether an error stopped the import.
    public var failed: Bool { text == nil }
}

/// `reqplan import`: reads each source in its format, finds the data flow between the requests, and
/// writes one plan of them all, in the order given. The stages: reader (per format) → `ImportedPlan` →
/// data flow (`DataFlowFinder`, HAR) → credentials (`Credentials`) → `PlanWriter`.
public enum Importer {
    /// The most bytes a source may hold (a HAR of a long session is large).
    public static let maxSourceSize = 512 * 1024 * 1024

    /// Reads the file at `path` (`-` for standard input) through `FileReader`, as the user named it.
    /// - Returns: the source, or a diagnostic (RP0001, RP0004) naming it.
    public static func readSource(atPath path: String) -> Result<SourceFile, Diagnostic> {
        let shown = path == "-" ? "<stdin>" : path
        let read = FileReader.text(
            atPath: path == "-" ? "/dev/stdin" : path, origin: .user, limit: maxSourceSize, what: "`\(shown)`",
            shownAs: shown)
        switch read {
        case .success(let text): return .success(SourceFile(path: shown, text: text))
        case .failure(let failure):
            var diagnostic = Diagnostic.error(
                failure.isTooLarge ? .fileTooLarge : .unreadableFile, failure.text, at: nil, hint: failure.hint)
            diagnostic.file = shown
            return .failure(diagnostic)
        }
    }

    /// The plan of `sources`, read as `format`.
    public static func importPlan(
        _ format: ImportFormat, from sources: [SourceFile], options: ImportOptions = ImportOptions()
    )
        -> ImportResult
    {
        var diagnostics: [Diagnostic] = []
        var plan = ImportedPlan(origin: sources.map(\.path).joined(separator: ", "))
        var harEntries: [HAREntry] = []
        var staticAssetsLeftOut = 0
        if format == .postman {
            var reader = PostmanReader(inputs: plan.inputs)
            reader.read(sources)
            diagnostics += reader.diagnostics
            plan.append(reader.plan)
        } else if format == .bruno {
            var reader = BrunoReader(inputs: plan.inputs)
            reader.read(sources)
            diagnostics += reader.diagnostics
            plan.append(reader.plan)
            plan.origin = reader.plan.origin
        }
        for source in sources {
            switch format {
            case .curl:
                read(CurlReader.self, source, into: &plan, diagnostics: &diagnostics)
            case .har:
                var reader = HARReader(source, options: options, inputs: plan.inputs)
                reader.read()
                plan.inputs = reader.inputs
                diagnostics += reader.diagnostics.diagnostics
                harEntries += reader.entries
                plan.notes += reader.notes
                staticAssetsLeftOut += reader.staticAssetsLeftOut
            case .insomnia:
                read(InsomniaReader.self, source, into: &plan, diagnostics: &diagnostics)
            case .hurl:
                read(HurlReader.self, source, into: &plan, diagnostics: &diagnostics)
            case .postman, .bruno:
                break
            }
        }
        if format == .har && !diagnostics.contains(where: { $0.severity == .error }) {
            plan.steps = harEntries.map(\.step)
            StepNaming.name(&plan)
            var finder = DataFlowFinder(entries: harEntries, file: sources.first?.path)
            finder.link(&plan)
            diagnostics += finder.diagnostics
        } else {
            StepNaming.name(&plan)
        }
        for index in plan.steps.indices {
            Credentials.protect(&plan.steps[index], inputs: &plan.inputs)
            HeaderCheck.check(&plan.steps[index], diagnostics: &diagnostics, file: sources.first?.path)
        }
        if plan.steps.isEmpty && !diagnostics.contains(where: { $0.severity == .error }) {
            var diagnostic = Diagnostic.error(
                .importNothing, "no request to import", at: nil,
                hint: staticAssetsLeftOut > 0
                    ? "\(staticAssetsLeftOut) request\(staticAssetsLeftOut == 1 ? " is" : "s are") for static assets, "
                        + "left out unless `--include-static` is given" : nil)
            diagnostic.file = sources.first?.path
            diagnostics.append(diagnostic)
        }
        // What a source names (a request, a header, a variable) is in these messages: shown as a terminal shows
        // it safely. The renderer's last net keeps color sequences (its own), which a collection's names may hold.
        let shown = diagnostics.map(Self.shownSafely)
        guard !diagnostics.contains(where: { $0.severity == .error }) else {
            return ImportResult(text: nil, diagnostics: shown, sources: sources)
        }
        return ImportResult(
            text: PlanWriter.text(of: plan, format: format.rawValue), diagnostics: shown, sources: sources)
    }

    /// `diagnostic` with its message, notes and hint as `VisibleText.line` shows them.
    static func shownSafely(_ diagnostic: Diagnostic) -> Diagnostic {
        var shown = diagnostic
        shown.message = VisibleText.line(diagnostic.message)
        shown.hint = diagnostic.hint.map(VisibleText.line)
        for index in shown.notes.indices { shown.notes[index].message = VisibleText.line(shown.notes[index].message) }
        return shown
    }

    /// Reads `source` with a reader of one file, its requests after those of `plan`.
    private static func read<Reader: SourceReader>(
        _: Reader.Type, _ source: SourceFile, into plan: inout ImportedPlan, diagnostics: inout [Diagnostic]
    ) {
        var reader = Reader(source, inputs: plan.inputs)
        reader.read()
        diagnostics += reader.diagnostics.diagnostics
        plan.append(reader.plan)
    }
}

/// A reader of one source file that carries on the inputs of the files before it.
protocol SourceReader {
    init(_ source: SourceFile, inputs: InputTable)
    mutating func read()
    var diagnostics: DiagnosticCollector { get }
    var plan: ImportedPlan { get }
}

extension CurlReader: SourceReader {}
extension InsomniaReader: SourceReader {}
