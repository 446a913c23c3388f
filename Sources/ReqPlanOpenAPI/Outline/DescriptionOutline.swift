import Foundation
import OpenAPIKit
import ReqPlanPlanner
import ReqPlanSyntax
import Synchronization
import Yams

/// A description read in outline: the root document, and the files its path items and operations are
/// in, are read for every operation's id, method and path; the operations a plan binds are read in full
/// when the checker asks for them (`details(of:)`), by bundling, decoding and converting only their paths
/// and the components those refer to (`DocumentPruning`). A plan of ten steps against a description of
/// thousands of operations then decodes ten, not thousands: the decoding by OpenAPIKit's `Codable` types
/// was most of the time (BENCHMARKS.md, "API descriptions as published").
final class DescriptionOutline: APIOperationDetails {
    /// One operation of the outline.
    struct Entry: Sendable {
        /// The path's key as written in `paths`.
        var pathKey: String
        /// The path item's key for it (`get`).
        var methodKey: String
        /// `METHOD /path`, as `APIOperation.label` (the path as OpenAPIKit normalises it).
        var label: String
    }

    private struct State {
        var files: DescriptionFiles
        /// The root document: as its file has it, or, for Swagger 2.0, bundled and converted to OpenAPI 3.
        let root: Node
        /// The root file's text (what the bundler scans for references).
        let data: Data
        /// Whether `root` is already bundled.
        let bundled: Bool
        /// Operations read in full, by the positions asked for together (their schemas are one table).
        var read: [[Int]: APIOperationsInFull] = [:]
    }

    private let url: URL
    private let entries: [Entry]
    private let state: Mutex<State>

    private init(url: URL, entries: [Entry], state: sending State) {
        self.url = url
        self.entries = entries
        self.state = Mutex(state)
    }

    /// Reads the outline of the description at `url`.
    static func read(_ url: URL, boundary: FileBoundary, maxFileSize: Int) throws -> APIDescription {
        var files = DescriptionFiles(boundary: boundary, maxFileSize: maxFileSize, root: url)
        let data = try files.data(url)
        var root = try files.node(url, data: data)
        var bundled = false
        if root["swagger"] != nil {
            // Swagger 2.0 is converted as a whole document, so it is bundled first.
            var bundler = DocumentBundler(root: url, files: files)
            root = try OpenAPIDocumentLoader.converted(bundler.bundle())
            files = bundler.files
            bundled = true
        }
        _ = try OpenAPIDocumentLoader.version(of: root)
        // What is outside `paths` and `components` (`info`, `servers`, `tags`) is decoded now, so a description
        // that is not valid there is refused even when the plan binds none of its operations; its security
        // (the schemes, which may be in other files, and the document's requirements) is read from the same
        // bundled node, as far as it is valid (`DescriptionSecurity`).
        let security = DescriptionSecurity(
            try decoded(root, keeping: [:], data: data, bundled: bundled, url: url, files: &files).node)
        var reader = OutlineReader(files: files, root: root, url: url)
        let entries = try reader.entries()
        let operations = entries.map { entry in
            var operation = APIOperation(
                id: entry.id, method: entry.entry.label.prefix { $0 != " " }.description, path: entry.path,
                parameters: [], requestBody: nil, responses: [], summary: entry.summary,
                security: security.requirements(of: entry.operation))
            operation.file = entry.file
            return operation
        }
        let title = root["info"]?["title"]?.string ?? ""
        let servers = Self.servers(root)
        let paths = reader.files.paths
        let state = State(files: reader.files, root: root, data: data, bundled: bundled)
        return APIDescription(
            title: title, operations: operations, schemas: APISchemaTable(), servers: servers,
            details: DescriptionOutline(url: url, entries: entries.map(\.entry), state: state),
            files: paths, securitySchemes: security.schemes, security: security.requirements)
    }

    /// The URLs of the document's `servers`, variables replaced by their defaults.
    private static func servers(_ root: Node) -> [String] {
        guard case .sequence(let servers)? = root["servers"] else { return [] }
        return servers.compactMap { server in
            guard var url = server["url"]?.string else { return nil }
            if case .mapping(let variables)? = server["variables"] {
                for (name, variable) in variables {
                    guard let name = name.string, let value = variable["default"]?.string else { continue }
                    url = url.replacingOccurrences(of: "{\(name)}", with: value)
                }
            }
            return url
        }
    }

    var filesRead: [String] { state.withLock { $0.files.paths } }

    func details(of indices: [Int]) -> Result<APIOperationsInFull, APIDescriptionLoadError> {
        state.withLock { state in
            if let known = state.read.first(where: { known in indices.allSatisfy { known.value.operations[$0] != nil } }
            ) {
                return .success(known.value)
            }
            do {
                let read = try self.read(indices, &state)
                state.read[indices] = read
                return .success(read)
            } catch {
                return .failure(OpenAPIDocumentLoader.loadError(error))
            }
        }
    }

    /// `root` with only the paths and methods in `keep` (none: what lies outside `paths` and `components`),
    /// bundled unless it is already, with the components they refer to, repaired and decoded; and the
    /// bundled node before repairs (what `DescriptionSecurity` reads).
    private static func decoded(
        _ root: Node, keeping keep: [String: Set<String>], data: Data, bundled: Bool, url: URL,
        files: inout DescriptionFiles
    ) throws -> (document: OpenAPIKit.OpenAPI.Document, node: Node) {
        var document = DocumentPruning.keepingPaths(root, keep)
        if !bundled {
            var bundler = DocumentBundler(root: url, files: files)
            document = try bundler.bundle((document, data))
            files = bundler.files
        }
        document = DocumentPruning.keepingReferencedComponents(document)
        return (try OpenAPIDocumentLoader().decode(OpenAPIDocumentLoader.repaired(document, files)), document)
    }

    /// Bundles, decodes and converts the paths and methods of the operations at `indices`.
    private func read(_ indices: [Int], _ state: inout State) throws -> APIOperationsInFull {
        var keep: [String: Set<String>] = [:]
        for index in indices where entries.indices.contains(index) {
            keep[entries[index].pathKey, default: []].insert(entries[index].methodKey)
        }
        let (document, node) = try Self.decoded(
            state.root, keeping: keep, data: state.data, bundled: state.bundled, url: url, files: &state.files)
        let description = try OpenAPIConversion(document: document, security: DescriptionSecurity(node)).description()
        var byLabel: [String: APIOperation] = [:]
        for operation in description.operations where byLabel[operation.label] == nil {
            byLabel[operation.label] = operation
        }
        var operations: [Int: APIOperation] = [:]
        for index in indices {
            guard entries.indices.contains(index), let operation = byLabel[entries[index].label] else {
                throw APIDescriptionLoadError(
                    "operation \(entries.indices.contains(index) ? "`\(entries[index].label)` " : "")was not found "
                        + "when its path was read in full")
            }
            operations[index] = operation
        }
        return APIOperationsInFull(operations: operations, schemas: description.schemas)
    }
}

/// Finds every operation of a document: its path items and operations, following references to other
/// files and to places in the document, read only as far as each operation's `operationId`.
private struct OutlineReader {
    private(set) var files: DescriptionFiles
    let root: Node
    let url: URL

    /// Each operation, in the order OpenAPIKit's conversion gives them (paths in document order, a path
    /// item's methods in `DocumentPruning.methods` order, then its `additionalOperations`).
    mutating func entries() throws -> [(
        entry: DescriptionOutline.Entry, id: String?, path: String, summary: String?, file: String, operation: Node
    )] {
        guard case .mapping(let paths)? = root["paths"] else { return [] }
        var entries:
            [(
                entry: DescriptionOutline.Entry, id: String?, path: String, summary: String?, file: String,
                operation: Node
            )] =
                []
        for (key, value) in paths {
            guard let pathKey = key.string else { continue }
            let path = OpenAPI.Path(rawValue: pathKey).rawValue
            let (item, itemFile) = try resolved(value, in: url)
            guard case .mapping(let mapping) = item else { continue }
            var byMethod: [String: Node] = [:]
            for (key, value) in mapping {
                if let name = key.string, DocumentPruning.methods.contains(name) { byMethod[name] = value }
            }
            for method in DocumentPruning.methods {
                guard let node = byMethod[method] else { continue }
                let (operation, operationFile) = try resolved(node, in: itemFile)
                let label = method.uppercased() + " " + path
                entries.append(
                    (
                        .init(pathKey: pathKey, methodKey: method, label: label), operation["operationId"]?.string,
                        path, operation["summary"]?.string, operationFile.standardizedFileURL.path, operation
                    ))
            }
            if case .mapping(let additional)? = mapping.first(where: { $0.key.string == "additionalOperations" })?.value
            {
                for (key, node) in additional {
                    guard let method = key.string else { continue }
                    let (operation, operationFile) = try resolved(node, in: itemFile)
                    let label = method.uppercased() + " " + path
                    entries.append(
                        (
                            .init(pathKey: pathKey, methodKey: method, label: label), operation["operationId"]?.string,
                            path, operation["summary"]?.string, operationFile.standardizedFileURL.path, operation
                        ))
                }
            }
        }
        return entries
    }

    /// `node` with the references it is followed (a few in a row at most), and the file it is in.
    private mutating func resolved(_ node: Node, in file: URL) throws -> (Node, URL) {
        var current = node
        var file = file
        var hops = 0
        while let reference = current.referenceValue {
            guard hops < 64 else {
                throw APIDescriptionLoadError("reference `\(reference)` leads to more than 64 references in a row")
            }
            let target = try ReferenceTarget(reference, in: file)
            let document =
                target.file.standardizedFileURL.path == url.standardizedFileURL.path
                ? root : try files.node(target.file)
            current = try target.resolve(in: document, reference: reference, name: files.display(target.file.path))
            file = target.file
            hops += 1
        }
        return (current, file)
    }
}
