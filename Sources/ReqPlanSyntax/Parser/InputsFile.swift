import Foundation

/// Values for the inputs of one or several plans, read from a file: `--inputs-file FILE`, or an
/// environment, `--env NAME` (the file `NAME.env.yaml` at the root of the plan's project). A JSON or YAML
/// mapping of input names to values, read as a `DataDocument` (the limits of plans: size, aliases, depth),
/// every entry located so that a value of the wrong type, or a name no plan declares, points at its line.
///
/// One file serves a suite of plans that declare different inputs: each plan takes the values it
/// declares; the others are ignored (`validate --inputs-file` warns about a name no plan declares, RP0904).
public struct InputsFile: Sendable {
    /// The text, for excerpts.
    public let source: SourceFile
    /// The entries, in the order written (a name given twice is refused when the file is read, RP0003).
    public let entries: [DataDocument.Entry]

    /// Creates inputs from entries already read.
    public init(source: SourceFile, entries: [DataDocument.Entry]) {
        self.source = source
        self.entries = entries
    }

    /// The values by name.
    public var values: [String: Value] {
        Dictionary(entries.map { ($0.key.value, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The entry for `name`, if the file sets it.
    public func entry(_ name: String) -> DataDocument.Entry? {
        entries.last { $0.key.value == name }
    }

    /// Reads the inputs file at `path`.
    /// - Parameters:
    ///   - shown: how diagnostics name it (default: `path`).
    ///   - limits: the limits plans are read under.
    /// - Returns: the inputs, or the located reason they cannot be read.
    public static func read(atPath path: String, shownAs shown: String? = nil, limits: ParseLimits)
        -> Result<InputsFile, DataDocument.Failure>
    {
        let document: DataDocument
        switch DataDocument.read(atPath: path, shownAs: shown, what: "inputs file", limits: limits) {
        case .failure(let failure): return .failure(failure)
        case .success(let read): document = read
        }
        switch document.entries() {
        case .failure(let diagnostic): return .failure(DataDocument.Failure(diagnostic, source: document.source))
        case .success(let entries): return .success(InputsFile(source: document.source, entries: entries))
        }
    }

    /// The inputs files of a command, in order of precedence (the last wins): `--env NAME`'s environment
    /// file (looked for from the plan at `planPath`), then `--inputs-file`.
    public static func read(file: String?, environmentName: String?, forPlan planPath: String, limits: ParseLimits)
        -> Result<[InputsFile], DataDocument.Failure>
    {
        var paths: [String] = []
        if let environmentName {
            switch environmentFile(named: environmentName, forPlan: planPath) {
            case .success(let path): paths.append(path)
            case .failure(let diagnostic): return .failure(DataDocument.Failure(diagnostic, source: nil))
            }
        }
        if let file { paths.append(file) }
        var files: [InputsFile] = []
        for path in paths {
            switch read(atPath: path, limits: limits) {
            case .success(let read): files.append(read)
            case .failure(let failure): return .failure(failure)
            }
        }
        return .success(files)
    }

    /// The file of environment `name` for the plan file at `planPath`: `NAME.env.yaml` (or `.env.yml`) at the
    /// root of the plan's project, or in the plan's folder when it is in no project (`FileBoundary`).
    /// - Returns: the path, or RP0501 naming where it was looked for and the environments that exist there.
    public static func environmentFile(named name: String, forPlan planPath: String) -> Result<String, Diagnostic> {
        let boundary = FileBoundary(planFile: planPath)
        let folder = URL(fileURLWithPath: boundary.root)
        for suffix in [".env.yaml", ".env.yml"] {
            let candidate = folder.appendingPathComponent(name + suffix).path
            if FileManager.default.fileExists(atPath: candidate) { return .success(candidate) }
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .compactMap { file -> String? in
                for suffix in [".env.yaml", ".env.yml"] where file.hasSuffix(suffix) {
                    return String(file.dropLast(suffix.count))
                }
                return nil
            }.sorted()
        let hint =
            Suggestion.didYouMean(name, in: names)
            ?? (names.isEmpty
                ? "an environment is a file `NAME.env.yaml` at the root of the project (the folder with `.git` or "
                    + "`.reqplan`) mapping input names to values"
                : "environments there: " + names.map { "`\($0)`" }.joined(separator: ", "))
        return .failure(
            Diagnostic(
                .error, .invalidInput,
                "no environment `\(name)`: `\(name).env.yaml` is not in `\(boundary.root)`", hint: hint))
    }
}
