import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// `reqplan import bruno`: the folder read within its root (a `.bru` link out of it refused), requests in
/// `seq` order, `vars:post-response` as data flow, asserts as `expect:`, and escape sequences in names.
@Suite struct BrunoImportTests {
    /// A collection folder of `files` (relative paths and their text), in a folder of its own.
    static func folder(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bruno-\(UUID().uuidString)")
        for (path, text) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        return root
    }

    /// The import of the collection at `path` (a folder, or a file of a whole collection), with what reading
    /// its files refused.
    static func importing(_ path: String) -> ImportResult {
        let read = CollectionFolder.read(atPath: path)
        var result = Importer.importPlan(.bruno, from: read.sources)
        result.diagnostics = read.diagnostics + result.diagnostics
        return result
    }

    /// Whether a plan written is valid under `validate --strict`.
    static func isValid(_ text: String) -> Bool {
        let report = PlanValidator.validate(SourceFile(path: "plan.yaml", text: text))
        return PlanValidator.checkRunValues([report], inputs: [], environment: [:]).allSatisfy {
            $0.isValid(strict: true)
        }
    }

    private static func request(_ name: String, seq: Int, url: String, extra: String = "") -> String {
        "meta {\n  name: \(name)\n  type: http\n  seq: \(seq)\n}\n\nget {\n  url: \(url)\n  body: none\n  auth: none\n}\n"
            + extra
    }

    @Test func aBruLinkOutOfTheCollectionIsRefusedAndNotRead() throws {
        let root = try Self.folder([
            "bruno.json": "{\"version\": \"1\", \"name\": \"c\", \"type\": \"collection\"}",
            "a.bru": Self.request("a", seq: 1, url: "http://h.example/a"),
        ])
        let outside = try Self.folder(["secret.bru": Self.request("secret", seq: 2, url: "http://h.example/secret")])
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("b.bru").path,
            withDestinationPath: outside.appendingPathComponent("secret.bru").path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("env.bru").path, withDestinationPath: "/proc/self/environ")
        let read = CollectionFolder.read(atPath: root.path)
        #expect(read.sources.allSatisfy { !$0.text.contains("secret") && !$0.path.hasSuffix("env.bru") })
        #expect(read.diagnostics.count == 2 && read.diagnostics.allSatisfy { $0.severity == .error })
        #expect(read.diagnostics.contains { $0.code == .fileOutsideFolder })
    }

    @Test func requestsRunInSeqOrderAndAVariableSetFromTheResponseIsReadFromThatStep() throws {
        let root = try Self.folder([
            "bruno.json": "{\"version\": \"1\", \"name\": \"c\", \"type\": \"collection\"}",
            "second.bru": Self.request("read", seq: 2, url: "http://h.example/items/{{id}}"),
            "first.bru": Self.request(
                "create", seq: 1, url: "http://h.example/items",
                extra:
                    "\nvars:post-response {\n  id: res.body.items[0].id\n}\n\nassert {\n  res.status: eq 201\n  res.body.items: length 1\n  res.body.items: isArray\n}\n"
            ),
        ])
        let plan = try #require(Self.importing(root.path).text)
        #expect(plan.contains("url: \"/items/${{ steps.create.body.items[0].id }}\""), "\(plan)")
        #expect(
            plan.range(of: "create:")?.lowerBound ?? plan.endIndex < plan.range(of: "read:")?.lowerBound
                ?? plan.startIndex)
        #expect(plan.contains("status: 201") && plan.contains("length: 1") && plan.contains("type: list"), "\(plan)")
        #expect(Self.isValid(plan), "\(plan)")
    }

    @Test func escapeSequencesAndDeepFoldersStayInert() throws {
        var files = [
            "bruno.json": "{\"version\": \"1\", \"name\": \"c\u{1B}[2J\", \"type\": \"collection\"}",
            "x.bru": Self.request(
                "evil\u{1B}]0;owned\u{07}", seq: 1, url: "http://h.example/x",
                extra: "\nscript:pre-request {\n  console.log('\u{1B}[8m')\n}\n"),
        ]
        files[Array(repeating: "d", count: 200).joined(separator: "/") + "/deep.bru"] = Self.request(
            "deep", seq: 1, url: "http://h.example/deep")
        let result = Self.importing(try Self.folder(files).path)
        let plan = try #require(result.text)
        let shown = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        #expect(!shown.contains("\u{1B}") && !plan.contains("\u{1B}"), "\(shown)")
        #expect(plan.contains("url: /deep") && shown.contains("script:pre-request"))
        #expect(Self.isValid(plan), "\(plan)")
    }

    @Test func aFolderWithoutBrunoJSONIsRefused() throws {
        let result = Self.importing(
            try Self.folder(["a.bru": Self.request("a", seq: 1, url: "http://h.example/a")]).path)
        #expect(result.failed && result.diagnostics.contains { $0.code == .importSourceMalformed })
    }
}
