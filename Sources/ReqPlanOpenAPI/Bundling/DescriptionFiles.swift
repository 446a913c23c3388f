import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Yams

/// The files of one description, each read and parsed once: the root document and every file its
/// references name, inside the plan's file boundary and under a size limit.
struct DescriptionFiles {
    let boundary: FileBoundary
    let maxFileSize: Int
    /// The folder of the root document, for naming files in messages.
    let folder: String
    /// Parsed files by absolute path.
    private var parsed: [String: Node] = [:]
    /// Whether a file read may list several types in a schema (`SchemaTypeLists.mayHaveTypeLists`).
    private(set) var mayHaveTypeLists = false
    /// Whether a file read may close a schema with `unevaluatedProperties` (`UnevaluatedProperties`).
    private(set) var mayHaveUnevaluatedProperties = false
    /// Whether a file read may need `SchemaRepairs`.
    private(set) var mayNeedRepairs = false

    init(boundary: FileBoundary, maxFileSize: Int, root: URL) {
        self.boundary = boundary
        self.maxFileSize = maxFileSize
        self.folder = root.standardizedFileURL.deletingLastPathComponent().path
    }

    /// The files read so far (absolute paths).
    var paths: [String] { parsed.keys.sorted() }

    /// `path` as messages show it: relative to the root document's folder when inside it.
    func display(_ path: String) -> String {
        path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
    }

    /// The raw bytes of a file, read by `FileReader` as a file an input named: a regular file inside the
    /// boundary once its symbolic links are resolved, under the size limit.
    func data(_ url: URL) throws -> Data {
        let standard = url.standardizedFileURL
        switch FileReader.data(
            atPath: standard.path, origin: .input(boundary), limit: maxFileSize, what: "`\(display(standard.path))`",
            shownAs: display(standard.path))
        {
        case .success(let data): return data
        case .failure(let failure):
            switch failure.kind {
            case .outside:
                throw APIDescriptionLoadError(failure.text + " (" + boundary.outsideHint + ")")
            case .tooLarge:
                throw APIDescriptionLoadError("`\(display(standard.path))` is larger than \(maxFileSize >> 20) MiB")
            default:
                throw APIDescriptionLoadError(failure.text)
            }
        }
    }

    /// The parsed file at `url`. A file that is not YAML or JSON by its extension (`description.md`) is one
    /// string, its text, as Redocly's bundler reads it.
    mutating func node(_ url: URL, data given: Data? = nil) throws -> Node {
        let path = url.standardizedFileURL.path
        if let cached = parsed[path] { return cached }
        let data = try given ?? self.data(url)
        guard let text = String(data: data, encoding: .utf8) else {
            throw APIDescriptionLoadError("`\(display(path))` is not UTF-8 text")
        }
        let node: Node
        if Self.isStructured(url) {
            if !mayHaveTypeLists { mayHaveTypeLists = SchemaTypeLists.mayHaveTypeLists(data) }
            if !mayNeedRepairs { mayNeedRepairs = SchemaRepairs.mayNeedRepairs(data) }
            if !mayHaveUnevaluatedProperties {
                mayHaveUnevaluatedProperties = UnevaluatedProperties.mayHave(data)
            }
            // Read as every YAML or JSON file reqplan reads (`DataDocument`): composed with the basic resolver
            // (plain scalars keep their text, which the decoders construct from), then bounded in aliases and
            // depth before anything walks it. A description holds many more nodes than a plan, so its node
            // budget grows with its size: an alias bomb still cannot expand past a few nodes per byte.
            let limits = ParseLimits(maxFileSize: maxFileSize, maxNodes: max(1_000_000, 4 * data.count))
            if let composed = JSONHalves.compose(Array(data), path: path, what: "API description", limits: limits) {
                parsed[path] = composed
                return composed
            }
            switch DataDocument.parse(SourceFile(path: path, text: text), what: "API description", limits: limits) {
            case .failure(let failure):
                throw APIDescriptionLoadError(Self.message(failure.diagnostic, file: display(path)))
            case .success(let document):
                if let problem = document.checkBounds() {
                    throw APIDescriptionLoadError(Self.message(problem, file: display(path)))
                }
                guard let root = document.root else { throw APIDescriptionLoadError("`\(display(path))` is empty") }
                node = root
            }
        } else {
            node = Node(text, Tag(.str), .literal)
        }
        parsed[path] = node
        return node
    }

    /// A diagnostic about `file` in one line, with where it points.
    private static func message(_ diagnostic: Diagnostic, file: String) -> String {
        let location = diagnostic.range.map { " (line \($0.start.line), column \($0.start.column))" } ?? ""
        return "`\(file)`\(location): \(diagnostic.message)"
    }

    /// Whether a file is read as YAML or JSON (by its extension; one without an extension is too).
    static func isStructured(_ url: URL) -> Bool {
        ["yaml", "yml", "json", ""].contains(url.pathExtension.lowercased())
    }
}
