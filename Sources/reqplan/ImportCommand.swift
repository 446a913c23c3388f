import ArgumentParser
import Foundation
import ReqPlanImport
import ReqPlanPipeline
import ReqPlanSyntax

#if canImport(Glibc)
    import Glibc
#endif

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write a plan from curl command lines, a HAR file or a collection, with the data flow found.",
        discussion: """
            FORMAT is `curl` (command lines: a script, a README snippet) or `har` (HAR 1.2: a browser's network \
            panel, or `reqplan run --report har:`) `postman` (a Collection v2.0 or v2.1, with environment files \
            for its variables), `insomnia` (an export v4, JSON or YAML), `bruno` (a collection's folder, of `.bru` \
            files or OpenCollection YAML, or one `.yml` file of a whole collection), `hurl` (`.hurl` files) or \
            `openapi` (an OpenAPI 3.x or Swagger 2.0 description: a starter plan of its operations, bound with \
            `operation:`, with `--by tag` a plan per tag in the folder `-o` names). What is not converted is said \
            on standard error and in comments of the plan. See docs/import.md.
            """
    )

    @Argument(help: "The source format: curl, har, postman, insomnia, bruno, hurl or openapi.")
    var format: String

    @Argument(help: "Files to read, in order (`-` for standard input).")
    var files: [String]

    @Option(name: .shortAndLong, help: "Write the plan to this file (whole or not at all) instead of standard output.")
    var output: String?

    @Flag(help: "HAR: keep requests for images, fonts, style sheets and scripts.")
    var includeStatic = false

    @Option(
        help: "OpenAPI: one plan of every operation (`operation`), or a plan per tag (`tag`, into the folder `-o`).")
    var by: OpenAPIImportGrouping = .operation

    @Option(name: .customLong("tag"), help: "OpenAPI: only the operations with this tag (repeatable).")
    var tags: [String] = []

    @Option(help: "Color: auto, always or never.")
    var color: ColorChoice = .auto

    func run() throws {
        if format.lowercased() == "openapi" { return try importOpenAPI() }
        guard by == .operation, tags.isEmpty else {
            throw ValidationError("`--by` and `--tag` are options of `reqplan import openapi`")
        }
        guard let format = ImportFormat(rawValue: format.lowercased()) else {
            throw ValidationError(
                "unknown format `\(format)`; one of: "
                    + (ImportFormat.allCases.map(\.rawValue) + ["openapi"]).joined(separator: ", "))
        }
        if let output, let clash = files.first(where: { Self.sameFile($0, output) }) {
            throw ValidationError("`-o \(output)` is the input `\(clash)`: it would be overwritten")
        }
        var sources: [SourceFile] = []
        var failures: [Diagnostic] = []
        for file in files {
            if format == .bruno {
                // A collection is a folder: its files, read within it.
                let folder = CollectionFolder.read(atPath: file)
                sources += folder.sources
                failures += folder.diagnostics
                continue
            }
            switch Importer.readSource(atPath: file) {
            case .success(let source): sources.append(source)
            case .failure(let diagnostic): failures.append(diagnostic)
            }
        }
        let renderer = { (result: [SourceFile]) in
            DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: result)
        }
        guard failures.isEmpty else {
            writeError(renderer(sources).text(failures) + "\n")
            throw ExitCode(1)
        }
        let result = Importer.importPlan(format, from: sources, options: ImportOptions(includeStatic: includeStatic))
        if !result.diagnostics.isEmpty { writeError(renderer(result.sources).text(result.diagnostics) + "\n") }
        guard let text = result.text else { throw ExitCode(1) }
        try CommandOutput.write(text, to: output)
    }

    /// `reqplan import openapi DESCRIPTION`: one plan (to `-o` or standard output), or with `--by tag` a plan
    /// per tag in the folder `-o` names.
    private func importOpenAPI() throws {
        guard files.count == 1, let description = files.first, description != "-" else {
            throw ValidationError("`reqplan import openapi` reads one description, from a file")
        }
        if by == .tag && output == nil {
            throw ValidationError("`--by tag` writes a plan per tag: name their folder with `-o`")
        }
        if by == .operation, let output, Self.sameFile(description, output) {
            throw ValidationError("`-o \(output)` is the input `\(description)`: it would be overwritten")
        }
        let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: [])
        let result = Pipeline().importOpenAPI(
            fileAt: description, writingTo: output, options: OpenAPIImportOptions(grouping: by, tags: tags))
        let plans: [OpenAPIImportedPlan]
        switch result {
        case .failure(let diagnostic):
            writeError(renderer.text([diagnostic]) + "\n")
            throw ExitCode(1)
        case .success(let written): plans = written
        }
        let diagnostics = plans.flatMap(\.diagnostics)
        if !diagnostics.isEmpty { writeError(renderer.text(diagnostics) + "\n") }
        guard by == .tag, let output else {
            try CommandOutput.write(plans.first?.text ?? "", to: output)
            return
        }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        for plan in plans {
            let path = (output as NSString).appendingPathComponent(plan.fileName)
            if Self.sameFile(description, path) {
                throw ValidationError("`\(path)` is the input `\(description)`: it would be overwritten")
            }
            try CommandOutput.write(plan.text, to: path)
            writeError("wrote \(path)\n")
        }
    }

    /// Whether `path` and `other` name one file (the same inode), or the same path when neither exists yet.
    static func sameFile(_ path: String, _ other: String) -> Bool {
        guard path != "-" else { return false }
        var first = stat()
        var second = stat()
        if stat(path, &first) == 0 && stat(other, &second) == 0 {
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        return URL(fileURLWithPath: path).standardizedFileURL == URL(fileURLWithPath: other).standardizedFileURL
    }
}

extension OpenAPIImportGrouping: ExpressibleByArgument {}
