import Foundation
import OpenAPIKit
import ReqPlanSyntax
import Testing

@testable import ReqPlanOpenAPI

/// `NodeDecoder` (reqplan's indexed decoder, used for speed) against Yams' `YAMLDecoder` (the library
/// path): every OpenAPI document in the tests, and documents written to fail, give the same document —
/// keys in the same order — or the same error message through both.
@Suite("NodeDecoder decodes OpenAPI documents exactly as Yams' decoder does")
struct NodeDecoderTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every OpenAPI document under `Tests/Fixtures/openapi` and `plans/_openapi`, but the third-party
    /// descriptions of `real/` (megabytes each, through Yams' decoder: minutes; `RealDescriptionTests`
    /// loads them).
    static let documents: [String] = {
        var found: [String] = []
        for folder in ["Tests/Fixtures/openapi", "plans/_openapi"] {
            let root = repository.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(atPath: root.path)
            while let name = enumerator?.nextObject() as? String {
                guard name.hasSuffix(".yaml") || name.hasSuffix(".json"), !name.hasPrefix("real/") else { continue }
                let path = root.appendingPathComponent(name).path
                guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                    text.contains("openapi") || text.contains("swagger")
                else { continue }
                found.append("\(folder)/\(name)")
            }
        }
        return found.sorted()
    }()

    /// A decoded document or the load error's message. OpenAPIKit's `==` compares ordered dictionaries
    /// key order included.
    enum Outcome: Equatable {
        case document(OpenAPI.Document)
        case failure(String)
    }

    /// The document (or the load error's message) through each decoder.
    static func bothWays(_ path: String) -> (indexed: Outcome, yams: Outcome) {
        func decode(_ decoding: OpenAPIDocumentLoader.Decoding) -> Outcome {
            do {
                let document = try OpenAPIDocumentLoader().document(
                    fileAt: path, boundary: FileBoundary(planFile: path, allowOutside: true), decoding: decoding)
                return .document(document)
            } catch {
                return .failure(OpenAPIDocumentLoader.loadError(error).message)
            }
        }
        return (decode(.indexed), decode(.yams))
    }

    /// The first line where the two outcomes' dumps differ (a hint: dumps of dictionaries may differ in
    /// order where the values are equal).
    static func difference(_ indexed: Outcome, _ yams: Outcome) -> String {
        var left = ""
        var right = ""
        dump(indexed, to: &left)
        dump(yams, to: &right)
        let pairs = zip(left.split(separator: "\n"), right.split(separator: "\n"))
        guard let (a, b) = pairs.first(where: { $0 != $1 }) else { return "(dumps equal)" }
        return "indexed: \(a.prefix(400))\nyams:    \(b.prefix(400))"
    }

    @Test("there are documents to compare")
    func documentsAreFound() {
        #expect(Self.documents.count >= 8, "\(Self.documents)")
    }

    @Test("each test document decodes to the same document", arguments: documents)
    func sameDocument(_ relativePath: String) {
        let path = Self.repository.appendingPathComponent(relativePath).path
        let (indexed, yams) = Self.bothWays(path)
        #expect(indexed == yams, "\(relativePath) decodes differently: \(Self.difference(indexed, yams))")
    }

    /// Documents that fail to decode, or use what `NodeDecoder` leaves to Yams.
    static let written: [(name: String, text: String)] = [
        ("fails-paths-a-list", "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: [a, b]\n"),
        ("fails-no-info", "openapi: 3.0.3\npaths: {}\n"),
        (
            "status-codes-and-scalars",
            """
            openapi: 3.0.3
            info: {title: t, version: "1"}
            paths:
              /things/{id}:
                parameters:
                  - {name: id, in: path, required: true, schema: {type: integer, minimum: 1, maximum: 1e3}}
                get:
                  deprecated: yes
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: object
                            nullable: true
                            properties:
                              flag: {type: boolean, default: off, enum: [true, false, 'true', null, ~]}
                              when: {type: string, format: date-time, example: 2024-01-01T00:00:00Z}
                              n: {type: number, multipleOf: 0.5, example: .inf}
                    404: {description: missing}
                    default: {description: other}
            """
        ),
        (
            "fails-wrong-type-deep",
            """
            openapi: 3.1.0
            info: {title: t, version: "1"}
            paths:
              /a:
                get:
                  parameters:
                    - {name: q, in: query, required: maybe, schema: {type: string}}
                  responses: {'200': {description: ok}}
            """
        ),
        (
            "anchors-and-merge-keys",
            """
            openapi: 3.1.0
            info: {title: t, version: "1"}
            paths:
              /a:
                get:
                  responses:
                    '200': &ok
                      description: ok
                      content: {application/json: {schema: {type: object, properties: {x: {type: string}}}}}
              /b:
                get:
                  responses:
                    '200': *ok
                    '201':
                      <<: *ok
                      description: created
            """
        ),
    ]

    @Test("documents written to fail or to use aliases give the same result", arguments: written.map(\.name))
    func writtenDocuments(_ name: String) throws {
        let text = try #require(Self.written.first { $0.name == name }).text
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nodedecoder-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("\(name).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let (indexed, yams) = Self.bothWays(file.path)
        #expect(indexed == yams, "\(name) decodes differently: \(Self.difference(indexed, yams))")
        if case .document = yams, name.hasPrefix("fails-") {
            Issue.record("\(name) loads; it was written to fail")
        }
        if case .failure(let message) = yams, !name.hasPrefix("fails-") {
            Issue.record("\(name) does not load: \(message)")
        }
    }
}

/// `SchemaTypeLists`: 3.1 `type` lists read as `anyOf`, and the text scan that skips the walk.
@Suite("Schemas that list several types")
struct SchemaTypeListTests {
    @Test(
        "the scan finds every way a type list is written, and lets plain documents skip the walk",
        arguments: [
            ("type: [string, integer]", true), ("\"type\": [\"string\", \"null\"]", true),
            ("type:\n  - string\n  - integer", true), ("{type: [a, b]}", true), ("'type' : [a]", true),
            ("type: string", false), ("\"type\":\"object\"", false), ("subtype: [a, b]", false),
            ("description: the type of it", false), ("", false),
        ])
    func scan(text: String, mayHaveLists: Bool) {
        #expect(SchemaTypeLists.mayHaveTypeLists(Data(text.utf8)) == mayHaveLists, "\(text)")
    }
}

/// The scan that lets a document whose references all name its own components skip the bundling walk.
@Suite("References to other files, found in the text")
struct ReferenceScanTests {
    @Test(
        "only references written as quoted `#/components/…` values are known to stay in the document",
        arguments: [
            ("$ref: '#/components/schemas/A'", false), ("\"$ref\": \"#/a\"", true),
            ("{$ref: \"#/components/schemas/a\"}", false),
            ("$ref: common.yaml#/A", true), ("\"$ref\": \"common.json\"", true), ("$ref: #/a", true),
            ("description: use $ref to share", true), ("no references", false),
        ])
    func scan(text: String, mayReferOut: Bool) {
        #expect(DocumentBundler.mayNeedBundling(Data(text.utf8)) == mayReferOut, "\(text)")
    }
}
