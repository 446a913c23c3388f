import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// The response check's validator (`APISchemaValidator`) against a real JSON Schema implementation:
/// for random values and random schemas of the subset reqplan's model holds (types, properties,
/// required, `additionalProperties`, items, enums, patterns, `allOf`/`anyOf`/`oneOf`), it says valid or
/// invalid exactly when Python's `jsonschema` (draft 2020-12, as OpenAPI 3.1 uses) does.
@Suite struct APISchemaValidatorPropertyTests {
    /// One generated case: a schema, its JSON Schema text, and a value.
    struct Case {
        var seed: UInt64
        var schema: APISchema
        var jsonSchema: Value
        var value: Value
    }

    @Test func agreesWithPythonJSONSchemaOnValidAndInvalid() throws {
        let cases = (0..<600).map { Self.generate(seed: UInt64($0) &* 0x9E37_79B9 &+ 17) }
        let validator = APISchemaValidator(table: APISchemaTable())
        let ours = cases.map { validator.firstMismatch($0.value, against: $0.schema) == nil }
        let theirs = try Self.pythonVerdicts(cases)
        try #require(theirs.count == cases.count, "python gave \(theirs.count) verdicts for \(cases.count) cases")
        let disagreements = cases.indices.filter { ours[$0] != theirs[$0] }
        for index in disagreements.prefix(5) {
            let example = cases[index]
            Issue.record(
                """
                seed \(example.seed): reqplan says \(ours[index] ? "valid" : "invalid"), jsonschema \
                \(theirs[index] ? "valid" : "invalid")
                  schema: \(example.jsonSchema.jsonText())
                  value:  \(example.value.jsonText())
                """)
        }
        // Both outcomes occur often enough for the comparison to mean something.
        let valid = theirs.count { $0 }
        #expect(valid > cases.count / 10 && valid < cases.count * 9 / 10, "\(valid) of \(cases.count) valid")
    }

    // MARK: Generation

    static let names = ["a", "b", "c"]
    static let strings = ["", "a", "ab", "xb", "9", "y"]
    /// Valid in ECMA 262 and in ICU alike, with the same meaning (a search, not anchored).
    static let patterns = ["^a", "b$", "[0-9]", "^x?b", "a|y"]

    static func generate(seed: UInt64) -> Case {
        var random = SeededGenerator(seed: seed)
        let (schema, json) = schema(depth: 2, &random)
        return Case(seed: seed, schema: schema, jsonSchema: json, value: value(depth: 2, &random))
    }

    static func chance(_ percent: UInt64, _ random: inout SeededGenerator) -> Bool { random.next() % 100 < percent }

    static func pick<T>(_ values: [T], _ random: inout SeededGenerator) -> T {
        values[Int(random.next() % UInt64(values.count))]
    }

    static func value(depth: Int, _ random: inout SeededGenerator) -> Value {
        switch random.next() % (depth > 0 ? 8 : 6) {
        case 0: return .null
        case 1: return .bool(chance(50, &random))
        case 2: return .int(Int(random.next() % 5) - 1)
        case 3: return .double(pick([1.5, 2.0, -0.5], &random))
        case 4, 5: return .string(pick(strings, &random))
        case 6: return .list((0..<Int(random.next() % 3)).map { _ in value(depth: depth - 1, &random) })
        default:
            let keys = names.filter { _ in chance(50, &random) } + (chance(20, &random) ? ["z"] : [])
            return .object(keys.map { Value.Field($0, value(depth: depth - 1, &random)) })
        }
    }

    /// A schema of the model and the same schema as JSON Schema.
    static func schema(depth: Int, _ random: inout SeededGenerator) -> (APISchema, Value) {
        var json: [Value.Field] = []
        var types: Set<APIType>?
        if chance(75, &random) {
            let chosen = APIType.allCases.filter { _ in chance(30, &random) }
            types = Set(chosen.isEmpty ? [pick(APIType.allCases, &random)] : chosen)
            let sorted = (types ?? []).sorted().map { Value.string($0.rawValue) }
            json.append(.init("type", sorted.count == 1 ? sorted[0] : .list(sorted)))
        }
        var properties: [(name: String, schema: APISchema)] = []
        var required: Set<String> = []
        var additional = APISchema.AdditionalProperties.unspecified
        var items: APISchema?
        if depth > 0, types?.contains(.object) ?? chance(30, &random) {
            var jsonProperties: [Value.Field] = []
            for name in names where chance(50, &random) {
                let (inner, innerJSON) = schema(depth: depth - 1, &random)
                properties.append((name, inner))
                jsonProperties.append(.init(name, innerJSON))
            }
            if !jsonProperties.isEmpty { json.append(.init("properties", .object(jsonProperties))) }
            required = Set((names + ["z"]).filter { _ in chance(25, &random) })
            if !required.isEmpty { json.append(.init("required", .list(required.sorted().map(Value.string)))) }
            switch random.next() % 4 {
            case 1:
                additional = .allowed
                json.append(.init("additionalProperties", .bool(true)))
            case 2:
                additional = .forbidden
                json.append(.init("additionalProperties", .bool(false)))
            case 3:
                let (inner, innerJSON) = schema(depth: depth - 1, &random)
                additional = .schema(inner)
                json.append(.init("additionalProperties", innerJSON))
            default:
                break
            }
        }
        if depth > 0, types?.contains(.array) ?? chance(30, &random), chance(70, &random) {
            let (inner, innerJSON) = schema(depth: depth - 1, &random)
            items = inner
            json.append(.init("items", innerJSON))
        }
        var enumValues: [Value]?
        if chance(15, &random) {
            enumValues = (0..<Int(1 + random.next() % 3)).map { _ in value(depth: 0, &random) }
            json.append(.init("enum", .list(enumValues ?? [])))
        }
        var pattern: String?
        if chance(20, &random) {
            pattern = pick(patterns, &random)
            json.append(.init("pattern", .string(pattern ?? "")))
        }
        var compositions: [String: [APISchema]] = [:]
        for keyword in ["allOf", "anyOf", "oneOf"] where depth > 0 && chance(12, &random) {
            let parts = (0..<Int(1 + random.next() % 2)).map { _ in schema(depth: depth - 1, &random) }
            compositions[keyword] = parts.map { $0.0 }
            json.append(.init(keyword, .list(parts.map { $0.1 })))
        }
        let built = APISchema(
            types: types, properties: properties, required: required, additionalProperties: additional,
            items: items, enumValues: enumValues, pattern: pattern, allOf: compositions["allOf"] ?? [],
            anyOf: compositions["anyOf"] ?? [], oneOf: compositions["oneOf"] ?? [])
        return (built, .object(json))
    }

    // MARK: The reference

    static let script = """
        import json, sys
        try:
            import jsonschema
        except ImportError as error:
            print(json.dumps({"setup_error": str(error)})); sys.exit(0)
        verdicts = []
        for line in open(sys.argv[1]):
            case = json.loads(line)
            validator = jsonschema.Draft202012Validator(case["schema"])
            verdicts.append(validator.is_valid(case["value"]))
        print(json.dumps(verdicts))
        """

    /// `jsonschema`'s verdict on each case (python3 with `jsonschema`, as the schema tests need; CI installs it).
    static func pythonVerdicts(_ cases: [Case]) throws -> [Bool] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-apischema-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = cases.map { Value.object([.init("schema", $0.jsonSchema), .init("value", $0.value)]).jsonText() }
        let input = folder.appendingPathComponent("cases.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let scriptFile = folder.appendingPathComponent("check.py")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let result = try runCommand("python3", [scriptFile.path, input.path])
        guard result.status == 0 else { throw PythonFailure(message: "python3 failed: \(result.output)") }
        let data = Data(result.output.utf8)
        if let setup = try? JSONDecoder().decode([String: String].self, from: data), let problem = setup["setup_error"]
        {
            throw PythonFailure(message: "python3 needs jsonschema (pip install jsonschema): \(problem)")
        }
        return try JSONDecoder().decode([Bool].self, from: data)
    }

    struct PythonFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
