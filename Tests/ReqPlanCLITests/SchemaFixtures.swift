import Foundation
import Yams

/// The tables `SchemaTests` checks the schema against, read from `Tests/Fixtures/schema/` (each file says
/// what its entries mean): how the schema judges every case of the golden corpus, and small plans with
/// what the parser and the schema make of each.
enum SchemaFixtures {
    /// `Tests/Fixtures/schema`.
    static let folder = CommandRunner.packageRoot.appendingPathComponent("Tests/Fixtures/schema")

    /// `corpus-cases.yaml`: every case of `Tests/Corpus/invalid`, rejected by the schema or not decidable by it.
    struct CorpusCases: Decodable {
        /// A case whose problem is structural: the schema rejects it, at each of the JSON paths `at`.
        struct Rejected: Decodable {
            var at: [String]
            var why: String
        }

        var rejectedBySchema: [String: Rejected]
        /// Cases whose YAML text does not load, with the reason.
        var yamlSyntax: [String: String]
        /// Cases not given to a validator: loading them as data would expand them beyond any limit.
        var notLoaded: [String: String]
        /// Cases that load as data the schema accepts: their problem is beyond what a schema can express.
        var beyondSchema: [String: String]

        enum CodingKeys: String, CodingKey {
            case rejectedBySchema = "rejected_by_schema"
            case yamlSyntax = "yaml_syntax"
            case notLoaded = "not_loaded"
            case beyondSchema = "beyond_schema"
        }

        /// The names of the cases the schema cannot decide.
        var notDecidable: [String] { Array(yamlSyntax.keys) + Array(notLoaded.keys) + Array(beyondSchema.keys) }
    }

    /// One case of `small-plans.yaml`: a plan, with what the parser (`reqplan validate`, warnings allowed) and
    /// the schema make of it.
    struct SmallPlan: Decodable {
        var name: String
        var yaml: String
        var parserAccepts: Bool
        var schemaAccepts: Bool
        /// For a known difference: why the two disagree.
        var difference: String?

        enum CodingKeys: String, CodingKey {
            case name, plan, step, top, accepted, looser
        }

        static let head = "reqplan: 1\ndefaults: { base_url: \"http://h\" }\n"

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            name = try fields.decode(String.self, forKey: .name)
            let forms = try [
                fields.decodeIfPresent(String.self, forKey: .plan),
                fields.decodeIfPresent(String.self, forKey: .step).map { body in
                    // The one step `a`, written as `body`.
                    Self.head + "steps:\n  a:\n" + body.split(separator: "\n").map { "    \($0)\n" }.joined()
                },
                // `top`: keys at the top level, and one request step.
                fields.decodeIfPresent(String.self, forKey: .top).map {
                    Self.head + $0 + "\nsteps:\n  a: { request: { url: /a } }\n"
                },
            ].compactMap { $0 }
            guard forms.count == 1, let yaml = forms.first else {
                throw DecodingError.dataCorruptedError(
                    forKey: .plan, in: fields, debugDescription: "\(name): give one of `plan`, `step` and `top`")
            }
            self.yaml = yaml
            switch (
                try fields.decodeIfPresent(Bool.self, forKey: .accepted),
                try fields.decodeIfPresent(String.self, forKey: .looser)
            ) {
            case (let accepted?, nil):
                (parserAccepts, schemaAccepts) = (accepted, accepted)
            case (nil, let why?):
                (parserAccepts, schemaAccepts, difference) = (false, true, why)
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .accepted, in: fields, debugDescription: "\(name): give one of `accepted` and `looser`")
            }
        }
    }

    /// Reads `corpus-cases.yaml`.
    static func corpusCases() throws -> CorpusCases { try read("corpus-cases.yaml") }

    /// Reads `small-plans.yaml`.
    static func smallPlans() throws -> [SmallPlan] { try read("small-plans.yaml") }

    private static func read<Value: Decodable>(_ name: String) throws -> Value {
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        return try YAMLDecoder().decode(Value.self, from: text)
    }
}
