import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPlanner

/// A plan reads files anywhere in its project (the folder above it holding `.git` or `.reqplan`), and
/// nothing outside it unless allowed.
@Suite struct ProjectRootTests {
    static let login = "reqplan: 1\nsteps:\n  login: { request: { url: 'http://127.0.0.1:1/login' } }\n"

    @Test(arguments: [".reqplan", ".git/HEAD"])
    func aSubPlanInASiblingFolderOfTheProjectIsReadWithoutAllowingFilesOutside(marker: String) throws {
        let files = try PlanFiles([
            "project/\(marker)": "",
            "project/shared/login.yaml": Self.login,
            "project/plans/api/main.yaml": "reqplan: 1\nsteps:\n  login: { plan: { file: ../../shared/login.yaml } }\n",
        ])
        defer { files.remove() }
        let report = files.validate("project/plans/api/main.yaml")
        #expect(report.errorCount == 0, "\(files.render(report))")
        #expect(report.includedFiles == ["project/shared/login.yaml"])
    }

    @Test func aFileOutsideTheProjectIsStillRefused() throws {
        let files = try PlanFiles([
            "project/.reqplan": "",
            "outside/login.yaml": Self.login,
            "project/plans/main.yaml": "reqplan: 1\nsteps:\n  login: { plan: { file: ../../outside/login.yaml } }\n",
        ])
        defer { files.remove() }
        let report = files.validate("project/plans/main.yaml")
        #expect(report.diagnostics.map(\.code) == [.fileOutsideFolder], "\(files.render(report))")
        #expect(
            report.diagnostics.first?.message
                == "sub-plan file `../../outside/login.yaml` is outside the plan's project")
        #expect(files.validate("project/plans/main.yaml", allowOutside: true).errorCount == 0)
    }

    @Test func theNearestMarkedFolderIsTheRoot() throws {
        let files = try PlanFiles(["a/.git/HEAD": "", "a/b/.reqplan": "", "a/b/c/plan.yaml": Self.login])
        defer { files.remove() }
        let boundary = FileBoundary(planFile: files.path("a/b/c/plan.yaml"))
        #expect(boundary.isProject)
        #expect(boundary.root == URL(fileURLWithPath: files.path("a/b")).resolvingSymlinksInPath().path)
    }
}
