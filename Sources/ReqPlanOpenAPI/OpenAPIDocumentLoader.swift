import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import ReqPlanPlanner
import ReqPlanSyntax
import Yams

/// Reads OpenAPI 3.0 and 3.1 documents, YAML or JSON, into the planner's `APIDescription`, with
/// OpenAPIKit: a 3.0 document is converted to 3.1 by OpenAPIKitCompat. References within the document are
/// followed by name; references to other local files (`common.yaml#/components/schemas/Error`) are
/// brought into the document's components first, so they resolve the same way.
public struct OpenAPIDocumentLoader: APIDescriptionLoader {
    /// The largest document (and referenced file) read, in bytes.
    public var maxFileSize: Int

    /// Creates a loader.
    /// - Parameter maxFileSize: the largest file read (default 64 MiB).
    public init(maxFileSize: Int = 64 << 20) {
        self.maxFileSize = maxFileSize
    }

    /// Reads the document at `path`.
    public func load(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError> {
        do {
            return .success(try OpenAPIConversion(document: document(fileAt: path, boundary: boundary)).description())
        } catch {
            return .failure(Self.loadError(error))
        }
    }

    /// The document at `path` as OpenAPIKit's 3.1 document, its references to other files brought in.
    func document(
        fileAt path: String, boundary: FileBoundary, decoding: Decoding = .indexed
    ) throws -> OpenAPIKit.OpenAPI.Document {
        var resolver = ExternalReferences(boundary: boundary, maxFileSize: maxFileSize)
        var root = try resolver.document(at: URL(fileURLWithPath: path))
        if resolver.mayHaveTypeLists, let expanded = SchemaTypeLists.expanded(root) { root = expanded }
        return try decode(root, decoder: decoding)
    }

    /// What a diagnostic says about a document that did not load.
    static func loadError(_ error: any Error) -> APIDescriptionLoadError {
        if let error = error as? APIDescriptionLoadError { return error }
        return APIDescriptionLoadError(OpenAPI.Error(from: error).localizedDescription)
    }

    /// Decodes a 3.0 document (converted to 3.1) or a 3.1 one.
    func decode(_ root: Node, decoder: Decoding = .indexed) throws -> OpenAPIKit.OpenAPI.Document {
        let version = root["openapi"]?.string ?? ""
        if version.hasPrefix("3.0.") {
            return try decoder.decode(
                OpenAPIKit30.OpenAPI.Document.self, from: root, paths: OpenAPIKit30.OpenAPI.PathItem.Map.self
            ) {
                $0.paths = $1
            }.convert(to: .v3_1_0)
        }
        guard version.hasPrefix("3.1.") || version.hasPrefix("3.2.") else {
            throw APIDescriptionLoadError(
                version.isEmpty
                    ? "not an OpenAPI document (no `openapi:` version at the top)"
                    : "OpenAPI version `\(version)` is not supported (3.0 and 3.1 are)")
        }
        return try decoder.decode(
            OpenAPIKit.OpenAPI.Document.self, from: root, paths: OpenAPIKit.OpenAPI.PathItem.Map.self
        ) {
            $0.paths = $1
        }
    }

    /// How the composed document becomes OpenAPIKit's types (through `Codable`).
    ///
    /// Both keep the order of keys (paths, responses, properties), which messages and `coverage` show;
    /// Foundation's `JSONDecoder` would not, even for JSON documents. Vendor extensions (`x-…`) are not
    /// decoded: reqplan reads none, and OpenAPIKit finds them by decoding every object a second time as
    /// `[String: AnyCodable]`.
    enum Decoding {
        /// `NodeDecoder` over the node already read (Yams' decoder where it declines: aliases, merge keys).
        case indexed
        /// Yams' `YAMLDecoder` over the node written out as text and read again (the library path, kept
        /// for what `NodeDecoder` declines and as the reference `NodeDecoderTests` compares against).
        case yams

        /// Decodes a document; `NodeDecoder` decodes its `paths` beside the rest, `join` puts them in.
        func decode<T: Decodable & Sendable, Paths: Decodable & Sendable>(
            _ type: T.Type, from root: Node, paths: Paths.Type, join: (inout T, Paths) -> Void
        ) throws -> T {
            let userInfo: [CodingUserInfoKey: any Sendable] = [
                OpenAPIKit.VendorExtensionsConfiguration.enabledKey: false
            ]
            if self == .indexed, let decoder = NodeDecoder(root) {
                return try decoder.decode(type, section: "paths", as: paths, userInfo: userInfo, join: join)
            }
            // From text: Yams' decoder finds mapping keys such as `'200'` reliably only there.
            return try YAMLDecoder().decode(type, from: try Yams.serialize(node: root), userInfo: userInfo)
        }
    }
}

/// Brings the targets of references to other files into the root document's components.
struct ExternalReferences {
    let boundary: FileBoundary
    let maxFileSize: Int
    /// Parsed files by absolute path.
    private var files: [String: Node] = [:]
    /// `file#pointer` → the component it became: (kind, name).
    private var imported: [String: (kind: String, name: String)] = [:]
    /// Components brought in, by kind, in order.
    private var added: [String: [(String, Node)]] = [:]
    private var rootFile = ""
    /// False when the root file's text shows that it refers to no other file (see `mayReferToOtherFiles`).
    private var rootMayReferToOtherFiles = true
    /// Whether a file read may list several types in a schema (`SchemaTypeLists.mayHaveTypeLists`).
    private(set) var mayHaveTypeLists = false

    init(boundary: FileBoundary, maxFileSize: Int) {
        self.boundary = boundary
        self.maxFileSize = maxFileSize
    }

    /// The document at `url` with every reference to another file turned into a reference to one of its
    /// own components.
    mutating func document(at url: URL) throws -> Node {
        rootFile = url.standardizedFileURL.path
        let root = try file(url)
        let rewritten = rootMayReferToOtherFiles ? try rewrite(root, in: url) : root
        guard !added.isEmpty, case .mapping(var mapping) = rewritten else { return rewritten }
        var components: Node.Mapping
        if case .mapping(let existing)? = mapping["components"] { components = existing } else { components = [:] }
        for (kind, entries) in added.sorted(by: { $0.key < $1.key }) {
            var section: Node.Mapping
            if case .mapping(let existing)? = components[kind] { section = existing } else { section = [:] }
            for (name, node) in entries { section[name] = node }
            components[kind] = .mapping(section)
        }
        mapping["components"] = .mapping(components)
        return .mapping(mapping)
    }

    private mutating func file(_ url: URL) throws -> Node {
        let path = url.standardizedFileURL.path
        if let cached = files[path] { return cached }
        guard boundary.permits(url.standardizedFileURL) else {
            throw APIDescriptionLoadError(
                "`\(url.lastPathComponent)` is outside the plan's folder (\(boundary.outsideHint))")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw APIDescriptionLoadError(
                "`\(url.lastPathComponent)` cannot be read: \((error as NSError).localizedDescription)")
        }
        guard data.count <= maxFileSize else {
            throw APIDescriptionLoadError("`\(url.lastPathComponent)` is larger than \(maxFileSize >> 20) MiB")
        }
        if path == rootFile { rootMayReferToOtherFiles = Self.mayReferToOtherFiles(data) }
        if !mayHaveTypeLists { mayHaveTypeLists = SchemaTypeLists.mayHaveTypeLists(data) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw APIDescriptionLoadError("`\(url.lastPathComponent)` is not UTF-8 text")
        }
        let node: Node
        do {
            // The basic resolver: plain scalars keep their text, which the decoders construct from (Yams'
            // own decoder does the same); the default one resolves each by regular expression, which took
            // 0.8 ms of a small document's 1.4 ms here.
            guard let composed = try Yams.compose(yaml: text, .basic) else {
                throw APIDescriptionLoadError("`\(url.lastPathComponent)` is empty")
            }
            node = composed
        } catch let error as APIDescriptionLoadError {
            throw error
        } catch let error as YamlError {
            throw APIDescriptionLoadError("`\(url.lastPathComponent)` is not YAML or JSON: \(error)")
        }
        files[path] = node
        return node
    }

    /// False if every `$ref` in the text is followed by a quoted value that starts with `#` (a reference
    /// within the document), written as JSON and YAML usually write it: `"$ref": "#/…"`, `$ref: '#/…'`.
    /// True for anything else, which `rewrite` then reads properly. Reading 5 MB of text this way takes a
    /// few milliseconds; walking its nodes, about 80 (BENCHMARKS.md, "OpenAPI").
    static func mayReferToOtherFiles(_ data: Data) -> Bool {
        KeyScan.any("$ref", in: data) { occurrence, bytes in
            guard case .key(let value) = occurrence else { return true }
            return !(value + 1 < bytes.count && KeyScan.isQuote(bytes[value]) && bytes[value + 1] == UInt8(ascii: "#"))
        }
    }

    private mutating func rewrite(_ node: Node, in file: URL) throws -> Node {
        try rewritten(node, in: file) ?? node
    }

    /// `node` with its references to other files rewritten, or nil if it has none (most documents have
    /// none: nothing is copied then).
    private mutating func rewritten(_ node: Node, in file: URL) throws -> Node? {
        // Keys compared as text: `Node.Mapping`'s subscript resolves each key's tag on the way.
        if case .mapping(let mapping) = node,
            let reference = mapping.first(where: { $0.key.string == "$ref" })?.value.string
        {
            return try rewriteReference(reference, node: node, in: file)
        }
        return try node.replacingChildren { try rewritten($0, in: file) }
    }

    /// The reference rewritten to point into the root document, or nil if it already does.
    private mutating func rewriteReference(_ reference: String, node: Node, in file: URL) throws -> Node? {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let target = String(parts[0])
        let pointer = parts.count > 1 ? String(parts[1]) : ""
        let targetFile =
            target.isEmpty ? file : URL(fileURLWithPath: target, relativeTo: file.deletingLastPathComponent())
        let targetPath = targetFile.standardizedFileURL.path
        if targetPath == rootFile {
            // A reference into the root document: keep it local.
            return reference == "#" + pointer ? nil : Self.reference("#" + pointer, like: node)
        }
        guard !target.contains("://") else {
            throw APIDescriptionLoadError("reference `\(reference)` names a remote document; only local files are read")
        }
        let key = targetPath + "#" + pointer
        if let known = imported[key] {
            return Self.reference("#/components/\(known.kind)/\(known.name)", like: node)
        }
        let tokens = pointer.split(separator: "/").map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        let kind = tokens.count == 3 && tokens[0] == "components" ? tokens[1] : "schemas"
        let stem = targetFile.deletingPathExtension().lastPathComponent
        var name = Self.componentName(stem + "_" + (tokens.last ?? stem))
        while added[kind, default: []].contains(where: { $0.0 == name }) { name += "_" }
        imported[key] = (kind, name)
        var resolved = try self.file(targetFile)
        for token in tokens {
            switch resolved {
            case .mapping(let mapping):
                guard let next = mapping[token] else {
                    throw APIDescriptionLoadError(
                        "reference `\(reference)`: `\(token)` not found in `\(targetFile.lastPathComponent)`")
                }
                resolved = next
            case .sequence(let sequence):
                guard let index = Int(token), sequence.indices.contains(index) else {
                    throw APIDescriptionLoadError(
                        "reference `\(reference)`: `\(token)` not found in `\(targetFile.lastPathComponent)`")
                }
                resolved = sequence[index]
            default:
                throw APIDescriptionLoadError(
                    "reference `\(reference)`: `\(token)` not found in `\(targetFile.lastPathComponent)`")
            }
        }
        added[kind, default: []].append((name, Node("")))
        let body = try rewrite(resolved, in: targetFile)
        if let index = added[kind]?.firstIndex(where: { $0.0 == name }) { added[kind]?[index].1 = body }
        return Self.reference("#/components/\(kind)/\(name)", like: node)
    }

    private static func reference(_ target: String, like node: Node) -> Node {
        guard case .mapping(let mapping) = node else { return node }
        var pairs: [(Node, Node)] = []
        for (key, value) in mapping {
            pairs.append((key, key.string == "$ref" ? Node(target) : value))
        }
        return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
    }

    /// Component names are `^[a-zA-Z0-9._-]+$`.
    private static func componentName(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    }
}
