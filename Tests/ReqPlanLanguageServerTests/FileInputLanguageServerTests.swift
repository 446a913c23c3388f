import Foundation
import ReqPlanLanguageServer
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The files a plan open in an editor names, read by the server as `validate` reads them (`FileReader`): a
/// FIFO does not stop the checks (nor `exit`), and a link out of the project shows nothing behind it.
@Suite struct FileInputLanguageServerTests {
    @Test func aFIFOAndALinkOutOfTheProjectAreRefusedAndTheServerGoesOn() async throws {
        let top = TestFolders.unique("lsp-file-inputs")
        let project = top.appendingPathComponent("project")
        let outside = top.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data().write(to: project.appendingPathComponent(".reqplan"))
        try Data("CI_TOKEN=s3cr3t-lsp\n".utf8).write(to: outside.appendingPathComponent("credentials"))
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("notes.md").path, withDestinationPath: "../outside/credentials")
        #expect(mkfifo(project.appendingPathComponent("sub.yaml").path, 0o600) == 0)
        try Data(
            """
            openapi: 3.0.3
            info: { title: t, version: "1" }
            paths:
              /pets:
                get:
                  operationId: list
                  parameters:
                    - { name: kind, in: query, schema: { type: string, enum: [{ $ref: notes.md }] } }
                  responses: { "200": { description: ok } }

            """.utf8
        ).write(to: project.appendingPathComponent("api.yaml"))
        let text = """
            reqplan: 1
            openapi: { api: api.yaml }
            steps:
              inner: { plan: { file: sub.yaml } }
              list: { request: { operation: api.list, query: { kind: dog } } }

            """
        let plan = project.appendingPathComponent("plan.yaml")
        try Data(text.utf8).write(to: plan)

        let client = TestClient { PlanLibrary(apiLoader: OpenAPIDocumentLoader(), unsavedText: $0) }
        _ = await client.initialize()
        let uri = DocumentURI(filePath: plan.path).text
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: text))
        let published = try #require(await client.diagnostics(of: uri) { $0.count >= 2 })
        let messages = published.compactMap { diagnostic -> String? in
            guard case .string(let message)? = diagnostic["message"] else { return nil }
            return message
        }
        #expect(messages.contains { $0.contains("named pipe (FIFO)") }, "\(messages)")
        #expect(messages.contains { $0.contains("outside the plan's project") }, "\(messages)")
        #expect(!messages.joined().contains("s3cr3t"), "\(messages)")
        // The server still answers, and ends when told.
        #expect(await client.request(7, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }
}
