import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanOpenAPI

/// A description read in outline (`DescriptionOutline`) must list the operations the whole document
/// lists, in the same order, and read each one in full exactly as the whole document has it: the checker
/// sees only the outline and the operations a plan binds.
@Suite("Descriptions read in outline")
struct DescriptionOutlineTests {
    static let documents = [
        "real/lob/lob-api-public.yml", "real/redmine/openapi.yaml", "real/slack/slack_web_openapi_v2.json",
        "real/netlify/swagger.yml", "real/box/openapi.json", "real/asana/asana_oas.yaml",
        "real/discord/openapi.json", "real/openai/openapi.yaml", "real/mistral/openapi.yaml",
        "multi-file/openapi.yaml", "swagger-2.yaml", "swagger-20-forms.yaml", "petstore-31.yaml", "type-lists-31.yaml",
        "templates-30.yaml", "fields-31.yaml", "swagger-petstore/openapi.yaml",
    ]

    @Test(
        "the outline lists every operation as the whole document does, and reads each in full as it does",
        arguments: documents)
    func outlineAgreesWithTheWholeDocument(_ document: String) async throws {
        let path = OpenAPIFixtures.folder.appendingPathComponent(document).path
        // Decoding a whole large description takes seconds in a debug build: it is done off the cooperative
        // threads, which the in-process servers of other tests answer on.
        let read = try await offCooperativePool { try Self.read(path) }
        let (whole, outline) = (read.whole, read.outline)
        #expect(outline.operations.map(\.label) == whole.operations.map(\.label))
        #expect(outline.operations.map(\.id) == whole.operations.map(\.id))
        #expect(outline.title == whole.title)
        #expect(outline.servers == whole.servers)
        #expect(outline.securitySchemes == whole.securitySchemes)
        #expect(outline.security == whole.security)
        #expect(outline.operations.map(\.security) == whole.operations.map(\.security))
        #expect(outline.details != nil)
        for (index, operation) in whole.operations.enumerated() {
            let expected = Self.digest(operation, whole.schemas)
            if read.together.contains(index) {
                #expect(
                    read.all?.operations[index].map { Self.digest($0, read.all?.schemas ?? .init()) } == expected,
                    "\(operation.label)")
            }
            if let alone = read.alone[index] {
                #expect(
                    alone.operations[index].map { Self.digest($0, alone.schemas) } == expected,
                    "\(operation.label) alone")
            }
        }
    }

    /// A description read whole and in outline, and operations of the outline read in full.
    struct Read: Sendable {
        var whole: APIDescription
        var outline: APIDescription
        /// The operations read together, and what they read as.
        var together: [Int]
        var all: APIOperationsInFull?
        /// A few read alone (each then bundled and decoded with only what it refers to).
        var alone: [Int: APIOperationsInFull]
    }

    static func read(_ path: String) throws -> Read {
        let boundary = FileBoundary(root: OpenAPIFixtures.folder)
        let whole = try OpenAPIDocumentLoader().load(fileAt: path, boundary: boundary).get()
        let outline = try OpenAPIDocumentLoader().outline(fileAt: path, boundary: boundary).get()
        var read = Read(whole: whole, outline: outline, together: [], all: nil, alone: [:])
        guard let details = outline.details else { return read }
        let count = whole.operations.count
        // All of them; one in seven of a document over 1 MB, whose whole decoding takes seconds in a debug
        // build.
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        read.together = Array(stride(from: 0, to: count, by: size > 1 << 20 ? 7 : 1))
        read.all = try details.details(of: read.together).get()
        for index in Set([0, count / 3, count / 2, count - 1]) where count > 0 {
            read.alone[index] = try details.details(of: [index]).get()
        }
        return read
    }

    @Test(
        "an outline refuses what the whole document refuses outside its paths, and reports an operation that does not decode when it is read"
    )
    func errorsAreFoundWhereTheyAre() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let boundary = FileBoundary(root: folder)
        let noVersion = folder.appendingPathComponent("no-version.yaml")
        try #"{"openapi": "3.1.0", "info": {"title": "x"}, "paths": {}}"#.write(
            to: noVersion, atomically: true, encoding: .utf8)
        let refused = OpenAPIDocumentLoader().outline(fileAt: noVersion.path, boundary: boundary)
        #expect(throws: APIDescriptionLoadError.self) { try refused.get() }
        let badOperation = folder.appendingPathComponent("bad-operation.yaml")
        try """
        {"openapi": "3.1.0", "info": {"title": "x", "version": "1"},
         "paths": {"/a": {"get": {"operationId": "good", "responses": {"200": {"description": "ok"}}}},
                   "/b": {"get": {"operationId": "bad", "responses": 7}}}}
        """.write(to: badOperation, atomically: true, encoding: .utf8)
        let outline = try OpenAPIDocumentLoader().outline(fileAt: badOperation.path, boundary: boundary).get()
        #expect(outline.operations.map(\.id) == ["good", "bad"])
        let details = try #require(outline.details)
        #expect(try details.details(of: [0]).get().operations[0]?.responses.count == 1)
        #expect(throws: APIDescriptionLoadError.self) { try details.details(of: [1]).get() }
    }

    /// An operation written out with its schemas expanded a few levels (names of bundled components may
    /// differ between a whole bundle and a part of it; what they hold may not).
    static func digest(_ operation: APIOperation, _ table: APISchemaTable) -> String {
        let parameters = operation.parameters.map {
            "\($0.name) \($0.location) \($0.required) \(digest($0.schema, table))"
        }
        let body = operation.requestBody.map { body in
            "\(body.required) " + body.content.map { "\($0.type): \(digest($0.schema, table))" }.joined(separator: "; ")
        }
        let responses = operation.responses.map { response in
            "\(String(describing: response.status)) "
                + response.content.map { "\($0.type) \($0.examples.count): \(digest($0.schema, table))" }
                .joined(separator: "; ")
        }
        return "\(operation.label) \(operation.id ?? "-")\n" + parameters.joined(separator: "\n") + "\n"
            + (body ?? "no body") + "\n" + responses.joined(separator: "\n") + "\n"
            + String(describing: operation.security)
    }

    static func digest(_ schema: APISchema?, _ table: APISchemaTable, depth: Int = 4) -> String {
        guard let given = schema else { return "-" }
        let schema = table.resolve(given)
        if given.reference != nil, schema === APISchema.any { return "unresolved" }
        guard depth > 0 else { return "…" }
        var parts: [String] = []
        if let types = schema.types { parts.append(types.map(\.rawValue).sorted().joined(separator: "|")) }
        if !schema.properties.isEmpty {
            parts.append(
                "{"
                    + schema.properties.map {
                        "\($0.name)\(schema.required.contains($0.name) ? "!" : ""): "
                            + digest($0.schema, table, depth: depth - 1)
                    }.joined(separator: ", ") + "}")
        }
        if let items = schema.items { parts.append("[" + digest(items, table, depth: depth - 1) + "]") }
        if let values = schema.enumValues { parts.append("enum \(values.count)") }
        for (name, list) in [("allOf", schema.allOf), ("anyOf", schema.anyOf), ("oneOf", schema.oneOf)]
        where !list.isEmpty {
            parts.append(name + "(" + list.map { digest($0, table, depth: depth - 1) }.joined(separator: ", ") + ")")
        }
        switch schema.additionalProperties {
        case .unspecified: break
        case .allowed: parts.append("+")
        case .forbidden: parts.append("closed")
        case .schema(let inner): parts.append("+" + digest(inner, table, depth: depth - 1))
        }
        return parts.joined(separator: " ")
    }
}
