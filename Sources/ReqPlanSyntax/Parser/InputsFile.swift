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
    ///   - origin: who named the file (`FileReader`): the user (`--inputs-file`), or reqplan itself for an
    ///     environment, which is read as a regular file inside the project.
    /// - Returns: the inputs, or the located reason they cannot be read.
    public static func read(
        atPath path: String, shownAs shown: String? = nil, limits: ParseLimits, origin: FileReader.Origin = .user
    ) -> Result<InputsFile, DataDocument.ReadError> {
        let document: DataDocument
        switch DataDocument.read(atPath: path, shownAs: shown, what: "inputs file", limits: limits, origin: origin) {
        case .failure(let failure): return .failure(failure)
        case .success(let read): document = read
        }
        switch document.entries() {
        case .failure(let diagnostic): return .failure(DataDocument.ReadError(diagnostic, source: document.source))
        case .success(let entries): return .success(InputsFile(source: document.source, entries: entries))
        }
    }

    /// The inputs files of a command, in order of precedence (the last wins): `--env NAME`'s environment
    /// file (looked for from the plan at `planPath`), then `--inputs-file`.
    public static func read(file: String?, environmentName: String?, forPlan planPath: String, limits: ParseLimits)
        -> Result<[InputsFile], DataDocument.ReadError>
    {
        var paths: [(path: String, origin: FileReader.Origin)] = []
        if let environmentName {
            switch environmentFile(named: environmentName, forPlan: planPath) {
            case .success(let path): paths.append((path, .input(FileBoundary(planFile: planPath))))
            case .failure(let diagnostic): return .failure(DataDocument.ReadError(diagnostic, source: nil))
            }
        }
        if let file { paths.append((file, .user)) }
        var files: [InputsFile] = []
        for (path, origin) in paths {
            switch read(atPath: path, limits: limits, origin: origin) {
            case .success(let read): files.append(read)
            case .failure(let failure): return .failure(failure)
            }
        }
        return .success(files)
    }

    /// The file of environment `name` for the plan file at `planPath`: `NAME.env.yaml` (or `.env.yml`) at the
    /// root of the plan's project, or in the plan's folder when it is in no project (`FileBoundary`).
    /// - Returns: the path, or RP0501 naming where it was looked for and the environments that exist there;
    ///   RP0501 too for a name that is not a plain file name (`../elsewhere/prod`, `a/b`, `a\\b`, empty).
    public static func environmentFile(named name: String, forPlan planPath: String) -> Result<String, Diagnostic> {
        if let problem = environmentNameProblem(name) {
            return .failure(
                Diagnostic(
                    .error, .invalidInput, "`\(name)` is not an environment name: \(problem)",
                    hint: "an environment is named by its file `NAME.env.yaml` at the root of the project; "
                        + "give NAME alone (`--env staging`), or read another file with --inputs-file"))
        }
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

    /// Why `name` cannot name an environment, or nil: an environment's name is the start of a file name in
    /// the project's root, so it holds no path (`/`, `\\`), is not `.` or `..` and holds no `..`, no control
    /// character (NUL, newline) and is not empty.
    public static func environmentNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.contains("/") || name.contains("\\") { return "it holds a path separator (`/` or `\\`)" }
        if name.contains("..") || name == "." { return "it holds `..` or is `.`" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "it holds a control character"
        }
        return nil
    }
}
