import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// How `ArazzoReader` tells an Arazzo document from a plan, and the limits it reads one under.
@Suite("Reading Arazzo documents")
struct ArazzoReaderTests {
    @Test(
        "a document is recognised by its top-level arazzo key, in YAML or JSON, after comments",
        arguments: [
            "arazzo: 1.0.1\ninfo: {}\n", "# a workflow\n\narazzo: 1.1.0\n", "{\"arazzo\": \"1.0.1\", \"info\": {}}",
            "{\n  \"arazzo\": \"1.0.1\"\n}\n",
        ])
    func recognisesArazzo(_ text: String) {
        #expect(ArazzoReader().recognises(SourceFile(path: "w.yaml", text: text)))
    }

    @Test(
        "a plan, even one that mentions arazzo below its top level, is not an Arazzo document",
        arguments: ["reqplan: 1\nsteps: []\n", "reqplan: 1\ninputs:\n  arazzo: { default: x }\n"])
    func leavesPlansAlone(_ text: String) {
        #expect(!ArazzoReader().recognises(SourceFile(path: "p.yaml", text: text)))
    }

    @Test("a folder stands for its Arazzo documents in JSON too, but not for the other JSON beside them")
    func folderHoldsJSONArazzoDocuments() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("arazzo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["orders.arazzo.json", "petstore.openapi.json", "data.json", "smoke.yaml", "staging.env.yaml"] {
            try Data("{}".utf8).write(to: folder.appendingPathComponent(name))
        }
        let names = SuiteFiles([folder.path]).files.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(names == ["orders.arazzo.json", "smoke.yaml"])
    }

    @Test("an alias bomb is refused under the limits of every file, located, before anything is translated")
    func aliasBombIsRefusedWithItsPlace() {
        var text = "arazzo: 1.0.1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<9 {
            text +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        let result = ArazzoReader().parse(
            SourceFile(path: "bomb.arazzo.yaml", text: text), file: nil, entry: nil, limits: ParseLimits())
        #expect(result.plan == nil)
        #expect(result.diagnostics.map(\.code) == [.aliasExpansion], "\(result.diagnostics)")
        #expect(result.diagnostics.first?.range != nil)
    }
}

/// `--server NAME=URL` and `--workflow ID` name what the document has.
@Suite("Servers and workflows named on the command line")
struct ArazzoSelectionTests {
    static let document = ArazzoFixtures.folder.appendingPathComponent("golden/valid.arazzo.yaml")

    static func codes(_ reader: ArazzoReader) -> [String] {
        PlanValidator.validate(
            fileAt: document.path, displayPath: "golden/valid.arazzo.yaml", allowFilesOutside: true,
            library: PlanLibrary(apiLoader: OpenAPIDocumentLoader(), documentReader: reader)
        ).diagnostics.filter { $0.severity == .error }.map(\.code.rawValue)
    }

    @Test("a server for a source description the document does not have is an error")
    func serverForUnknownSource() {
        #expect(Self.codes(ArazzoReader(servers: ["petstor": "http://127.0.0.1:1"])) == ["RP1003"])
        #expect(Self.codes(ArazzoReader(servers: ["petstore": "http://127.0.0.1:1"])).isEmpty)
    }

    @Test("a workflow the document does not have is an error")
    func unknownWorkflow() {
        #expect(Self.codes(ArazzoReader(workflow: "find-coupons")) == ["RP1008"])
    }
}
