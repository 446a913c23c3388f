import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import ReqPlanPlanner
import ReqPlanSyntax
import Yams

/// Reads OpenAPI 3.0 and 3.1 documents and Swagger 2.0 ones, YAML or JSON, into the planner's
/// `APIDescription`, with OpenAPIKit: a 3.0 document is converted to 3.1 by OpenAPIKitCompat, a Swagger 2.0
/// one to 3.0 first (`Swagger2Conversion`). A description split over several files is bundled into one
/// document first (`DocumentBundler`), so every reference resolves by name in its components.
public struct OpenAPIDocumentLoader: APIDescriptionLoader {
    /// The largest document (and referenced file) read, in bytes.
    public var maxFileSize: Int
    /// Whether `load` reads what plans written from the description need and checks do not: examples,
    /// `format`, `tags` and `links` (`reqplan import openapi`). Off, descriptions load as fast as before.
    public var readsSamples: Bool

    /// Creates a loader.
    /// - Parameters:
    ///   - maxFileSize: the largest file read (default 64 MiB).
    ///   - readsSamples: whether to read examples, `format`, `tags` and `links` too.
    public init(maxFileSize: Int = 64 << 20, readsSamples: Bool = false) {
        self.maxFileSize = maxFileSize
        self.readsSamples = readsSamples
    }

    /// Reads the document at `path`.
    public func load(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError> {
        do {
            let (document, files, security) = try documentAndFiles(fileAt: path, boundary: boundary)
            var description = try OpenAPIConversion(document: document, security: security, samples: readsSamples)
                .description()
            description.files = files
            return .success(description)
        } catch {
            return .failure(Self.loadError(error))
        }
    }

    /// The document at `path` as OpenAPIKit's 3.1 document, its references to other files brought in.
    func document(
        fileAt path: String, boundary: FileBoundary, decoding: Decoding = .indexed
    ) throws -> OpenAPIKit.OpenAPI.Document {
        try documentAndFiles(fileAt: path, boundary: boundary, decoding: decoding).document
    }

    /// The document at `path`, as `document(fileAt:)` gives it, the files read for it (absolute paths), and
    /// its security (which OpenAPIKit does not decode).
    func documentAndFiles(
        fileAt path: String, boundary: FileBoundary, decoding: Decoding = .indexed
    ) throws -> (document: OpenAPIKit.OpenAPI.Document, files: [String], security: DescriptionSecurity) {
        var bundler = DocumentBundler(
            root: URL(fileURLWithPath: path), boundary: boundary, maxFileSize: maxFileSize)
        let root = try Self.converted(bundler.bundle())
        return (
            try decode(Self.repaired(root, bundler.files), decoder: decoding), bundler.files.paths,
            DescriptionSecurity(root)
        )
    }

    /// A bundled document in OpenAPI 3: Swagger 2.0 converted, any other version left as it is.
    static func converted(_ root: Node) throws -> Node {
        guard let swagger = root["swagger"]?.string else { return root }
        guard swagger.hasPrefix("2.") else {
            throw APIDescriptionLoadError("Swagger version `\(swagger)` is not supported (2.0 is)")
        }
        return try Swagger2Conversion(root).converted()
    }

    /// A bundled OpenAPI 3 document with what OpenAPIKit would refuse or misread mended, as far as the
    /// files read (`files`) may need it: schemas repaired, type lists expanded, `unevaluatedProperties` read;
    /// and without its security, which `DescriptionSecurity` reads instead (OpenAPIKit refuses the whole
    /// document for one bad entry there).
    static func repaired(_ document: Node, _ files: DescriptionFiles) -> Node {
        var root = DescriptionSecurity.removed(from: document)
        if files.mayNeedRepairs,
            let repaired = SchemaRepairs.repaired(root, openAPI31: root["openapi"]?.string?.hasPrefix("3.0") == false)
        {
            root = repaired
        }
        if files.mayHaveTypeLists, let expanded = SchemaTypeLists.expanded(root) { root = expanded }
        if files.mayHaveUnevaluatedProperties, let closed = UnevaluatedProperties.closed(root) { root = closed }
        return root
    }

    /// What a diagnostic says about a document that did not load.
    static func loadError(_ error: any Error) -> APIDescriptionLoadError {
        if let error = error as? APIDescriptionLoadError { return error }
        return APIDescriptionLoadError(OpenAPI.Error(from: error).localizedDescription)
    }

    /// Decodes a 3.0 document (converted to 3.1) or a 3.1 one.
    func decode(_ root: Node, decoder: Decoding = .indexed) throws -> OpenAPIKit.OpenAPI.Document {
        if try Self.version(of: root) == .v3_0 {
            return try decoder.decode(
                OpenAPIKit30.OpenAPI.Document.self, from: root, paths: OpenAPIKit30.OpenAPI.PathItem.Map.self
            ) {
                $0.paths = $1
            }.convert(to: .v3_1_0)
        }
        return try decoder.decode(
            OpenAPIKit.OpenAPI.Document.self, from: root, paths: OpenAPIKit.OpenAPI.PathItem.Map.self
        ) {
            $0.paths = $1
        }
    }

    /// The versions of OpenAPI read.
    enum Version {
        case v3_0, v3_1
    }

    /// The version of an OpenAPI 3 document (3.2 is read as 3.1).
    /// - Throws: for a document with another version or none.
    static func version(of root: Node) throws -> Version {
        let version = root["openapi"]?.string ?? ""
        if version.hasPrefix("3.0.") { return .v3_0 }
        guard version.hasPrefix("3.1.") || version.hasPrefix("3.2.") else {
            throw APIDescriptionLoadError(
                version.isEmpty
                    ? "not an OpenAPI document (no `openapi:` version at the top)"
                    : "OpenAPI version `\(version)` is not supported (3.0 and 3.1 are)")
        }
        return .v3_1
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

extension OpenAPIDocumentLoader {
    /// Reads the document at `path` in outline (`DescriptionOutline`): the operations a plan binds are read
    /// in full when the checker asks for them.
    public func outline(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError>
    {
        do {
            return .success(
                try DescriptionOutline.read(URL(fileURLWithPath: path), boundary: boundary, maxFileSize: maxFileSize))
        } catch {
            return .failure(Self.loadError(error))
        }
    }
}
