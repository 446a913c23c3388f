import Foundation
import ReqPlanTestSupport
import Testing

/// Public API descriptions as their providers publish them (`Tests/Fixtures/openapi/real/`, sources and
/// licences in its `NOTICE.md`): split over hundreds of files, Swagger 2.0, large single files in JSON
/// and YAML, OpenAPI 3.1 type lists, `{id}.{format}` paths, form bodies. For each, with the built binary:
/// its correct plan validates with no error; its plan of planted mistakes gets exactly the errors its
/// `# expect: RPxxxx` comments name, each on its line, in one `validate` run; and the correct plan runs
/// against a mock that serves the description's examples (`scripts/openapi-mock.py`, started once per
/// description), with response checks on.
@Suite("Real API descriptions: validate, planted mistakes, a run against a mock")
struct RealDescriptionTests {
    struct API: Sendable, CustomTestStringConvertible {
        var folder: String
        var description: String
        /// The path of the description's server URL, which the mock serves below.
        var prefix: String
        var testDescription: String { folder }
    }

    static let apis: [API] = [
        API(folder: "lob", description: "lob-api-public.yml", prefix: "/v1"),
        API(folder: "redmine", description: "openapi.yaml", prefix: ""),
        API(folder: "slack", description: "slack_web_openapi_v2.json", prefix: "/api"),
        API(folder: "netlify", description: "swagger.yml", prefix: "/api/v1"),
        API(folder: "box", description: "openapi.json", prefix: "/2.0"),
        API(folder: "asana", description: "asana_oas.yaml", prefix: "/api/1.0"),
        API(folder: "discord", description: "openapi.json", prefix: "/api/v10"),
        API(folder: "openai", description: "openapi.yaml", prefix: "/v1"),
        API(folder: "mistral", description: "openapi.yaml", prefix: ""),
    ]

    static let root = CommandRunner.packageRoot.appendingPathComponent("Tests/Fixtures/openapi/real")

    @Test("every description in the folder is in the list")
    func everyDescriptionIsTested() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.root.path).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: Self.root.appendingPathComponent($0).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        #expect(Set(folders) == Set(Self.apis.map(\.folder)))
        #expect(Self.apis.count >= 8)
    }

    @Test(
        "the correct plan validates, each planted mistake is caught on its line, the plan runs against a mock",
        .serialized, arguments: apis)
    func validatesCatchesAndRuns(_ api: API) async throws {
        let folder = Self.root.appendingPathComponent(api.folder)
        // Validating a large description in a debug build, and starting its mock, take seconds: done off
        // the cooperative threads, which other tests' in-process servers need meanwhile.
        let validated = try await offCooperativePool {
            try CommandRunner.run(["validate", "--color", "never", "plan.yaml", "mistakes.yaml"], in: folder)
        }
        let found = Self.errors(in: validated.stdout + validated.stderr)
        #expect(found["plan.yaml", default: []].isEmpty, "\(api.folder)/plan.yaml:\n\(validated.stdout)")
        let expected = try Self.expectedErrors(folder.appendingPathComponent("mistakes.yaml"))
        #expect(expected.count >= 4)
        #expect(
            found["mistakes.yaml", default: []].sorted() == expected.sorted(),
            "\(api.folder)/mistakes.yaml:\n\(validated.stdout)")

        let run = try await offCooperativePool {
            let mock = try MockServer(description: folder.appendingPathComponent(api.description))
            defer { mock.stop() }
            return try CommandRunner.run(
                [
                    "run", "--color", "never", "plan.yaml", "--input",
                    "base_url=http://127.0.0.1:\(mock.port)\(api.prefix)",
                ],
                in: folder)
        }
        #expect(run.status == 0, "\(api.folder)/plan.yaml against the mock:\n\(run.stdout)\n\(run.stderr)")
    }

    /// `RPxxxx@line` of each error, by file name, from `validate`'s text output.
    static func errors(in output: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var pending: String?
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("error[RP"), let close = line.firstIndex(of: "]") {
                pending = String(line[line.index(line.startIndex, offsetBy: 6)..<close])
                continue
            }
            if line.hasPrefix("warning[") { pending = nil }
            guard let code = pending, let arrow = line.range(of: "--> ") else { continue }
            let place = line[arrow.upperBound...].split(separator: ":")
            guard place.count >= 2 else { continue }
            let file = URL(fileURLWithPath: String(place[0])).lastPathComponent
            result[file, default: []].append("\(code)@\(place[1])")
            pending = nil
        }
        return result
    }

    /// `RPxxxx@line` for each `# expect: RPxxxx` comment of a plan.
    static func expectedErrors(_ plan: URL) throws -> [String] {
        let text = try String(contentsOf: plan, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            guard let marker = line.range(of: "# expect: ") else { return nil }
            return "\(line[marker.upperBound...].trimmingCharacters(in: .whitespaces))@\(index + 1)"
        }
    }
}

/// `scripts/openapi-mock.py` serving one description on a free loopback port, until `stop()` closes its
/// standard input.
private final class MockServer {
    let port: Int
    private let process: Process
    private let input: Pipe

    init(description: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", CommandRunner.packageRoot.appendingPathComponent("scripts/openapi-mock.py").path,
            description.path,
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        self.process = process
        self.input = input
        // The first line is `listening on PORT` (the description is read before it).
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).split(separator: " ").last ?? "") else {
            process.terminate()
            throw MockError(message: "the mock for \(description.lastPathComponent) did not start")
        }
        self.port = port
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    struct MockError: Error {
        var message: String
    }
}
