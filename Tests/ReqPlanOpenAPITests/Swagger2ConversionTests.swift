import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

@testable import ReqPlanOpenAPI

/// Swagger 2.0 read by converting it to OpenAPI 3.0 as swagger2openapi does
/// (`Tests/Fixtures/openapi/swagger-20-forms.yaml`).
@Suite("Swagger 2.0 descriptions")
struct Swagger2ConversionTests {
    static let file = OpenAPIFixtures.folder.appendingPathComponent("swagger-20-forms.yaml")

    static func description() throws -> APIDescription {
        try OpenAPIDocumentLoader().load(
            fileAt: file.path, boundary: FileBoundary(root: OpenAPIFixtures.folder)
        ).get()
    }

    @Test("body, formData and query parameters become a request body, form schemas and parameter schemas")
    func parametersAndBodies() throws {
        let description = try Self.description()
        let list = try #require(description.operation(id: "listPets"))
        #expect(list.parameters.map(\.name) == ["limit", "tags"])
        #expect(description.schemas.types(of: try #require(list.parameters[0].schema)) == [.integer])
        #expect(description.schemas.types(of: try #require(list.parameters[1].schema)) == [.array])
        let add = try #require(description.operation(id: "addPet"))
        #expect(add.requestBody?.required == true)
        #expect(add.requestBody?.content.map(\.type) == ["application/json"])
        let upload = try #require(description.operation(id: "uploadPhoto"))
        #expect(upload.requestBody?.content.map(\.type) == ["multipart/form-data"])
        let form = try #require(upload.requestBody?.content.first?.schema)
        #expect(form.required == ["caption"])
        #expect(form.properties.map(\.name) == ["caption", "file"])
        let rename = try #require(description.operation(id: "renamePet"))
        #expect(rename.requestBody?.content.map(\.type) == ["application/x-www-form-urlencoded"])
        #expect(rename.parameters.map(\.name) == ["petId"])
    }

    @Test("responses carry their schema and examples in each produced media type; x-nullable is nullable")
    func responses() throws {
        let description = try Self.description()
        let list = try #require(description.operation(id: "listPets")?.responses.first)
        #expect(list.content.map(\.type) == ["application/json"])
        #expect(list.jsonExamples.count == 1)
        let pet = try #require(description.operation(id: "addPet")?.responses.first?.jsonSchema)
        guard case .declared(let nickname, _) = description.schemas.member("nickname", of: pet) else {
            Issue.record("nickname is not declared")
            return
        }
        #expect(description.schemas.isNullable(nickname))
        #expect(description.schemas.member("born", of: pet).isDeclared, "an unknown format is a plain string")
    }

    @Test("host, basePath and schemes become the servers")
    func servers() throws {
        var bundler = DocumentBundler(
            root: Self.file, boundary: FileBoundary(root: OpenAPIFixtures.folder), maxFileSize: 1 << 20)
        let converted = try Swagger2Conversion(try bundler.bundle()).converted()
        #expect(converted["servers"]?[0]?["url"]?.string == "https://api.example.com/v2")
        #expect(converted["openapi"]?.string == "3.0.3")
        #expect(converted["components"]?["requestBodies"]?["NewPet"] != nil)
        #expect(
            converted["paths"]?["/pets"]?["post"]?["requestBody"]?["$ref"]?.string
                == "#/components/requestBodies/NewPet")
    }
}
