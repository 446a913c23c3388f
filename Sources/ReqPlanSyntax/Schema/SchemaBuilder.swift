/// Builds the pieces of the plan schema from the parser's key tables and enums, and collects the
/// mismatches it finds between a key table and its property entries (`PlanSchema.problems`).
///
/// Every mapping the parser reads with a key table is built by ``closedObject(_:_:keys:properties:then:)``:
/// its properties follow the table's order, each taking the table key's entry from `properties`; the `<<`
/// merge key and `additionalProperties: false` (RP0101 for any other key) are added here, once for all.
/// A table key without an entry, or an entry for a key the table does not have, is recorded as a problem
/// (and `SchemaTests` fails), so a key added to the parser cannot be forgotten by the schema.
struct SchemaBuilder {
    /// Keys without an entry, and entries without a key, as sentences.
    private(set) var problems: [String] = []

    /// A mapping whose keys are one of the parser's tables.
    /// - Parameters:
    ///   - what: the mapping, as problems name it (`request`, `step`).
    ///   - head: the members printed first (`description`, `type`, `required`).
    ///   - keys: the parser's key table: the properties, in this order.
    ///   - properties: the schema of each key (with its description), one entry per key of `keys`.
    ///   - tail: members printed after `additionalProperties` (`allOf`, `oneOf`, `if`/`then`).
    mutating func closedObject(
        _ what: String, _ head: SchemaJSON, keys: [String], properties: [String: SchemaJSON],
        then tail: SchemaJSON = [:]
    ) -> SchemaJSON {
        var members: [SchemaJSON.Member] = []
        for key in keys {
            if let property = properties[key] {
                members.append(.init(key: key, value: property))
            } else {
                problems.append("`\(key)` of \(what) is in the parser's key table but has no schema entry")
                members.append(.init(key: key, value: [:]))
            }
        }
        for key in properties.keys.sorted() where !keys.contains(key) {
            problems.append("`\(key)` of \(what) has a schema entry but is not in the parser's key table")
        }
        let closed: SchemaJSON = [
            "properties": .object(members),
            "patternProperties": Self.mergeKeyPattern,
            "additionalProperties": false,
        ]
        return head.merging(closed).merging(tail)
    }

    /// A mapping of names to values of one shape (`headers`, `steps`, `inputs`), `<<` merge keys allowed.
    /// - Parameters:
    ///   - head: the members printed first (`description`, `type`).
    ///   - names: the `$defs` entry each key must match, if any.
    ///   - values: the schema of every value.
    static func map(_ head: SchemaJSON, names: String? = nil, values: SchemaJSON) -> SchemaJSON {
        var members: SchemaJSON = [:]
        if let names { members = members.merging(["propertyNames": ref(names)]) }
        return head.merging(members).merging([
            "patternProperties": mergeKeyPattern,
            "additionalProperties": values,
        ])
    }

    /// `{"$ref": "#/$defs/NAME"}`, with a description when given.
    static func ref(_ name: String, _ description: String? = nil) -> SchemaJSON {
        let reference: SchemaJSON = ["$ref": .string("#/$defs/" + name)]
        guard let description else { return reference }
        return reference.merging(["description": .string(description)])
    }

    /// The words of one of the parser's enums, in declaration order.
    static func words<Word: CaseIterable & RawRepresentable>(_: Word.Type) -> SchemaJSON
    where Word.RawValue == String {
        .array(Word.allCases.map { .string($0.rawValue) })
    }

    /// An object schema whose `properties` forbid each of `keys` (`{"retry": false, …}`).
    static func forbidding(_ keys: [String]) -> SchemaJSON {
        ["properties": .object(keys.map { .init(key: $0, value: false) })]
    }

    /// A list of strings as a JSON array.
    static func strings(_ values: [String]) -> SchemaJSON { .array(values.map { .string($0) }) }

    /// `patternProperties` that let a `<<` merge key through, for editors that do not apply merges.
    static let mergeKeyPattern: SchemaJSON = ["^<<$": ref("mergeKey")]
}
