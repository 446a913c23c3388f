import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// A data file's rows as a plan's inputs (`DataInputs`): CSV text converted as `--input` text is, JSON Lines
/// values checked as an inputs file's are, a row's value winning over every other source, every problem of every
/// row found before anything runs and located in the data file.
@Suite struct DataInputsTests {
    /// The report of a plan declaring `inputs` (YAML flow entries), whose one request reads every input.
    static func report(_ inputs: [String: String]) -> ValidationReport {
        let names = inputs.keys.sorted()
        let url = "http://127.0.0.1:1/" + names.map { "${{ inputs.\($0) }}" }.joined(separator: "/")
        let declared = names.map { "  \($0): \(inputs[$0] ?? "{}")" }.joined(separator: "\n")
        let text = "reqplan: 1\ninputs:\n\(declared)\nsteps:\n  s: { request: { url: '\(url)' } }\n"
        return PlanValidator.validate(SourceFile(path: "plan.yaml", text: text))
    }

    static func data(_ text: String, _ format: DataFile.Format = .csv) throws -> DataFile {
        let name = format == .csv ? "users.csv" : "users.jsonl"
        return try DataFile.parse(SourceFile(path: name, text: text), format: format, limits: ParseLimits()).get()
    }

    static func resolve(
        _ data: DataFile, _ report: ValidationReport, overrides: [(name: String, value: String)] = [],
        file: [String: Value] = [:], environment: [String: String] = [:],
        naming: InputResolver.Naming = .library
    ) -> Result<DataInputs.Prepared, PlanRun.PreparationError> {
        DataInputs.resolve(
            data, for: report, overrides: overrides, file: file, environment: environment, naming: naming)
    }

    static func problems(_ result: Result<DataInputs.Prepared, PlanRun.PreparationError>) -> [Diagnostic] {
        guard case .failure(let failure) = result else { return [] }
        return failure.diagnostics
    }

    static func location(_ diagnostic: Diagnostic) -> String {
        "\(diagnostic.file ?? "?"):\(diagnostic.range?.start.line ?? 0):\(diagnostic.range?.start.column ?? 0)"
    }

    @Test func csvTextIsConvertedToTheDeclaredTypesAsInputTextIs() throws {
        let report = Self.report([
            "user": "{ type: string }", "age": "{ type: number }", "admin": "{ type: boolean }",
            "tags": "{ type: list }", "big": "{ type: number }",
        ])
        let data = try Self.data(
            "user,age,admin,tags,big\nada,36,true,\"a, b\",18446744073709551615\nbob,-1.5,FALSE,\"[\"\"x\"\"]\",0\n")
        let rows = try Self.resolve(data, report).get().rows
        #expect(rows.count == 2)
        #expect(rows.names == ["user", "age", "admin", "tags", "big"])
        #expect(rows.line(ofRow: 1) == 3)
        #expect(rows.file == "users.csv")
        #expect(
            rows.inputs(ofRow: 0).values == [
                "user": .string("ada"), "age": .int(36), "admin": .bool(true),
                "tags": .list([.string("a"), .string("b")]), "big": .largeInt("18446744073709551615"),
            ])
        #expect(
            rows.inputs(ofRow: 1).values == [
                "user": .string("bob"), "age": .double(-1.5), "admin": .bool(false), "tags": .list([.string("x")]),
                "big": .int(0),
            ])
    }

    @Test func aValueOfTheWrongTypeIsAnErrorAtItsRowAndColumn() throws {
        let report = Self.report(["user": "{ type: string }", "age": "{ type: number }", "admin": "{ type: boolean }"])
        let failure = Self.resolve(try Self.data("user,age,admin\nada,36,true\nbob,old,yes\ncy,,false\n"), report)
        let problems = Self.problems(failure)
        #expect(problems.map(\.code) == [.invalidInput, .invalidInput, .invalidInput])
        #expect(
            problems.map(\.message) == [
                "input `age` must be a number, got `old`", "input `admin` must be a boolean, got `yes`",
                "input `age` must be a number, got ``",
            ])
        #expect(problems.map(Self.location) == ["users.csv:3:5", "users.csv:3:9", "users.csv:4:4"])
        #expect(problems.first?.notes.first?.file == "plan.yaml")
        #expect(problems.first?.notes.first?.message == "`age` is declared here as a number")
        #expect(problems.first?.hint == "write a number, as in `3` or `-1.5`")
        guard case .failure(let error) = failure else { return }
        #expect(error.sources.map(\.path) == ["users.csv", "plan.yaml"])
    }

    @Test func jsonLinesValuesKeepTheirTypesWhichMustBeTheDeclaredOnes() throws {
        let report = Self.report(["user": "{ type: string }", "age": "{ type: number }"])
        let good = try Self.resolve(
            try Self.data("{\"user\": \"ada\", \"age\": 36}\n{\"user\": null, \"age\": 1e300}\n", .jsonLines), report
        ).get().rows
        #expect(good.inputs(ofRow: 0).values == ["user": .string("ada"), "age": .int(36)])
        #expect(good.inputs(ofRow: 1).values == ["user": .null, "age": .double(1e300)])
        let problems = Self.problems(
            Self.resolve(try Self.data("{\"user\": \"ada\", \"age\": \"36\"}\n", .jsonLines), report))
        #expect(problems.map(\.message) == ["input `age` must be a number, but the data file gives a string"])
        #expect(problems.map(Self.location) == ["users.jsonl:1:24"])
    }

    @Test func aColumnNoInputDeclaresIsAWarningWithTheClosestInput() throws {
        let report = Self.report(["user": "{ type: string, default: anon }", "age": "{ type: number }"])
        let prepared = try Self.resolve(try Self.data("usr,age,\"notes\"\nada,3,x\n"), report).get()
        #expect(prepared.warnings.map(\.code) == [.undeclaredInputsFileKey, .undeclaredInputsFileKey])
        #expect(prepared.warnings.allSatisfy { $0.severity == .warning })
        #expect(
            prepared.warnings.first?.message == "the data file's column `usr` is not an input the plan declares")
        #expect(prepared.warnings.first?.hint == "did you mean `user`?")
        #expect(prepared.warnings.first?.fix?.replacement == "user")
        #expect(prepared.warnings.map(Self.location) == ["users.csv:1:1", "users.csv:1:9"])
        #expect(prepared.warnings.last?.hint == "a run ignores it; declared inputs: `age`, `user`")
        #expect(prepared.sources.map(\.path) == ["users.csv"])
        // The column is ignored: the input takes its default.
        #expect(prepared.rows.inputs(ofRow: 0).values == ["user": .string("anon"), "age": .int(3)])
        #expect(prepared.rows.names == ["age"])
    }

    /// A required input that neither a column nor another source gives: one error, however many rows, its hint
    /// naming the column to add.
    @Test func aRequiredInputNothingGivesIsOneErrorNamingTheColumnToAdd() throws {
        let report = Self.report(["user": "{ type: string }", "token": "{ type: string }"])
        let problems = Self.problems(
            Self.resolve(
                try Self.data("user\nada\nbob\ncy\n"), report, naming: InputResolver.Naming(inputOption: "--input")))
        #expect(problems.map(\.code) == [.missingInput])
        #expect(problems.first?.message == "input `token` has no value")
        #expect(problems.first?.file == "plan.yaml")
        #expect(problems.first?.hint == "pass `--input token=…`, or add a column `token` to the data file `users.csv`")
    }

    /// A row's value wins over `--input`, the inputs file, the environment and the default; a `--input` every
    /// row replaces is a warning.
    @Test func aRowsValueWinsOverEveryOtherSource() throws {
        let report = Self.report([
            "user": "{ type: string, default: dflt }", "region": "{ type: string, default: eu }",
            "zone": "{ type: string, env: RP_ZONE }",
        ])
        let data = try Self.data("user,zone\nada,z1\nbob,z2\n")
        let prepared = try Self.resolve(
            data, report, overrides: [("user", "cli"), ("region", "cli")], file: ["user": .string("file")],
            environment: ["RP_ZONE": "env"], naming: InputResolver.Naming(inputOption: "--input")
        ).get()
        #expect(
            prepared.rows.inputs(ofRow: 1).values == [
                "user": .string("bob"), "region": .string("cli"), "zone": .string("z2"),
            ])
        // The variable keeps the process's value, as with an inputs file: `env.RP_ZONE` reads the environment.
        #expect(prepared.rows.inputs(ofRow: 1).environment["RP_ZONE"] == "env")
        #expect(prepared.warnings.map(\.code) == [.replacedByDataFile])
        #expect(
            prepared.warnings.first?.message
                == "--input `user` is never used: every row of the data file gives `user`")
        #expect(prepared.warnings.map(Self.location) == ["users.csv:1:1"])
        #expect(prepared.warnings.first?.severity == .warning)
        // The base holds the other sources, the data's inputs null.
        #expect(prepared.plan.inputs.values["region"] == .string("cli"))
        #expect(prepared.plan.inputs.values["user"] == .null)
    }

    /// A key a JSON Lines row leaves out takes the other sources' value; where none gives one, that row is an
    /// error.
    @Test func aKeyARowLeavesOutTakesTheOtherSourcesOrIsAnErrorAtThatRow() throws {
        let report = Self.report([
            "user": "{ type: string }", "region": "{ type: string, default: eu }", "token": "{ type: string }",
        ])
        let data = try Self.data(
            """
            {"user": "ada", "region": "us", "token": "t1"}
            {"user": "bob", "token": "t2"}
            {"region": "ap", "token": "t3"}
            {"token": "t4"}
            """, .jsonLines)
        let problems = Self.problems(Self.resolve(data, report))
        #expect(problems.map(\.code) == [.missingInput, .missingInput])
        #expect(problems.map(Self.location) == ["users.jsonl:3:1", "users.jsonl:4:1"])
        #expect(problems.first?.message == "this row gives no `user`, and no other source gives it")
        // Given on the command line, it fills the rows without it, and is no warning.
        let prepared = try Self.resolve(data, report, overrides: [("user", "cli")]).get()
        #expect(prepared.warnings.isEmpty)
        let rows = prepared.rows
        func column(_ name: String) -> [String] {
            (0..<rows.count).map { rows.inputs(ofRow: $0).values[name]?.interpolated ?? "-" }
        }
        #expect(column("user") == ["ada", "bob", "cli", "cli"])
        #expect(column("region") == ["us", "eu", "ap", "eu"])
    }

    @Test func problemsPastTwentyAreCounted() throws {
        let report = Self.report(["age": "{ type: number }"])
        let text = "age\n" + String(repeating: "x\n", count: 100)
        let problems = Self.problems(Self.resolve(try Self.data(text), report))
        #expect(problems.count == 20)
        #expect(problems.last?.notes.last?.message == "and 80 more problems not shown")
        #expect(problems.map(Self.location).last == "users.csv:21:1")
    }

    /// A secret input's value from a row is a secret of that row's run only, sets its variable when the
    /// environment does not, and is never quoted in a message.
    @Test func aSecretFromARowIsHiddenAndNeverQuoted() throws {
        let report = Self.report([
            "user": "{ type: string }", "token": "{ type: string, secret: true, env: API_TOKEN }",
            "pin": "{ type: number, secret: true, required: false }",
        ])
        let rows = try Self.resolve(try Self.data("user,token\nada,s3cr3t-one\nbob,s3cr3t-two\n"), report).get().rows
        let second = rows.inputs(ofRow: 1)
        #expect(second.secrets == ["s3cr3t-two"])
        #expect(second.environment["API_TOKEN"] == "s3cr3t-two")
        #expect(rows.inputs(ofRow: 0).secrets == ["s3cr3t-one"])
        let problems = Self.problems(Self.resolve(try Self.data("user,pin\nada,12a4\n"), report))
        #expect(problems.map(\.message) == ["input `pin` must be a number"])
    }

    @Test func aPlanWithErrorsIsRefusedBeforeTheRowsAreRead() throws {
        let report = PlanValidator.validate(SourceFile(path: "plan.yaml", text: "reqplan: 1\nsteps: 3\n"))
        let problems = Self.problems(Self.resolve(try Self.data("a\n1\n"), report))
        #expect(!problems.isEmpty)
        #expect(!problems.contains { $0.file == "users.csv" })
    }

    /// A column named by 10 MB of text: a warning quoting 40 characters of it, with no did-you-mean looked for.
    @Test func aHugeColumnNameIsQuotedShortAndNotSpellChecked() throws {
        let report = Self.report(["user": "{ type: string }"])
        let name = String(repeating: "u", count: 10_000_000)
        let prepared = try Self.resolve(try Self.data("user,\(name)\nada,1\n"), report).get()
        #expect(
            prepared.warnings.map(\.message) == [
                "the data file's column `\(String(repeating: "u", count: 40))…` is not an input the plan declares"
            ])
        #expect(prepared.warnings.first?.hint == "a run ignores it; declared inputs: `user`")
    }

    /// 250,000 rows (a million are read in `DataFileTests`): checked, converted and handed out in linear time
    /// (some 6 s in a debug build alone; quadratic work would take hours).
    @Test func manyRowsAreResolved() async throws {
        let report = Self.report(["user": "{ type: string }", "n": "{ type: number }"])
        let text = "user,n\n" + (0..<250_000).map { "u\($0),\($0)\n" }.joined()
        let started = ContinuousClock.now
        let rows = try await offCooperativePool { () -> DataInputs in
            let data = try DataFile.parse(SourceFile(path: "big.csv", text: text), format: .csv, limits: ParseLimits())
                .get()
            return try DataInputs.resolve(data, for: report, overrides: [], file: [:], environment: [:]).get().rows
        }
        #expect(ContinuousClock.now - started < .seconds(600))
        #expect(rows.count == 250_000)
        #expect(rows.inputs(ofRow: 249_999).values == ["user": .string("u249999"), "n": .int(249_999)])
    }
}
