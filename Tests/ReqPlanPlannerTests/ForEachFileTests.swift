import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPlanner

#if canImport(Glibc)
    import Glibc
#endif

/// `for_each: { file: … }`: the data file read when the plan is checked, its problems located, its columns
/// typing the item.
@Suite struct ForEachFileTests {
    static func plan(_ forEach: String, item: String = "${{ item.sku }}") -> String {
        """
        reqplan: 1
        defaults: { base_url: "http://127.0.0.1:8080" }
        steps:
          create:
            for_each: \(forEach)
            request: { method: POST, url: /items, json: { sku: "\(item)" } }
        """
    }

    /// Each diagnostic as `CODE file:line:col message`.
    static func lines(_ report: ValidationReport) -> [String] {
        report.diagnostics.map { diagnostic in
            let place = diagnostic.range.map { "\($0.start.line):\($0.start.column)" } ?? "-"
            return "\(diagnostic.code.rawValue) \(diagnostic.file ?? "?"):\(place) \(diagnostic.message)"
        }
    }

    static func rows(_ graph: PlanGraph, _ id: String = "create") -> DataFile.Items? {
        guard case .forEach(let loop)? = graph.node(id)?.step.kind else { return nil }
        return loop.file?.rows
    }

    @Test func csvRowsAreTheItemsInTheFilesOrder() throws {
        let files = try PlanFiles([
            "data/items.csv": "sku,name\r\na1,\"Anvil, large\"\r\nb2,Bolt\r\n",
            "main.yaml": Self.plan("{ file: data/items.csv }"),
        ])
        let rows = try #require(Self.rows(try files.graph()))
        #expect(rows.fields == ["sku", "name"])
        #expect(
            rows.values == [
                .object([.init("sku", .string("a1")), .init("name", .string("Anvil, large"))]),
                .object([.init("sku", .string("b2")), .init("name", .string("Bolt"))]),
            ])
    }

    @Test func aJSONLinesFileAndAFormatGivenForAnotherName() throws {
        let files = try PlanFiles([
            "rows.ndjson": "{\"sku\": \"a1\", \"qty\": 18446744073709551615}\n\n{\"sku\": \"b2\"}\n",
            "rows.txt": "\"x\"\n[1]\n",
            "main.yaml": """
            reqplan: 1
            defaults: { base_url: "http://127.0.0.1:8080" }
            steps:
              create:
                for_each: { file: rows.ndjson }
                request: { method: POST, url: /items, json: { sku: "${{ item.sku }}", qty: "${{ item.qty }}" } }
              raw:
                for_each: { file: rows.txt, format: jsonl }
                request: { method: POST, url: /raw, json: "${{ item }}" }
            """,
        ])
        let graph = try files.graph()
        #expect(Self.rows(graph)?.fields == ["sku", "qty"])
        #expect(Self.rows(graph)?.values.first?["qty"]?.jsonText() == "18446744073709551615")
        #expect(Self.rows(graph, "raw")?.values == [.string("x"), .list([.int(1)])])
        #expect(Self.rows(graph, "raw")?.fields == nil)
    }

    @Test func anUnknownColumnIsAnErrorWithDidYouMeanAndItsFix() throws {
        let files = try PlanFiles([
            "items.csv": "sku,name\na1,Anvil\n",
            "main.yaml": Self.plan("{ file: items.csv }", item: "${{ item.skuu }}-${{ item['name'] }}"),
        ])
        let report = files.validate()
        #expect(Self.lines(report) == ["RP0212 main.yaml:6:66 the rows of `items.csv` have no column `skuu`"])
        #expect(report.diagnostics.first?.hint == "did you mean `sku`?")
        #expect(report.diagnostics.first?.fix?.replacement == "sku")
        // The keys of JSON Lines whose lines are all objects type the item too; an inner item hides an outer one.
        let nested = try PlanFiles([
            "a.jsonl": "{\"id\": 1}\n{\"id\": 2, \"colour\": \"red\"}\n",
            "main.yaml": """
            reqplan: 1
            defaults: { base_url: "http://127.0.0.1:8080" }
            steps:
              outer:
                for_each: { file: a.jsonl }
                group:
                  inner:
                    for_each: [1, 2]
                    request: { url: "/x/${{ item }}" }
                  read: { request: { url: "/x/${{ item.color }}/${{ item.colour }}" } }
            """,
        ])
        #expect(Self.lines(nested.validate()) == ["RP0212 main.yaml:10:44 the rows of `a.jsonl` have no key `color`"])
    }

    @Test func aMissingFileIsLocatedAtItsValueWithTheClosestName() throws {
        let files = try PlanFiles([
            "data/items.csv": "sku\na1\n",
            "main.yaml": Self.plan("{ file: data/item.csv }"),
        ])
        let report = files.validate()
        #expect(Self.lines(report) == ["RP0601 main.yaml:5:23 data file `data/item.csv` does not exist"])
        #expect(report.diagnostics.first?.hint == "did you mean `data/items.csv`?")
    }

    @Test func aFileOrALinkOutsideTheProjectIsRefusedUnlessAllowed() throws {
        let files = try PlanFiles([
            "outside.csv": "sku\na1\n",
            "plans/main.yaml": Self.plan("{ file: ../outside.csv }"),
            "plans/link.yaml": Self.plan("{ file: link.csv }"),
            "plans/environ.yaml": Self.plan("{ file: environ.csv }"),
            "plans/.reqplan": "",
        ])
        try FileManager.default.createSymbolicLink(
            atPath: files.path("plans/link.csv"), withDestinationPath: files.path("outside.csv"))
        try FileManager.default.createSymbolicLink(
            atPath: files.path("plans/environ.csv"), withDestinationPath: "/proc/self/environ")
        for name in ["main", "link", "environ"] {
            let report = files.validate("plans/\(name).yaml")
            #expect(report.diagnostics.map(\.code) == [.fileOutsideFolder], "\(Self.lines(report))")
            #expect(!files.render(report).contains("PATH="))
        }
        let allowed = files.validate("plans/main.yaml", allowOutside: true)
        #expect(allowed.errorCount == 0, "\(Self.lines(allowed))")
    }

    @Test func aMalformedFileIsLocatedInItWithANoteAtTheStep() throws {
        let files = try PlanFiles([
            "items.csv": "sku,name\na1,\"Anvil\nb2,Bolt,extra\n",
            "broken.csv": "sku,name\na1\nb2,\"x\"y\n",
            "main.yaml": Self.plan("{ file: broken.csv }"),
        ])
        let report = files.validate()
        #expect(
            Self.lines(report) == [
                "RP0009 broken.csv:2:2 this row ends after 1 field, but the header names 2 columns (no `name`)",
                "RP0009 broken.csv:3:7 text after the closing quote of a quoted field",
            ])
        #expect(report.diagnostics.first?.notes.last?.message == "included from main.yaml:5:23")
        // The excerpt shows the data file's line.
        #expect(files.render(report).contains("3 | b2,\"x\"y"), "\(files.render(report))")
    }

    @Test func anEmptyFileIsAnEmptyList() throws {
        let files = try PlanFiles([
            "empty.csv": "",
            "header.csv": "sku\n",
            "main.yaml": """
            reqplan: 1
            defaults: { base_url: "http://127.0.0.1:8080" }
            steps:
              create:
                for_each: { file: empty.csv }
                request: { url: "/x/${{ item.anything }}" }
              header:
                for_each: { file: header.csv }
                request: { url: "/x/${{ item.sku }}" }
            """,
        ])
        let graph = try files.graph()
        #expect(Self.rows(graph)?.values == [])
        #expect(Self.rows(graph, "header")?.values == [])
    }

    @Test func hostileFilesAreRefusedAtOnceAtTheFileValue() throws {
        let files = try PlanFiles([
            "main.yaml": Self.plan("{ file: fifo.csv }"),
            "binary.yaml": Self.plan("{ file: binary.csv }"),
            "big.yaml": Self.plan("{ file: big.csv }"),
            "folder.yaml": Self.plan("{ file: folder.csv }"),
        ])
        #expect(mkfifo(files.path("fifo.csv"), 0o600) == 0)
        try Data([0x73, 0x6B, 0x75, 0x0A, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: files.path("binary.csv")))
        try Data(repeating: 0x61, count: 2049).write(to: URL(fileURLWithPath: files.path("big.csv")))
        try FileManager.default.createDirectory(atPath: files.path("folder.csv"), withIntermediateDirectories: true)
        #expect(
            Self.lines(files.validate()) == [
                "RP0601 main.yaml:5:23 data file `fifo.csv` is a named pipe (FIFO), not a regular file"
            ])
        #expect(
            Self.lines(files.validate("binary.yaml")).first?.hasPrefix(
                "RP0001 binary.yaml:5:23 cannot read `binary.csv`") == true,
            "\(Self.lines(files.validate("binary.yaml")))")
        let limits = ParseLimits(maxFileSize: 2048)
        let big = PlanValidator.validate(fileAt: files.path("big.yaml"), displayPath: "big.yaml", limits: limits)
        #expect(
            Self.lines(big) == ["RP0004 big.yaml:5:23 the data file is larger than the limit of 2048 bytes"])
        #expect(
            Self.lines(files.validate("folder.yaml")) == [
                "RP0601 folder.yaml:5:23 data file `folder.csv` is a folder, not a file"
            ])
    }

    @Test func theMappingsOwnMistakesAreReportedBeforeAnyFileIsRead() throws {
        let files = try PlanFiles([
            "main.yaml": """
            reqplan: 1
            inputs: { name: { default: x.csv } }
            defaults: { base_url: "http://127.0.0.1:8080" }
            steps:
              a: { for_each: { path: x.csv }, request: { url: /a } }
              b: { for_each: { file: "${{ inputs.name }}" }, request: { url: /b } }
              c: { for_each: { file: rows.txt }, request: { url: /c } }
              d: { for_each: { file: rows.csv, format: xml }, request: { url: /d } }
              e: { for_each: { file: "" }, request: { url: /e } }
            """
        ])
        #expect(
            Self.lines(files.validate()).map { String($0.prefix(24)) } == [
                "RP0103 main.yaml:5:18 `f", "RP0101 main.yaml:5:20 un", "RP0210 main.yaml:6:26 th",
                "RP0103 main.yaml:7:26 ca", "RP0105 main.yaml:8:44 in", "RP0105 main.yaml:9:26 th",
            ])
    }
}
