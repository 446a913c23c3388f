import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing
import Yams

@testable import ReqPlanOpenAPI

/// Descriptions split over several files (`Tests/Fixtures/openapi/multi-file/`), bundled by the kind of
/// each reference's position, as Redocly's bundler does.
@Suite("Descriptions split over several files")
struct DocumentBundlerTests {
    static let folder = OpenAPIFixtures.folder.appendingPathComponent("multi-file")
    static let boundary = FileBoundary(root: folder)

    static func bundled(_ name: String = "openapi.yaml") throws -> Node {
        var bundler = DocumentBundler(
            root: folder.appendingPathComponent(name), boundary: boundary, maxFileSize: 1 << 20)
        return try bundler.bundle()
    }

    static func names(_ section: String, in document: Node) -> [String] {
        guard case .mapping(let mapping)? = document["components"]?[section] else { return [] }
        return mapping.map { $0.key.string ?? "" }
    }

    @Test("each referenced object is filed under the components section its position calls for")
    func filedByPosition() throws {
        let document = try Self.bundled()
        #expect(Self.names("parameters", in: document) == ["limit", "paths_filter"])
        #expect(Self.names("responses", in: document) == ["ThingList"])
        #expect(Self.names("requestBodies", in: document) == ["NewThing"])
        #expect(Self.names("callbacks", in: document) == ["created"])
        #expect(Self.names("headers", in: document) == ["Location"])
        #expect(Self.names("links", in: document) == ["show"])
        #expect(Self.names("examples", in: document) == ["thing"])
        #expect(Self.names("securitySchemes", in: document) == ["key"])
        #expect(Self.names("schemas", in: document) == ["Thing", "thing_detail", "Tree", "Node"])
        let parameters = document["paths"]?["/things"]?["get"]?["parameters"]
        #expect(parameters?[0]?["$ref"]?.string == "#/components/parameters/limit")
        #expect(parameters?[1]?["$ref"]?.string == "#/components/parameters/paths_filter")
        // The cycle through two files ends at the component already filed.
        #expect(
            document["components"]?["schemas"]?["Node"]?["properties"]?["subtree"]?["$ref"]?.string
                == "#/components/schemas/Tree")
        #expect(
            document["components"]?["securitySchemes"]?["key"]?["type"]?.string == "apiKey",
            "a whole-file reference is filed whole")
    }

    @Test("`#/$defs/…` where the root has no `$defs` is read in the enclosing schema that declares the name")
    func definitionsOfTheEnclosingSchema() async throws {
        // Mistral's description: a response schema made from a JSON Schema keeps its `$defs` and refers to
        // them as `#/$defs/…` (from inside one another too), after losing the `$id` that would scope them.
        let file = OpenAPIFixtures.folder.appendingPathComponent("real/mistral/openapi.yaml")
        // Off the cooperative threads: a whole 1 MB description takes seconds to decode in a debug build.
        let description = try await offCooperativePool {
            try OpenAPIDocumentLoader().load(fileAt: file.path, boundary: FileBoundary(root: OpenAPIFixtures.folder))
                .get()
        }
        let speech = try #require(description.operation(id: "speech_v1_audio_speech_post"))
        let stream = try #require(
            speech.responses.flatMap(\.content).first { $0.type == "text/event-stream" }?.schema)
        let table = description.schemas
        let event = try #require(table.resolve(stream).property("data"))
        let kinds = table.resolve(event).oneOf.map { table.resolve($0) }
        #expect(kinds.map { $0.properties.map(\.name).sorted() } == [["audio_data", "type"], ["type", "usage"]])
        // `SpeechStreamDone.usage` refers to `UsageInfo` from inside `$defs`, which refers on to others.
        let usage = try #require(kinds.last?.property("usage"))
        #expect(table.resolve(usage).property("prompt_tokens") != nil)
        #expect(table.resolve(usage).reference == nil && usage.reference != nil)
    }

    @Test("a reference where OpenAPI takes no Reference Object is replaced by its target")
    func inlinedWhereNoReference() throws {
        let document = try Self.bundled()
        #expect(document["info"]?["description"]?.string == "A description kept in a **Markdown** file.\n")
        #expect(document["tags"]?[0]?["description"]?.string == "Things, and their trees.")
        // Path items are inlined (3.0 has no components/pathItems).
        #expect(document["paths"]?["/things/{thingId}.json"]?["get"]?["operationId"]?.string == "showThing")
    }

    @Test("the bundled description is typed: parameters, bodies and cyclic schemas from other files")
    func loadsTyped() throws {
        let description = try OpenAPIDocumentLoader().load(
            fileAt: Self.folder.appendingPathComponent("openapi.yaml").path, boundary: Self.boundary
        ).get()
        let list = try #require(description.operation(id: "listThings"))
        #expect(list.parameters.map(\.name) == ["limit", "filter"])
        #expect(list.parameters.first?.required == true)
        #expect(description.schemas.types(of: try #require(list.parameters.first?.schema)) == [.integer])
        let create = try #require(description.operation(id: "createThing"))
        let body = try #require(create.requestBody?.content.first?.schema)
        #expect(description.schemas.member("name", of: body).isDeclared)
        let show = try #require(description.operation(id: "showThing"))
        #expect(show.pathParameterNames == ["thingId"])
        let trees = try #require(description.operation(id: "listTrees")?.responses.first?.jsonSchema)
        #expect(description.schemas.member("children", of: trees).isDeclared)
    }

    @Test("a reference to another host is refused, saying so")
    func remoteRefused() {
        let result = OpenAPIDocumentLoader().load(
            fileAt: Self.folder.appendingPathComponent("remote.yaml").path, boundary: Self.boundary)
        guard case .failure(let error) = result else {
            Issue.record("a remote reference loaded")
            return
        }
        #expect(error.message.contains("`https://example.com/responses.yaml#/Ok` names a remote document"))
    }

    @Test(
        "references are read as RFC 6901 pointers in RFC 3986 text",
        arguments: [
            ("a.yaml#/x~1y/~0z", "a.yaml", ["x/y", "~z"]), ("#/a%20b/c", "openapi.yaml", ["a b", "c"]),
            ("sub%20dir/f.yaml", "sub dir/f.yaml", []), ("../up.yaml#/", "../up.yaml", [""]),
        ])
    func pointers(reference: String, file: String, tokens: [String]) throws {
        let referrer = Self.folder.appendingPathComponent("openapi.yaml")
        let target = try ReferenceTarget(reference, in: referrer)
        #expect(target.file == Self.folder.appendingPathComponent(file).standardizedFileURL)
        #expect(target.tokens == tokens)
    }
}

extension APISchemaTable.Member {
    var isDeclared: Bool {
        if case .declared = self { return true }
        return false
    }
}
