import Foundation
import ReqPlanImport
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// `reqplan import openapi` on descriptions written to break it (HOSTILE.md): values that would be
/// expressions or terminal escapes, links that give each other their values, a schema that holds itself,
/// and thousands of operations. Each plan written validates clean under `--strict` beside its description.
@Suite("Hostile OpenAPI imports")
struct ImportOpenAPIHostileTests {
    /// The plan of `description` (YAML text), written in a new project folder, and its strict validation.
    static func importAndValidate(_ description: String) throws -> (text: String, problems: String) {
        let folder = TestFolders.unique("reqplan-import-openapi")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent(".reqplan"))
        let file = folder.appendingPathComponent("api.yaml")
        try description.write(to: file, atomically: true, encoding: .utf8)
        let plan = folder.appendingPathComponent("plan.yaml")
        let pipeline = Pipeline()
        let written = try #require(
            try pipeline.importOpenAPI(fileAt: file.path, writingTo: plan.path, options: OpenAPIImportOptions()).get()
                .first)
        let report = pipeline.validate(SourceFile(path: plan.path, text: written.text))
        let problems =
            report.isValid(strict: true)
            ? "" : DiagnosticRenderer(colors: false, files: report.sources).text(report.diagnostics)
        return (written.text, problems)
    }

    @Test func examplesAndNamesThatWouldBeExpressionsOrEscapesStayText() throws {
        let (text, problems) = try Self.importAndValidate(
            #"""
            openapi: 3.0.3
            info: { title: Hostile, version: "1" }
            paths:
              /things/{thingId}:
                get:
                  operationId: "get thing ${{ env.HOME }}"
                  summary: "Reads \u001b]52;c;cGF3bmVk\u0007 a thing\u202e"
                  parameters:
                    - { name: thingId, in: path, required: true, schema: { type: string }, example: "${{ inputs.x }}" }
                    - { name: X-Trace, in: header, required: true, schema: { type: string, example: "a\u001b[2Jb" } }
                  responses: { "200": { description: ok } }
              /things:
                post:
                  operationId: createThing
                  requestBody:
                    content:
                      application/json:
                        schema: { type: object, required: [name], properties: { name: { type: string } } }
                        example: { name: "${{ steps.x.body }}", "${{ key }}": 1 }
                  responses: { "201": { description: ok } }
            """#)
        #expect(problems.isEmpty, "\(problems)")
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, "\(text)")
        #expect(text.contains(#"thingId: "${{ '${{' }} inputs.x }}""#), "\(text)")
        // An example with `${{` in a key cannot be written as `json:`: the schema's own value is sent instead.
        #expect(!text.contains("steps.x.body }}\""), "\(text)")
        // `operation:` names an operation, never read as an expression: its id is written as it is.
        #expect(text.contains(#"operation: "hostile.get thing ${{ env.HOME }}""#), "\(text)")
        // A header example a header cannot carry becomes an input.
        #expect(text.contains(#"X-Trace: "${{ inputs.x_trace }}""#), "\(text)")
    }

    @Test func linksThatGiveEachOtherTheirValuesMakeNoCycle() throws {
        let (text, problems) = try Self.importAndValidate(
            """
            openapi: 3.0.3
            info: { title: Cycle, version: "1" }
            paths:
              /a/{aId}:
                get:
                  operationId: getA
                  parameters: [{ name: aId, in: path, required: true, schema: { type: string } }]
                  responses:
                    "200":
                      description: ok
                      content: { application/json: { schema: { type: object, required: [bId], properties: { bId: { type: string } } } } }
                      links: { toB: { operationId: getB, parameters: { bId: "$response.body#/bId" } } }
              /b/{bId}:
                get:
                  operationId: getB
                  parameters: [{ name: bId, in: path, required: true, schema: { type: string } }]
                  responses:
                    "200":
                      description: ok
                      content: { application/json: { schema: { type: object, required: [aId], properties: { aId: { type: string } } } } }
                      links: { toA: { operationId: getA, parameters: { aId: "$response.body#/aId" } } }
            """)
        #expect(problems.isEmpty, "\(problems)")
        let references = text.matches(of: /steps\.(getA|getB)\.body/).map(\.output.1)
        #expect(references.count == 1, "\(text)")
    }

    @Test func aSchemaThatHoldsItselfIsWrittenToADepth() throws {
        let (text, problems) = try Self.importAndValidate(
            """
            openapi: 3.0.3
            info: { title: Tree, version: "1" }
            paths:
              /nodes:
                post:
                  operationId: addNode
                  requestBody:
                    content: { application/json: { schema: { $ref: "#/components/schemas/Node" } } }
                  responses: { "201": { description: ok } }
            components:
              schemas:
                Node:
                  type: object
                  required: [name, child]
                  properties:
                    name: { type: string }
                    child: { $ref: "#/components/schemas/Node" }
            """)
        #expect(text.contains("name: string"))
        #expect(text.count < 4_000, "\(text)")
        // The required `child` of the innermost node cannot be written: `null`, which the schema refuses.
        #expect(problems.contains("RP0807") || problems.isEmpty, "\(problems)")
    }

    @Test func thousandsOfOperationsImportToAPlanOfThemAll() throws {
        var description = """
            openapi: 3.0.3
            info: { title: Big, version: "1" }
            paths:

            """
        for index in 0..<1_500 {
            description += """
                  /r\(index):
                    post:
                      operationId: create\(index)
                      responses: { "201": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } } }
                  /r\(index)/{r\(index)Id}:
                    delete:
                      operationId: delete\(index)
                      parameters: [{ name: r\(index)Id, in: path, required: true, schema: { type: integer } }]
                      responses: { "204": { description: gone } }

                """
        }
        description += """
            components:
              schemas:
                Thing: { type: object, properties: { id: { type: integer } } }

            """
        let (text, problems) = try Self.importAndValidate(description)
        #expect(problems.isEmpty, "\(problems.prefix(2_000))")
        #expect(text.matches(of: /operation: big\.delete/).count == 1_500)
        #expect(text.contains(#"r1499Id: "${{ steps.create1499.body.id }}""#))
    }
}
