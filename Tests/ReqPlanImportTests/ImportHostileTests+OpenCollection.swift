import Foundation
import ReqPlanImport
import ReqPlanSyntax
import Testing
import Yams

/// HOSTILE.md's classes on Bruno's OpenCollection YAML: depth, aliases and size refused with their place,
/// 10,000 requests read in linear time, escape sequences and the template opener inert, bytes that are not UTF-8.
extension ImportHostileTests {
    /// The import of a collection folder of `files`, or of its file `only` (a whole collection in one file).
    private static func openCollection(_ files: [String: String], only: String? = nil) throws -> ImportResult {
        let root = try BrunoImportTests.folder(files)
        return BrunoImportTests.importing(only.map { root.appendingPathComponent($0).path } ?? root.path)
    }

    /// 100,000 levels of flow lists, 600 of block lists (deeper ones pass the size limit first).
    @Test(arguments: [
        "opencollection: 1.0.0\nitems: " + String(repeating: "[", count: 100_000)
            + String(repeating: "]", count: 100_000),
        "opencollection: 1.0.0\nitems:\n"
            + (0..<600).map { String(repeating: "  ", count: $0) + "- items:\n" }.joined(),
    ])
    func anOpenCollectionNestedDeeperThanTheReaderAllowsIsRefusedWithItsPlace(_ text: String) throws {
        let result = try Self.openCollection(["export.yml": text], only: "export.yml")
        #expect(result.failed)
        let refused = result.diagnostics.map {
            "\($0.code.rawValue) \($0.file ?? "") \($0.range.map { "\($0.start.line)" } ?? "")"
        }
        // libyaml stops past 1,000 levels (RP0002), the reader past 512 (RP0008): either way located, never a crash.
        #expect(
            refused.contains {
                ($0.hasPrefix("RP0008 ") || $0.hasPrefix("RP0002 ")) && $0.contains("export.yml ") && !$0.hasSuffix(" ")
            }, "\(refused)")
    }

    @Test func anOpenCollectionAliasBombIsRefused() throws {
        var text = "opencollection: 1.0.0\nlol0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            text +=
                "lol\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        let result = try Self.openCollection(["opencollection.yml": text])
        #expect(result.failed && result.diagnostics.contains { $0.code == .aliasExpansion && $0.range != nil })
    }

    @Test func anOpenCollectionFileOneByteOverTheLimitIsRefused() throws {
        let head = "opencollection: 1.0.0\n# "
        let text = head + String(repeating: "x", count: ParseLimits().maxFileSize + 1 - head.utf8.count)
        let result = try Self.openCollection(["opencollection.yml": text])
        #expect(result.failed && result.diagnostics.contains { $0.code == .fileTooLarge })
    }

    @Test func tenThousandRequestsInOneFileAreReadInLinearTime() throws {
        func collection(_ count: Int) -> String {
            "opencollection: 1.0.0\nitems:\n"
                + (0..<count).map {
                    "  - info: { name: r\($0), type: http, seq: \($0) }\n    http: { method: GET, url: 'http://h.example/i/\($0)?q={{v\($0 % 50)}}' }\n"
                }.joined()
        }
        let clock = ContinuousClock()
        let small = try clock.measure { _ = try Self.openCollection(["a.yml": collection(1_000)], only: "a.yml") }
        var result: ImportResult?
        let large = try clock.measure { result = try Self.openCollection(["a.yml": collection(10_000)], only: "a.yml") }
        let plan = try #require(result?.text)
        #expect(plan.contains("r9999:") && plan.contains("q: \"${{ inputs.v49 }}\""))
        // Ten times the requests, well under a hundred times the time.
        #expect(large < small * 40 + .seconds(2), "1,000 in \(small), 10,000 in \(large)")
    }

    @Test func escapeSequencesInOpenCollectionNamesAndScriptsAreShownNotSent() throws {
        let result = try Self.openCollection([
            "opencollection.yml": "opencollection: 1.0.0\ninfo:\n  name: \"c\\e[2J\"\n",
            "x.yml": """
            info: { name: "evil\\e]0;owned\\a", type: http }
            http:
              method: GET
              url: http://h.example/x
              headers: [{ name: X-Evil, value: "a\\e[8mb" }]
            runtime:
              scripts: [{ type: before-request, code: "console.log('\\e]52;c;aGk=\\a')" }]
              assertions: [{ expression: "res.body.\\e[2J", operator: eq, value: "1" }]
            """,
        ])
        let plan = try #require(result.text)
        let shown = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        #expect(!shown.contains("\u{1B}") && !plan.contains("\u{1B}") && !shown.contains("\u{07}"), "\(shown)")
        #expect(shown.contains("script:before-request"))
    }

    /// `${{ x }}` in Bruno is `$` and the variable `x` (an input of its own name); a `${{` that opens no Bruno
    /// variable is the literal text. Neither reads what the plan's own `${{ env.HOME }}` would.
    @Test func theTemplateOpenerInOpenCollectionValuesStaysText() throws {
        let result = try Self.openCollection([
            "opencollection.yml": "opencollection: 1.0.0\n",
            "x.yml": """
            info: { name: x, type: http }
            http:
              method: POST
              url: "http://h.example/${{ env.HOME }}"
              headers: [{ name: X-T, value: "${{ inputs.token }}" }, { name: X-U, value: "${{ env.HOME" }]
              body: { type: json, data: '{"a": "${{ steps.x.body"}' }
            """,
        ])
        let text = try #require(result.text)
        #expect(!text.contains("${{ env.HOME }}") && !text.contains("${{ inputs.token }}"), "\(text)")
        #expect(text.contains("$${{ inputs.env_home }}") && text.contains("$${{ inputs.inputs_token }}"), "\(text)")
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let step = try #require((document["steps"] as? [String: Any])?["x"] as? [String: Any])
        let request = try #require(step["request"] as? [String: Any])
        #expect((request["headers"] as? [String: Any])?["X-U"] as? String == "${{ '${{' }} env.HOME")
        #expect((request["json"] as? [String: Any])?["a"] as? String == "${{ '${{' }} steps.x.body")
    }

    @Test func anOpenCollectionFileThatIsNotUTF8IsRefusedAtItsByte() throws {
        let root = try BrunoImportTests.folder(["opencollection.yml": "opencollection: 1.0.0\n"])
        try Data("info: { name: caf\u{E9} }\n".utf8.map { $0 }).write(to: root.appendingPathComponent("ok.yml"))
        try Data([0x69, 0x6E, 0x66, 0x6F, 0x3A, 0x20, 0xE9, 0x0A]).write(to: root.appendingPathComponent("latin1.yml"))
        let read = CollectionFolder.read(atPath: root.path)
        let refused = try #require(read.diagnostics.first)
        #expect(
            refused.code == .unreadableFile && refused.message.contains("not UTF-8")
                && refused.file?.hasSuffix("latin1.yml") == true)
        #expect(read.sources.count == 2)
    }
}
