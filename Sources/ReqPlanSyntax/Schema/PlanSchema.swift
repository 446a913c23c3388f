/// The JSON Schema (draft 2020-12) of the plan format, version 1, for editors: `reqplan schema`
/// prints it, so the VS Code YAML extension and JetBrains IDEs complete, document and check plans.
///
/// The schema is generated, not written by hand: every mapping the parser reads with a key table
/// (`PlanReader.planKeys`, `requestKeys`, `defaultsKeys`, `allStepKeys`, `pollKeys`, …) takes its
/// properties from that table, and the words of `method`, `on_failure`, `type`, `retry.on` and the
/// reserved item names come from the parser's enums and tables (`HTTPMethodName`, `FailurePolicy`,
/// `ValueType`, `RetryCondition`, `PlanReader.reservedItemNames`). Each key's schema and description
/// is one entry beside its table's name in `SchemaBuilder+Plan.swift`, `+Steps`, `+Requests`,
/// `+Checks`; scalar formats are in `+Formats`. Adding a key to the parser is then: add it to the key
/// table, and one entry (its shape and description) in the matching `properties:`. A key without an
/// entry, or an entry without a key, is in ``problems`` and fails `SchemaTests`.
///
/// `SchemaTests` checks the printed schema with python's `jsonschema`: it is a valid draft 2020-12
/// schema, it accepts every plan in `plans/`, it rejects the invalid plans of the golden corpus whose
/// problem is structural, and it agrees with the parser on small edge cases. What a schema cannot see
/// (YAML syntax, references, cycles, expressions, ids repeated across nesting, relative URLs without
/// `base_url`) is left to `reqplan validate`.
///
/// Conventions the generator applies everywhere:
/// - `additionalProperties: false` on every mapping read with a key table (the parser reports unknown keys, RP0101);
/// - every mapping also accepts a `<<` merge key, for editors that do not apply merges before
///   validating (those that do, and `reqplan` itself, never see it);
/// - where the parser reads an empty value (null) as an empty mapping, null is accepted;
/// - where a value may hold `${{ }}`, a string is accepted (`for_each` is a list or one `${{ }}`);
/// - `patternErrorMessage` is an annotation read by VS Code (other tools ignore it).
public enum PlanSchema {
    /// The schema as JSON text: pretty-printed, ending with a newline.
    public static var json: String { generated.json }

    /// Mismatches between the parser's key tables and the schema's entries (empty when they agree).
    static var problems: [String] { generated.problems }

    private static let generated: (json: String, problems: [String]) = {
        var builder = SchemaBuilder()
        let definitions = builder.formatDefinitions()
            .merging(builder.planDefinitions())
            .merging(builder.stepDefinitions())
            .merging(builder.requestDefinitions())
            .merging(builder.checkDefinitions())
        let document = builder.root().merging(["$defs": definitions])
        return (document.printed() + "\n", builder.problems)
    }()
}
