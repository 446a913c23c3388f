import Foundation
import ReqPlanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every file reqplan reads because something named it, walked through the hostile kinds of file (HOSTILE.md,
/// "Files named by an input"), end to end with the built binary: a link out of the project, a link to
/// `/proc/self/environ`, a FIFO, `/dev/zero`, a folder and a file that is not UTF-8. Whatever the input, the
/// command ends at once with a plain reason, and nothing behind a link is read or printed.
@Suite("Files named by an input, through the one reader", .timeSensitive)
struct FileInputTests {
    /// The secret beside the project, which no output may show.
    static let secret = "CI_TOKEN=s3cr3t-behind-the-link"

    /// A kind of hostile file, made at `name` inside `project` (whose sibling `outside/` holds the secret).
    enum Hostile: String, CaseIterable, CustomTestStringConvertible {
        case linkOutOfProject, linkToEnviron, fifo, devZero, folder, latin1

        var testDescription: String { rawValue }

        func make(_ name: String, in project: URL) throws {
            let path = project.appendingPathComponent(name).path
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            let depth = name.split(separator: "/").count - 1
            switch self {
            case .linkOutOfProject:
                try FileManager.default.createSymbolicLink(
                    atPath: path,
                    withDestinationPath: String(repeating: "../", count: depth + 1) + "outside/credentials")
            case .linkToEnviron:
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/proc/self/environ")
            case .fifo:
                #expect(mkfifo(path, 0o600) == 0)
            case .devZero:
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
            case .folder:
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            case .latin1:
                try Data([0x6E, 0x61, 0x6D, 0x65, 0x3A, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A]).write(
                    to: URL(fileURLWithPath: path))
            }
        }

        /// Words one of which the reason must hold.
        var reasons: [String] {
            switch self {
            case .linkOutOfProject, .linkToEnviron: return ["outside"]
            case .fifo: return ["named pipe (FIFO)"]
            case .devZero: return ["character device", "outside"]
            case .folder: return ["folder"]
            case .latin1: return ["not UTF-8", "starts no UTF-8 character"]
            }
        }
    }

    /// An input that names a file: the files of the project that name it, the command, and the file's name.
    struct Input: CustomTestStringConvertible, Sendable {
        var testDescription: String
        var files: [String: String]
        var arguments: [String]
        var target: String
        /// Whether the file is sent as bytes (a body): any bytes are then fine, Latin-1 included.
        var isBytes = false
    }

    static let plan = "reqplan: 1\nsteps:\n"
    static let arazzoHead = """
        arazzo: 1.0.1
        info: { title: t, version: "1" }
        sourceDescriptions:

        """

    static let inputs: [Input] = [
        Input(
            testDescription: "a sub-plan",
            files: ["plan.yaml": plan + "  s: { plan: { file: sub/target.yaml } }\n"],
            arguments: ["validate", "plan.yaml"], target: "sub/target.yaml"),
        Input(
            testDescription: "an API description",
            files: [
                "plan.yaml":
                    "reqplan: 1\nopenapi: { api: target.yaml }\nsteps:\n  s: { request: { url: http://127.0.0.1:9/ } }\n"
            ],
            arguments: ["validate", "plan.yaml"], target: "target.yaml"),
        Input(
            testDescription: "a description's $ref",
            files: [
                "plan.yaml":
                    "reqplan: 1\nopenapi: { api: api.yaml }\nsteps:\n  s: { request: { operation: api.list } }\n",
                "api.yaml": """
                openapi: 3.0.3
                info: { title: t, version: "1" }
                paths:
                  /pets:
                    get:
                      operationId: list
                      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "refs/target.yaml" } } } } }

                """,
            ],
            arguments: ["validate", "plan.yaml"], target: "refs/target.yaml"),
        Input(
            testDescription: "an Arazzo OpenAPI source",
            files: [
                "flow.arazzo.yaml": arazzoHead + """
                      - { name: api, url: target.yaml, type: openapi }
                    workflows:
                      - workflowId: w
                        steps:
                          - { stepId: s, operationId: list }

                    """
            ],
            arguments: ["validate", "flow.arazzo.yaml"], target: "target.yaml"),
        Input(
            testDescription: "an Arazzo source document",
            files: [
                "flow.arazzo.yaml": arazzoHead + """
                      - { name: other, url: target.arazzo.yaml, type: arazzo }
                    workflows:
                      - workflowId: w
                        steps:
                          - { stepId: s, workflowId: $sourceDescriptions.other.w }

                    """
            ],
            arguments: ["validate", "flow.arazzo.yaml"], target: "target.arazzo.yaml"),
        Input(
            testDescription: "an environment",
            files: ["plan.yaml": plan + "  s: { request: { url: http://127.0.0.1:9/ } }\n"],
            arguments: ["validate", "plan.yaml", "--env", "staging"], target: "staging.env.yaml"),
        Input(
            testDescription: "a literal body_file",
            files: [
                "plan.yaml": plan
                    + "  s: { request: { method: POST, url: http://127.0.0.1:9/, body_file: data/target.bin } }\n"
            ],
            arguments: ["validate", "plan.yaml"], target: "data/target.bin", isBytes: true),
        Input(
            testDescription: "a body_file computed at run time",
            files: [
                "plan.yaml": """
                reqplan: 1
                inputs: { file: { default: data/target.bin } }
                steps:
                  s: { request: { method: POST, url: "http://127.0.0.1:9/", body_file: "${{ inputs.file }}" } }

                """
            ],
            arguments: ["run", "plan.yaml", "--progress", "none"], target: "data/target.bin", isBytes: true),
        Input(
            testDescription: "a multipart file computed at run time",
            files: [
                "plan.yaml": """
                reqplan: 1
                inputs: { file: { default: data/target.bin } }
                steps:
                  s:
                    request:
                      method: POST
                      url: "http://127.0.0.1:9/"
                      multipart: { f: { file: "${{ inputs.file }}" } }

                """
            ],
            arguments: ["run", "plan.yaml", "--progress", "none"], target: "data/target.bin", isBytes: true),
    ]

    /// The project: `.reqplan` at its root, the input's files, the hostile file at the input's target; the
    /// secret in `outside/credentials` beside it.
    static func project(for input: Input, hostile: Hostile) throws -> URL {
        let top = TestFolders.unique("file-inputs")
        let project = top.appendingPathComponent("project")
        let outside = top.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data((secret + "\n").utf8).write(to: outside.appendingPathComponent("credentials"))
        try Data().write(to: project.appendingPathComponent(".reqplan"))
        for (name, text) in input.files {
            let url = project.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try hostile.make(input.target, in: project)
        return project
    }

    @Test(arguments: inputs, Hostile.allCases)
    func aHostileFileIsRefusedAtOnceAndNothingBehindItShows(_ input: Input, _ hostile: Hostile) async throws {
        let project = try Self.project(for: input, hostile: hostile)
        let result = try await CommandRunner.run(
            input.arguments, in: project, environment: ["CI_TOKEN": "s3cr3t-behind-the-link"], within: .seconds(30))
        let output = result.stdout + result.stderr
        #expect(!result.killedAfterTimeout, "\(input.testDescription) through \(hostile.rawValue) did not end")
        #expect(!result.uncaughtSignal, "\(output)")
        if input.isBytes && hostile == .latin1 {
            // Sent as it is: valid, and the run gets as far as the connection.
            let validates = input.arguments[0] == "validate"
            #expect(result.status == (validates ? 0 : 1), "\(output)")
            #expect(validates || output.contains("refused"), "\(output)")
        } else {
            #expect(result.status == 1 || result.status == 2, "\(output)")
            #expect(hostile.reasons.contains { output.contains($0) }, "\(output)")
        }
        #expect(!output.contains("s3cr3t") && !output.contains("CI_TOKEN"), "\(output)")
    }

    /// A file the user names on the command line may be a link or a pipe (read as `cat` reads it, waiting for
    /// its writer: `RunCommandTests` feeds plans and inputs through one); `/dev/zero`, a folder or a file that is
    /// not UTF-8 ends the command at once, and a link to a file in `/proc` (one committed in place of the file a
    /// CI job names) is refused with nothing behind it shown.
    @Test(arguments: [
        ["validate", "TARGET"], ["run", "plan.yaml", "--inputs-file", "TARGET"],
        ["run", "plan.yaml", "--cookie-jar", "TARGET"], ["report", "merge", "TARGET"],
    ])
    func aFileTheUserNamesNeverBlocks(_ arguments: [String]) async throws {
        for hostile in [Hostile.devZero, .folder, .latin1, .linkToEnviron] {
            let input = Input(
                testDescription: "",
                files: ["plan.yaml": Self.plan + "  s: { request: { url: http://127.0.0.1:9/ } }\n"],
                arguments: [], target: "target")
            let project = try Self.project(for: input, hostile: hostile)
            let result = try await CommandRunner.run(
                arguments.map { $0 == "TARGET" ? "target" : $0 }
                    + (arguments[0] == "run" ? ["--progress", "none"] : []),
                in: project, environment: ["CI_TOKEN": "s3cr3t-behind-the-link"], within: .seconds(30))
            #expect(!result.killedAfterTimeout, "\(arguments) with \(hostile.rawValue) did not end")
            #expect(!result.uncaughtSignal && result.status != 0, "\(arguments) with \(hostile.rawValue): \(result)")
            let output = result.stdout + result.stderr
            #expect(!output.contains("s3cr3t") && !output.contains("CI_TOKEN"), "\(arguments): \(output)")
            if hostile == .linkToEnviron {
                #expect(output.contains("cannot read `target`: it is in /proc"), "\(arguments): \(output)")
            }
        }
    }

    /// A suite's folder is walked for plans: a link among them leads to a file of the same project or is refused.
    @Test(arguments: [Hostile.linkOutOfProject, .linkToEnviron, .devZero])
    func aLinkInASuiteFolderStaysInTheProject(_ hostile: Hostile) async throws {
        let input = Input(
            testDescription: "",
            files: ["suite/ok.yaml": Self.plan + "  s: { request: { url: http://127.0.0.1:9/ } }\n"],
            arguments: [], target: "suite/evil.yaml")
        let project = try Self.project(for: input, hostile: hostile)
        let result = try await CommandRunner.run(
            ["validate", "suite"], in: project, environment: ["CI_TOKEN": "s3cr3t-behind-the-link"],
            within: .seconds(30))
        let output = result.stdout + result.stderr
        #expect(result.status == 1, "\(output)")
        #expect(output.contains("suite/evil.yaml` is a link to"), "\(output)")
        #expect(!output.contains("s3cr3t") && !output.contains("CI_TOKEN"), "\(output)")
    }
}
