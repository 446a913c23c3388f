import Foundation
@testable import ReqPlanSyntax
import Testing

/// `reqplan schema`: the JSON Schema of the plan format, checked with a real validator (python3's
/// `jsonschema`, see `Schema/check_schema.py`) against the example plans, the golden corpus of invalid
/// plans and small plans judged by the parser too. The cases and what is expected of each are fixtures
/// (`Tests/Fixtures/schema/`, `SchemaFixtures`).
@Suite(.serialized) struct SchemaTests {
    @Test func schemaCommandPrintsAValidDraft202012Schema() throws {
        let result = try CommandRunner.run(["schema"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == PlanSchema.json)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect(object?["$id"] as? String == "https://reqplan.dev/schema/plan-1.json")
        #expect((object?["title"] as? String)?.isEmpty == false)

        let report = try SchemaChecker.check([])
        #expect(report.schema.valid, "not a valid draft 2020-12 schema: \(report.schema.error ?? "")")
    }

    @Test func schemaAcceptsEveryExamplePlan() throws {
        let plans = try CommandRunner.allExamplePlans()
        #expect(plans.count >= 6)
        let report = try SchemaChecker.check(plans)
        #expect(report.files.count == plans.count)
        for file in report.files {
            #expect(file.loaded, "\(file.path) does not load: \(file.loadError ?? "")")
            #expect(file.valid == true, "\(file.path) is rejected: \(file.errorSummary)")
        }
    }

    // MARK: - The golden corpus (`Tests/Fixtures/schema/corpus-cases.yaml`)

    @Test func everyCorpusCaseIsClassifiedOnce() throws {
        let folder = CommandRunner.packageRoot.appendingPathComponent("Tests/Corpus/invalid")
        let cases = Set(
            try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(".yaml".count)) })
        #expect(cases.count >= 84)
        let table = try SchemaFixtures.corpusCases()
        let rejected = Set(table.rejectedBySchema.keys)
        #expect(Set(table.notDecidable).count == table.notDecidable.count, "a case is in two lists of reasons")
        let undecidable = Set(table.notDecidable)
        #expect(rejected.isDisjoint(with: undecidable), "in both lists: \(rejected.intersection(undecidable).sorted())")
        #expect(
            cases.subtracting(rejected).subtracting(undecidable).isEmpty,
            "corpus cases to classify: \(cases.subtracting(rejected).subtracting(undecidable).sorted())")
        #expect(
            rejected.union(undecidable).subtracting(cases).isEmpty,
            "classified cases not in the corpus: \(rejected.union(undecidable).subtracting(cases).sorted())")
    }

    @Test func schemaAgreesWithTheParserOnTheCorpus() throws {
        let table = try SchemaFixtures.corpusCases()
        // The cases not loaded are not given to the checker.
        let checked =
            table.rejectedBySchema.keys.sorted() + table.yamlSyntax.keys.sorted() + table.beyondSchema.keys.sorted()
        let results = Dictionary(
            uniqueKeysWithValues: try SchemaChecker.check(checked.map(Self.corpusPath)).files.map { ($0.path, $0) })

        for (name, expected) in table.rejectedBySchema {
            guard let file = results[Self.corpusPath(name)] else {
                Issue.record("no result for \(name)")
                continue
            }
            #expect(file.loaded, "\(name) does not load: \(file.loadError ?? "")")
            #expect(file.valid == false, "\(name) (\(expected.why)) is accepted by the schema")
            let locations = Set(file.errors.map(\.path))
            for path in expected.at {
                #expect(
                    locations.contains(path),
                    "\(name): no schema error at \(path) (\(expected.why)); errors: \(file.errorSummary)")
            }
        }
        for name in table.notLoaded.keys {
            #expect(results[Self.corpusPath(name)] == nil)
        }
        for (name, why) in table.yamlSyntax {
            #expect(results[Self.corpusPath(name)]?.loaded == false, "\(name) (\(why)) loads as YAML")
        }
        for (name, why) in table.beyondSchema {
            // The schema must not be stricter than the parser: the plan's only problems are beyond it.
            let file = results[Self.corpusPath(name)]
            #expect(file?.loaded == true, "\(name) does not load: \(file?.loadError ?? "")")
            #expect(file?.valid == true, "\(name) (\(why)) is rejected by the schema: \(file?.errorSummary ?? "")")
        }
    }

    static func corpusPath(_ name: String) -> String { "Tests/Corpus/invalid/\(name).yaml" }

    // MARK: - The parser's own tables

    @Test func everyKeyOfTheParsersTablesHasOneSchemaEntry() {
        #expect(PlanSchema.problems == [], "add the key's entry beside its table in Sources/ReqPlanSyntax/Schema/")
    }

    @Test func aKeyAddedToATableWithoutAnEntryIsReported() throws {
        var builder = SchemaBuilder()
        let object = builder.closedObject(
            "a test mapping", ["type": "object"], keys: ["first", "added"],
            properties: ["first": ["type": "string"], "stale": ["type": "string"]])
        #expect(
            builder.problems == [
                "`added` of a test mapping is in the parser's key table but has no schema entry",
                "`stale` of a test mapping has a schema entry but is not in the parser's key table",
            ])
        // The properties follow the table; unknown keys are refused and `<<` merges let through, once for all.
        let printed = try #require(
            JSONSerialization.jsonObject(with: Data(object.printed().utf8)) as? [String: Any])
        #expect(Set((printed["properties"] as? [String: Any] ?? [:]).keys) == ["first", "added"])
        #expect(printed["additionalProperties"] as? Bool == false)
        #expect((printed["patternProperties"] as? [String: Any])?["^<<$"] != nil)
    }

    @Test func keysAndWordsAreTheParsersOwn() throws {
        let object = try JSONSerialization.jsonObject(with: Data(PlanSchema.json.utf8)) as? [String: Any]
        let schema = try #require(object)
        let defs = try #require(schema["$defs"] as? [String: Any])
        func keys(_ node: Any?) -> Set<String> {
            guard let properties = (node as? [String: Any])?["properties"] as? [String: Any] else { return [] }
            return Set(properties.keys)
        }
        func def(_ name: String) -> [String: Any]? { defs[name] as? [String: Any] }
        func words(_ name: String) -> Set<String> {
            Set((def(name)?["enum"] as? [Any] ?? []).compactMap { $0 as? String })
        }

        #expect(keys(schema) == Set(PlanReader.planKeys))
        #expect(keys(def("inputDeclaration")) == Set(PlanReader.inputKeys))
        #expect(keys(def("defaults")) == Set(PlanReader.defaultsKeys))
        #expect(keys(def("step")) == Set(PlanReader.allStepKeys))
        #expect(keys(def("subPlan")) == Set(PlanReader.subPlanKeys))
        #expect(keys(def("outputDeclaration")) == Set(PlanReader.outputKeys))
        #expect(keys(def("slo")?["items"]) == Set(PlanReader.sloKeys))
        #expect(keys(def("request")) == Set(PlanReader.requestKeys))
        let bodies = try #require(def("request")?["dependentSchemas"] as? [String: Any])
        #expect(Set(bodies.keys) == Set(PlanReader.bodyKeys))
        #expect(keys(def("multipartPartMapping")) == Set(PlanReader.multipartKeys))
        #expect(keys(def("auth")) == Set(PlanReader.authKeys))
        #expect(keys(def("basicAuth")) == Set(PlanReader.basicAuthKeys))
        #expect(keys(def("retryPolicy")) == Set(PlanReader.retryKeys))
        #expect(keys(def("poll")) == Set(PlanReader.pollKeys))
        #expect(keys((def("pollInterval")?["anyOf"] as? [Any])?.last) == Set(PlanReader.pollIntervalKeys))
        #expect(keys(def("expect")) == Set(PlanReader.expectKeys))
        #expect(keys(def("matcherChecks")) == Set(PlanReader.matcherKeys))
        #expect(words("method") == Set(HTTPMethodName.allCases.map(\.rawValue)))
        #expect(words("onFailure") == Set(FailurePolicy.allCases.map(\.rawValue)))
        #expect(words("valueType") == Set(ValueType.allCases.map(\.rawValue)))
        #expect(words("retryCondition") == Set(RetryCondition.allCases.map(\.rawValue)))
        #expect(
            (schema["properties"] as? [String: Any]).flatMap { ($0["reqplan"] as? [String: Any])?["const"] as? Int }
                == PlanParser.supportedVersions.first)
    }

    // MARK: - Small plans judged by both (`Tests/Fixtures/schema/small-plans.yaml`)

    @Test func schemaAndParserAgreeOnSmallPlans() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The files the edge cases name literally (`validate` checks that they exist).
        try Data().write(to: directory.appendingPathComponent("f"))
        try Data(
            "reqplan: 1\ninputs: { n: { type: number } }\nsteps: { s: { request: { url: \"http://h/${{ inputs.n }}\" } } }\n"
                .utf8
        )
        .write(to: directory.appendingPathComponent("sub.yaml"))
        let edgeCases = try SchemaFixtures.smallPlans()
        var paths: [String: String] = [:]
        for edge in edgeCases {
            let file = directory.appendingPathComponent("\(edge.name).yaml")
            try edge.yaml.write(to: file, atomically: true, encoding: .utf8)
            paths[edge.name] = file.path
        }
        #expect(paths.count == edgeCases.count, "edge case names must be unique")
        let ordered = edgeCases.compactMap { paths[$0.name] }

        let validation = try CommandRunner.run(["validate", "--format", "json"] + ordered)
        let parsed = try JSONDecoder().decode(ValidateOutput.self, from: Data(validation.stdout.utf8))
        let parser = Dictionary(uniqueKeysWithValues: parsed.plans.map { ($0.file, $0.valid) })
        let schema = Dictionary(uniqueKeysWithValues: try SchemaChecker.check(ordered).files.map { ($0.path, $0) })

        for edge in edgeCases {
            guard let path = paths[edge.name], let parserAccepts = parser[path], let file = schema[path] else {
                Issue.record("no result for \(edge.name)")
                continue
            }
            let label = edge.difference.map { "\(edge.name) (known difference: \($0))" } ?? edge.name
            #expect(
                parserAccepts == edge.parserAccepts, "\(label): the parser \(parserAccepts ? "accepts" : "rejects") it")
            #expect(file.loaded, "\(edge.name) does not load: \(file.loadError ?? "")")
            #expect(
                file.valid == edge.schemaAccepts,
                "\(label): the schema \(file.valid == true ? "accepts" : "rejects") it \(file.errorSummary)")
        }
    }

    struct ValidateOutput: Decodable {
        struct Plan: Decodable {
            var file: String
            var valid: Bool
        }

        var plans: [Plan]
    }
}

// MARK: - The Python checker

/// Runs `Schema/check_schema.py` (python3 with `jsonschema` and PyYAML) on the schema `reqplan schema` prints.
enum SchemaChecker {
    struct Report: Decodable {
        struct SchemaResult: Decodable {
            var valid: Bool
            var error: String?
        }

        var schema: SchemaResult
        var files: [FileResult]
    }

    struct FileResult: Decodable {
        struct SchemaError: Decodable {
            var path: String
            var keyword: String
            var message: String
        }

        var path: String
        var loaded: Bool
        var loadError: String?
        var valid: Bool?
        var best: String?
        var errors: [SchemaError]

        var errorSummary: String {
            ([best].compactMap { $0 } + errors.prefix(12).map { "\($0.path) [\($0.keyword)] \($0.message)" })
                .joined(separator: "\n  ")
        }
    }

    static let script = CommandRunner.packageRoot.appendingPathComponent("Tests/ReqPlanCLITests/Schema/check_schema.py")

    /// Checks the schema, and `paths` (relative to the package root, or absolute) against it.
    static func check(_ paths: [String]) throws -> Report {
        let printed = try CommandRunner.run(["schema"])
        guard printed.status == 0 else { throw Failure("reqplan schema failed: \(printed.stderr)") }
        let schemaFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-plan-\(UUID().uuidString).json")
        try printed.stdout.write(to: schemaFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: schemaFile) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, schemaFile.path] + paths
        process.currentDirectoryURL = CommandRunner.packageRoot
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if let setup = try? JSONDecoder().decode([String: String].self, from: stdout),
            let problem = setup["setup_error"]
        {
            throw Failure("python3 needs jsonschema and PyYAML (pip install jsonschema pyyaml): \(problem)")
        }
        guard process.terminationStatus == 0 else {
            throw Failure("check_schema.py exited with \(process.terminationStatus) (is python3 installed?): \(stderr)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Report.self, from: stdout)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
