import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// Plan files written to a fresh temporary folder, to validate from disk as `reqplan validate` does.
public struct PlanFiles {
    /// The folder the files are in.
    public let folder: URL

    /// Writes each file (path relative to the folder → text), creating sub-folders.
    public init(_ files: [String: String]) throws {
        folder = TestFolders.unique("reqplan-subplans")
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    /// The path of the file `name` in the folder.
    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Removes the folder.
    public func remove() { try? FileManager.default.removeItem(at: folder) }

    /// Validates `name`, with diagnostics naming files relative to the folder.
    public func validate(_ name: String = "main.yaml", library: PlanLibrary = PlanLibrary(), allowOutside: Bool = false)
        -> ValidationReport
    {
        PlanValidator.validate(fileAt: path(name), displayPath: name, allowFilesOutside: allowOutside, library: library)
    }

    /// The graph of `name`, recording the diagnostics as an issue when it has errors.
    public func graph(_ name: String = "main.yaml") throws -> PlanGraph {
        let report = validate(name)
        #expect(report.errorCount == 0, "\(render(report))")
        return try #require(report.graph)
    }

    /// The report's diagnostics as `validate` shows them, for a failing expectation's message.
    public func render(_ report: ValidationReport) -> String {
        DiagnosticRenderer(files: report.sources).text(report.diagnostics)
    }
}

extension PlanFiles {
    /// A sub-plan with one required input, a defaulted one, a sequence and two outputs.
    public static let loginPlan = """
        reqplan: 1
        inputs:
          user:
          remember: { type: boolean, default: false }
        defaults: { base_url: "http://127.0.0.1:8080" }
        steps:
          flow:
            sequence:
              form: { request: { url: /login-form } }
              submit: { request: { method: POST, url: /login, json: { user: "${{ inputs.user }}", remember: "${{ inputs.remember }}" } } }
        outputs:
          token: { value: "${{ steps.submit.body.token }}", secret: true }
          user: ${{ inputs.user }}
        """

    /// A plan with vars: one read by the defaults and a URL, one reading a step's body, one reading another var.
    public static let varsPlan = """
        reqplan: 1
        defaults: { base_url: "http://127.0.0.1:8080", headers: { X-Api: "${{ vars.api }}" } }
        inputs:
          base: { default: /v2 }
        vars:
          api: "${{ inputs.base }}/api"
          token: ${{ steps.login.body.token }}
          bearer: "Bearer ${{ vars.token }}"
        steps:
          login: { request: { method: POST, url: /login } }
          other: { request: { url: /other } }
          me: { request: { url: "${{ vars.api }}/me", headers: { Authorization: "${{ vars.bearer }}" } } }
        outputs:
          bearer: ${{ vars.bearer }}
        """
}
