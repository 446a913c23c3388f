import Foundation
import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

/// Plans checked again when what they read changes: a sub-plan's unsaved edits in the editor, and files
/// changed on disk by another program, which the client watches for the server.
@Suite struct FileChangeTests {
    /// A folder with `main.yaml`, which calls `sub.yaml` with the input `user`, and `sub.yaml`, which
    /// declares it.
    struct Project {
        let folder: URL
        static let main = "reqplan: 1\nsteps:\n  run: { plan: { file: sub.yaml, inputs: { user: alice } } }\n"
        static let sub = """
            reqplan: 1
            inputs:
              user: { type: string }
            steps:
              x: { request: { url: "http://h/${{ inputs.user }}" } }

            """

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-lsp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.main.write(to: folder.appendingPathComponent("main.yaml"), atomically: true, encoding: .utf8)
            try Self.sub.write(to: folder.appendingPathComponent("sub.yaml"), atomically: true, encoding: .utf8)
        }

        func uri(_ name: String) -> String { DocumentURI(filePath: folder.appendingPathComponent(name).path).text }
    }

    @Test func aSubPlansUnsavedEditReachesThePlanThatIncludesIt() async throws {
        let project = try Project()
        defer { try? FileManager.default.removeItem(at: project.folder) }
        let client = TestClient()
        _ = await client.initialize()
        client.notify("textDocument/didOpen", .document(project.uri("main.yaml"), version: 1, text: Project.main))
        client.notify("textDocument/didOpen", .document(project.uri("sub.yaml"), version: 1, text: Project.sub))
        #expect(await client.diagnostics(of: project.uri("main.yaml")) { $0.isEmpty } != nil)
        // The input renamed in the editor, not saved: `user` is no input of the sub-plan now.
        let renamed = Project.sub.replacingOccurrences(of: "user", with: "name")
        client.notify(
            "textDocument/didChange",
            .object([
                .init(
                    "textDocument",
                    .object([.init("uri", .string(project.uri("sub.yaml"))), .init("version", .int(2))])),
                .init("contentChanges", .list([.object([.init("text", .string(renamed))])])),
            ]))
        let seen = try #require(await client.diagnostics(of: project.uri("main.yaml")) { !$0.isEmpty })
        #expect(
            seen.contains { diagnostic in
                guard case .string(let message)? = diagnostic["message"] else { return false }
                return message.contains("user")
            }, "\(seen)")
        #expect(await client.end() == 1)
    }

    @Test func aSubPlanChangedOnDiskIsSeenWhenTheClientSaysSo() async throws {
        let project = try Project()
        defer { try? FileManager.default.removeItem(at: project.folder) }
        let client = TestClient()
        _ = await client.initialize(watchesFiles: true)
        // The server asks the client to watch the workspace's YAML and JSON files.
        let registration = try #require(await client.first { $0["method"] == .string("client/registerCapability") })
        guard case .list(let registrations)? = registration["params"]?["registrations"],
            case .list(let watchers)? = registrations.first?["registerOptions"]?["watchers"]
        else {
            Issue.record("\(registration)")
            return
        }
        #expect(registrations.first?["method"] == .string("workspace/didChangeWatchedFiles"))
        #expect(watchers.first?["globPattern"] == .string("**/*.{yaml,yml,json,csv,jsonl,ndjson}"))

        client.notify("textDocument/didOpen", .document(project.uri("main.yaml"), version: 1, text: Project.main))
        #expect(await client.diagnostics(of: project.uri("main.yaml")) { $0.isEmpty } != nil)
        // Another program renames the input in the file: the plan is checked again when the client says so.
        try Project.sub.replacingOccurrences(of: "user", with: "name")
            .write(to: project.folder.appendingPathComponent("sub.yaml"), atomically: true, encoding: .utf8)
        client.notify(
            "workspace/didChangeWatchedFiles",
            .object([
                .init(
                    "changes",
                    .list([.object([.init("uri", .string(project.uri("sub.yaml"))), .init("type", .int(2))])]))
            ]))
        #expect(await client.diagnostics(of: project.uri("main.yaml")) { !$0.isEmpty } != nil)
        #expect(await client.end() == 1)
    }

    @Test func aForEachsDataFileIsReadAndCheckedAgainWhenItChanges() async throws {
        let project = try Project()
        defer { try? FileManager.default.removeItem(at: project.folder) }
        let rows = project.folder.appendingPathComponent("rows.csv")
        try "sku,name\na1,Anvil\n".write(to: rows, atomically: true, encoding: .utf8)
        let main = """
            reqplan: 1
            steps:
              create:
                for_each: { file: rows.csv }
                request: { url: "http://h/${{ item.sku }}" }

            """
        let client = TestClient()
        _ = await client.initialize(watchesFiles: true)
        client.notify("textDocument/didOpen", .document(project.uri("main.yaml"), version: 1, text: main))
        #expect(await client.diagnostics(of: project.uri("main.yaml")) { $0.isEmpty } != nil)
        // The column renamed on disk: `item.sku` names none now.
        try "code,name\na1,Anvil\n".write(to: rows, atomically: true, encoding: .utf8)
        client.notify(
            "workspace/didChangeWatchedFiles",
            .object([
                .init(
                    "changes",
                    .list([.object([.init("uri", .string(project.uri("rows.csv"))), .init("type", .int(2))])]))
            ]))
        let seen = try #require(await client.diagnostics(of: project.uri("main.yaml")) { !$0.isEmpty })
        #expect(seen.first?["code"] == .string("RP0212"), "\(seen)")
        #expect(await client.end() == 1)
    }
}
