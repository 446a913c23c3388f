import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// Which files a suite's arguments stand for (`SuiteFiles`).
@Suite struct SuiteFilesTests {
    /// A temporary folder with these files (relative paths; folders are made on the way), removed after.
    static func withFolder(_ files: [String], _ body: (String) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-suite-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for file in files {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("reqplan: 1\n".utf8).write(to: url)
        }
        try body(root.path)
    }

    @Test func aFolderHoldsItsYamlFilesAtAnyDepthButNamesStartingWithUnderscoreOrDot() throws {
        try Self.withFolder([
            "b.yaml", "a.yml", "sub/c.yaml", "sub/deeper/d.yaml", "_login.yaml", "_shared/e.yaml", ".hidden.yaml",
            ".git/f.yaml", "notes.txt", "data.json", "sub/_partial.yml",
        ]) { root in
            let suite = SuiteFiles([root])
            #expect(suite.files == ["a.yml", "b.yaml", "sub/c.yaml", "sub/deeper/d.yaml"].map { root + "/" + $0 })
            #expect(suite.problems.isEmpty)
        }
    }

    @Test func filesGivenAreTakenWhateverTheirNameAndPathsAreSortedAndDeduplicated() throws {
        try Self.withFolder(["x/b.yaml", "x/a.yaml", "_one.yaml", "plan.txt"]) { root in
            let suite = SuiteFiles([root + "/x", root + "/_one.yaml", root + "/./x/a.yaml", root + "//plan.txt"])
            #expect(suite.files == [root + "/_one.yaml", root + "/plan.txt", root + "/x/a.yaml", root + "/x/b.yaml"])
        }
    }

    @Test func theOrderDoesNotDependOnTheArguments() throws {
        try Self.withFolder(["a/1.yaml", "b/2.yaml", "c.yaml"]) { root in
            let forward = SuiteFiles([root + "/a", root + "/b", root + "/c.yaml"]).files
            let backward = SuiteFiles([root + "/c.yaml", root + "/b", root + "/a"]).files
            #expect(forward == backward && forward.count == 3)
        }
    }

    @Test func aFolderWithoutPlansIsAnError() throws {
        try Self.withFolder(["only/_sub.yaml", "only/readme.md"]) { root in
            let suite = SuiteFiles([root + "/only"])
            #expect(suite.files.isEmpty)
            #expect(suite.problems.map(\.code) == [.noPlans])
            #expect(suite.problems.first?.message == "no plan files in `\(root)/only`")
            let reports = PlanValidator.validate(suite: suite)
            #expect(reports.count == 1 && reports[0].errorCount == 1)
        }
    }

    @Test func aMissingPathIsKeptSoReadingItSaysWhy() {
        let suite = SuiteFiles(["no/such/plan.yaml"])
        #expect(suite.files == ["no/such/plan.yaml"])
        let reports = PlanValidator.validate(suite: suite)
        #expect(reports.first?.diagnostics.first?.code == .unreadableFile)
    }
}
