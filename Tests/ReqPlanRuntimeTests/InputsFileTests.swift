import Foundation
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax
import Testing

/// Inputs files and environments: one file serves a suite of plans, values are type-checked where they
/// are written, and the file is read under the limits of plans (size, aliases, depth).
@Suite struct InputsFileTests {
    /// A folder of files, removed by `remove()`.
    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-inputs-\(UUID().uuidString)")

        init(_ files: [String: String]) throws {
            for (name, text) in files {
                let file = url.appendingPathComponent(name)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: file, atomically: true, encoding: .utf8)
            }
        }

        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    /// Ten levels of ten aliases: a few hundred bytes that expand to 10^10 values.
    static let aliasBomb: String = {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<10 {
            text +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        return text
    }()

    static func plan(_ inputs: String) -> String {
        "reqplan: 1\ninputs: { \(inputs) }\nsteps:\n  s: { request: { url: 'http://127.0.0.1:1/' } }\n"
    }

    @Test func anAliasBombInputsFileIsRefusedWithALocatedError() async throws {
        let folder = try Folder(["plan.yaml": Self.plan("a0: { type: list }"), "bomb.yaml": Self.aliasBomb])
        defer { folder.remove() }
        let outcome = await PlanRun.prepare(
            path: folder.path("plan.yaml"), limits: ParseLimits(), overrides: [],
            inputsFile: folder.path("bomb.yaml"), environment: [:])
        guard case .failure(let failure) = outcome else {
            Issue.record("an alias bomb was accepted as an inputs file")
            return
        }
        #expect(failure.diagnostics.map(\.code) == [.aliasExpansion])
        let diagnostic = try #require(failure.diagnostics.first)
        #expect(diagnostic.file == folder.path("bomb.yaml"))
        #expect(diagnostic.message == "the inputs file expands to more than 1000000 YAML nodes through aliases")
        #expect(diagnostic.range != nil)
        #expect(failure.sources.map(\.path) == [folder.path("bomb.yaml")])
    }

    @Test func aValueNestedPastTheDepthLimitIsRefusedWhereItIs() throws {
        let deep = "x: " + String(repeating: "[", count: 20) + String(repeating: "]", count: 20) + "\n"
        let folder = try Folder(["deep.yaml": deep])
        defer { folder.remove() }
        let read = InputsFile.read(atPath: folder.path("deep.yaml"), limits: ParseLimits(maxDepth: 10))
        guard case .failure(let failure) = read else {
            Issue.record("a value 20 levels deep was read under a limit of 10")
            return
        }
        #expect(failure.diagnostic.code == .nestedTooDeep)
        #expect(failure.diagnostic.range?.start == SourceLocation(line: 1, column: 13))
    }

    /// One environment file for a suite whose plans declare different inputs, and a name neither declares.
    @Test func oneEnvironmentServesASuiteOfPlansDeclaringDifferentInputs() async throws {
        let folder = try Folder([
            ".reqplan": "",
            "staging.env.yaml": "user: ada\nretries: 3\nunused_elsewhere: true\n",
            "plans/users.yaml": Self.plan("user: { type: string }"),
            "plans/jobs.yaml": Self.plan("retries: { type: number }"),
        ])
        defer { folder.remove() }
        let suite = SuiteFiles([folder.path("plans")])
        #expect(suite.files.count == 2)
        let outcome = SuiteRun.prepare(
            suite, limits: ParseLimits(), overrides: [], inputsFile: nil, environmentName: "staging",
            environment: [:])
        guard case .success(let plans) = outcome else {
            if case .failure(let failure) = outcome { Issue.record("\(failure.diagnostics)") }
            return
        }
        #expect(plans.map(\.inputs.values) == [["retries": .int(3)], ["user": .string("ada")]])
        // One plan alone takes the same file (it declared nothing else: RP0501 for each other name, before).
        let single = await PlanRun.prepare(
            path: folder.path("plans/users.yaml"), limits: ParseLimits(), overrides: [],
            inputsFile: folder.path("staging.env.yaml"), environment: [:])
        #expect((try? single.get())?.inputs.values == ["user": .string("ada")])
        // The folder's environment file is not a plan of the suite.
        #expect(!SuiteFiles([folder.url.path]).files.contains { $0.hasSuffix(".env.yaml") })
    }

    @Test func aValueOfTheWrongTypeIsLocatedInTheInputsFile() throws {
        let folder = try Folder([
            "plan.yaml": Self.plan("retries: { type: number }"), "in.yaml": "# staging\nretries: three\n",
        ])
        defer { folder.remove() }
        let files = try InputsFile.read(atPath: folder.path("in.yaml"), limits: ParseLimits()).get()
        let plan = try #require(PlanValidator.validate(fileAt: folder.path("plan.yaml")).plan)
        let diagnostics = files.diagnostics(for: [plan])
        #expect(diagnostics.map(\.code) == [.invalidInput])
        #expect(diagnostics.first?.file == folder.path("in.yaml"))
        #expect(diagnostics.first?.range?.start == SourceLocation(line: 2, column: 10))
        #expect(diagnostics.first?.message == "input `retries` must be a number, but the inputs file gives a string")
    }

    /// A name no plan declares is a warning of `validate` only: `--strict` fails on it, a run ignores it.
    @Test func anUndeclaredNameIsAWarningAtItsKey() throws {
        let folder = try Folder(["plan.yaml": Self.plan("user: { type: string }"), "in.yaml": "user: ada\nusr: bob\n"])
        defer { folder.remove() }
        let inputs = try InputsFile.read(atPath: folder.path("in.yaml"), limits: ParseLimits()).get()
        let reports = PlanValidator.checkRunValues(
            [PlanValidator.validate(fileAt: folder.path("plan.yaml"))], inputs: [inputs], environment: [:])
        let warning = try #require(reports.first?.diagnostics.first)
        #expect(warning.code == .undeclaredInputsFileKey)
        #expect(warning.severity == .warning)
        #expect(warning.range?.start == SourceLocation(line: 2, column: 1))
        #expect(warning.hint == "did you mean `user`?")
        #expect(reports.first?.isValid(strict: false) == true)
        #expect(reports.first?.isValid(strict: true) == false)
    }

    /// A cookie file is held to the size limit of every file reqplan reads (it was read whole).
    @Test func aCookieFileLargerThanTheLimitIsRefusedNamingIt() throws {
        let line = "example.com\tFALSE\t/\tFALSE\t0\tsession\t" + String(repeating: "v", count: 100) + "\n"
        let folder = try Folder(["cookies.txt": String(repeating: line, count: 30)])
        defer { folder.remove() }
        var configuration = HTTPClientTransport.Configuration()
        do {
            try configuration.apply(
                ConnectionOptions(
                    cookieJar: folder.path("cookies.txt"),
                    limits: ParseLimits(maxFileSize: 1000, sizeSetting: "--max-plan-size")),
                environment: [:])
            Issue.record("a cookie file over the limit was read")
        } catch {
            #expect(
                error.diagnostics.first?.message
                    == "the cookie jar cannot be read: the cookie file is larger than the limit of 1000 bytes")
            #expect(error.diagnostics.first?.hint == "split the cookie file, or raise the limit with --max-plan-size")
        }
    }

    /// An alias bomb given as a cookie file is refused at its first line, with the line shown.
    @Test func anAliasBombCookieFileIsRefusedAtItsFirstLine() throws {
        let folder = try Folder(["cookies.txt": Self.aliasBomb])
        defer { folder.remove() }
        var configuration = HTTPClientTransport.Configuration()
        do {
            try configuration.apply(ConnectionOptions(cookieJar: folder.path("cookies.txt")), environment: [:])
            Issue.record("an alias bomb was read as a cookie file")
        } catch {
            #expect(error.diagnostics.first?.range?.start == SourceLocation(line: 1, column: 1))
            #expect(error.sources.map(\.path) == [folder.path("cookies.txt")])
        }
    }
}
