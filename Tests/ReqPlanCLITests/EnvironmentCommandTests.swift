import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// What the command line says about the values a run would have: an optional input left null by an unset
/// environment variable (validate warns, run names it in the failure), and an environment file (`--env`).
@Suite(.timeSensitive) struct EnvironmentCommandTests {
    /// The variable the plan reads; never set where the tests run.
    static let variable = "REQPLAN_TEST_UNSET_TOKEN_7F3A"

    static let plan = """
        reqplan: 1
        inputs:
          base_url: { type: string }
          token: { env: \(variable), secret: true }
        defaults:
          base_url: "${{ inputs.base_url }}"
          auth: { bearer: "${{ inputs.token }}" }
        steps:
          me: { request: { url: /bearer } }

        """

    /// A bearer token from an unset variable sent `Authorization: Bearer ` and a 401 that nothing explained.
    @Test func anUnsetOptionalVariableIsAWarningOfValidateAndANoteOfTheFailedStep() async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let validate = try await CommandRunner.run(
            ["validate", "--strict", "--color", "never", file.path], within: .seconds(30))
        #expect(validate.status == 1)
        #expect(
            validate.stdout.contains(
                "warning[RP0905]: `auth` reads input `token`, which is null: the environment variable "
                    + "`\(Self.variable)` is not set"), "\(validate.stdout)")
        #expect(validate.stdout.contains("plan.yaml:7:24"), "\(validate.stdout)")

        try await DemoAPI.withServer { base in
            let run = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)", "--progress", "none", "--color", "never"],
                within: .seconds(30))
            #expect(run.status == 1)
            #expect(run.stderr.contains("expected status 2xx, got 401"), "\(run.stderr)")
            #expect(
                run.stderr.contains(
                    "note: the request used input `token`, which was null: the environment variable "
                        + "`\(Self.variable)` is not set"
                ),
                "\(run.stderr)")
        }
    }

    /// `validate --env NAME` checks the project's environment file against the plan: a name the plan does
    /// not declare fails only with `--strict`, located at its key.
    @Test func validateChecksAnEnvironmentFileOfTheProject() async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        let folder = file.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "".write(to: folder.appendingPathComponent(".reqplan"), atomically: true, encoding: .utf8)
        try "base_url: http://127.0.0.1:1\ntoken: t\nshared_by_another_plan: 1\n".write(
            to: folder.appendingPathComponent("staging.env.yaml"), atomically: true, encoding: .utf8)
        let lenient = try await CommandRunner.run(
            ["validate", "--env", "staging", "--color", "never", file.path], within: .seconds(30))
        #expect(lenient.status == 0, "\(lenient.stdout)\(lenient.stderr)")
        #expect(!lenient.stdout.contains("RP0905"), "the environment gives `token`")
        let strict = try await CommandRunner.run(
            ["validate", "--strict", "--env", "staging", "--color", "never", file.path], within: .seconds(30))
        #expect(strict.status == 1)
        #expect(
            strict.stdout.contains("warning[RP0904]: the inputs file sets `shared_by_another_plan`"), "\(strict.stdout)"
        )
        #expect(strict.stdout.contains("staging.env.yaml:3:1"), "\(strict.stdout)")
        let missing = try await CommandRunner.run(["validate", "--env", "prod", file.path], within: .seconds(30))
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no environment `prod`"), "\(missing.stderr)")
        #expect(missing.stderr.contains("environments there: `staging`"), "\(missing.stderr)")
    }

    /// An environment's name is a file name in the project's root, not a path: `--env ../elsewhere/prod`
    /// would read another project's `prod.env.yaml` and its `base_url` with it.
    @Test(arguments: ["../elsewhere/prod", "a/b", "a\\b", "..", "", ".", "new\nline"])
    func anEnvironmentNameThatIsAPathIsRefused(_ name: String) async throws {
        let top = TestFolders.unique("env-names")
        let project = top.appendingPathComponent("project")
        let elsewhere = top.appendingPathComponent("elsewhere")
        for folder in [project, elsewhere] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data().write(to: folder.appendingPathComponent(".reqplan"))
        }
        try Data("base_url: http://attacker.example\n".utf8).write(
            to: elsewhere.appendingPathComponent("prod.env.yaml"))
        try Data(Self.plan.utf8).write(to: project.appendingPathComponent("plan.yaml"))
        for command in ["validate", "run"] {
            let result = try await CommandRunner.run(
                [command, "plan.yaml", "--env", name] + (command == "run" ? ["--progress", "none"] : []),
                in: project, within: .seconds(30))
            #expect(result.status == 64, "\(command) --env \(name): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("is not an environment name"), "\(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("attacker"), "\(result.stdout)\(result.stderr)")
        }
    }
}
