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

    /// `path` as messages show it: relative to the root document's folder when inside it.
    func display(_ path: String) -> String {
        path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
    }

    /// The raw bytes of a file, checked against the boundary and the size limit.
    func data(_ url: URL) throws -> Data {
        let standard = url.standardizedFileURL
        guard boundary.permits(standard) else {
            throw APIDescriptionLoadError(
                "`\(display(standard.path))` is outside the plan's folder (\(boundary.outsideHint))")
        }
        let data: Data
        do {
            data = try Data(contentsOf: standard)
        } catch {
            throw APIDescriptionLoadError(
                "`\(display(standard.path))` cannot be read: \((error as NSError).localizedDescription)")
        }
        guard data.count <= maxFileSize else {
            throw APIDescriptionLoadError("`\(display(standard.path))` is larger than \(maxFileSize >> 20) MiB")
        }
        return data
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
            do {
                // The basic resolver: plain scalars keep their text, which the decoders construct from (Yams'
                // own decoder does the same); the default one resolves each by regular expression, which took
                // 0.8 ms of a small document's 1.4 ms here.
                guard let composed = try Yams.compose(yaml: text, .basic) else {
                    throw APIDescriptionLoadError("`\(display(path))` is empty")
                }
                node = composed
            } catch let error as APIDescriptionLoadError {
                throw error
            } catch let error as YamlError {
                throw APIDescriptionLoadError("`\(display(path))` is not YAML or JSON: \(error)")
            }
        } else {
            node = Node(text, Tag(.str), .literal)
        }
        parsed[path] = node
        return node
    }

    /// Whether a file is read as YAML or JSON (by its extension; one without an extension is too).
    static func isStructured(_ url: URL) -> Bool {
        ["yaml", "yml", "json", ""].contains(url.pathExtension.lowercased())
    }
}
