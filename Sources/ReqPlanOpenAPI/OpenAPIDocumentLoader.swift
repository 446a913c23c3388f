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
            var resolver = ExternalReferences(boundary: boundary, maxFileSize: maxFileSize)
            let root = try resolver.document(at: URL(fileURLWithPath: path))
            let document = try decode(root)
            return .success(try OpenAPIConversion(document: document).description())
        } catch let error as APIDescriptionLoadError {
            return .failure(error)
        } catch {
            return .failure(APIDescriptionLoadError(OpenAPI.Error(from: error).localizedDescription))
        }
    }

    /// Decodes a 3.0 document (converted to 3.1) or a 3.1 one.
    private func decode(_ root: Node) throws -> OpenAPIKit.OpenAPI.Document {
        let version = root["openapi"]?.string ?? ""
        let decoder = YAMLDecoder()
        // Decoded from text: Yams' decoder finds mapping keys such as `'200'` reliably only there.
        // Yams rather than Foundation's JSONDecoder, for JSON documents too: it keeps the order of keys
        // (paths, responses, properties), which messages and `coverage` show. Vendor extensions (`x-…`)
        // are not decoded: reqplan reads none, and OpenAPIKit finds them by decoding every object a
        // second time as `[String: AnyCodable]`.
        let userInfo: [CodingUserInfoKey: any Sendable] = [OpenAPIKit.VendorExtensionsConfiguration.enabledKey: false]
        let text = try Yams.serialize(node: root)
        if version.hasPrefix("3.0.") {
            let old = try decoder.decode(OpenAPIKit30.OpenAPI.Document.self, from: text, userInfo: userInfo)
            return old.convert(to: .v3_1_0)
        }
        guard version.hasPrefix("3.1.") || version.hasPrefix("3.2.") else {
            throw APIDescriptionLoadError(
                version.isEmpty
                    ? "not an OpenAPI document (no `openapi:` version at the top)"
                    : "OpenAPI version `\(version)` is not supported (3.0 and 3.1 are)")
        }
        return try decoder.decode(OpenAPIKit.OpenAPI.Document.self, from: text, userInfo: userInfo)
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

    init(boundary: FileBoundary, maxFileSize: Int) {
        self.boundary = boundary
        self.maxFileSize = maxFileSize
    }

    /// The document at `url` with every reference to another file turned into a reference to one of its
    /// own components.
    mutating func document(at url: URL) throws -> Node {
        rootFile = url.standardizedFileURL.path
        let root = try file(url)
        let rewritten = try rewrite(root, in: url)
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
                "`\(url.lastPathComponent)` is outside the plan's folder (pass --allow-files-outside)")
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
        guard let text = String(data: data, encoding: .utf8) else {
            throw APIDescriptionLoadError("`\(url.lastPathComponent)` is not UTF-8 text")
        }
        let node: Node
        do {
            guard let composed = try Yams.compose(yaml: text) else {
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

    private mutating func rewrite(_ node: Node, in file: URL) throws -> Node {
        switch node {
        case .mapping(let mapping):
            if let reference = mapping["$ref"]?.string {
                return try rewriteReference(reference, node: node, in: file)
            }
            var pairs: [(Node, Node)] = []
            for (key, value) in mapping { pairs.append((key, try rewrite(value, in: file))) }
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        case .sequence(let sequence):
            return .sequence(
                Node.Sequence(
                    try sequence.map { try rewrite($0, in: file) }, sequence.tag, sequence.style, sequence.mark))
        default:
            return node
        }
    }

    private mutating func rewriteReference(_ reference: String, node: Node, in file: URL) throws -> Node {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let target = String(parts[0])
        let pointer = parts.count > 1 ? String(parts[1]) : ""
        let targetFile =
            target.isEmpty ? file : URL(fileURLWithPath: target, relativeTo: file.deletingLastPathComponent())
        let targetPath = targetFile.standardizedFileURL.path
        if targetPath == rootFile {
            // A reference into the root document: keep it local.
            return Self.reference("#" + pointer, like: node)
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
