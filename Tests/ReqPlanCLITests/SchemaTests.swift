import Foundation
@testable import ReqPlanSyntax
import Testing

/// `reqplan schema`: the JSON Schema of the plan format, checked with a real validator (python3's
/// `jsonschema`, see `Schema/check_schema.py`) against the example plans, the golden corpus of invalid
/// plans and small plans judged by the parser too.
@Suite(.serialized) struct SchemaTests {
    // MARK: - The golden corpus

    /// Corpus cases whose problem is structural: the schema rejects them. `at` lists the JSON paths of the
    /// values at fault, each of which must be among the locations of the schema's errors.
    static let rejectedBySchema: [String: (at: [String], why: String)] = [
        "007-unknown-top-level-key": (["$"], "unknown top-level key (additionalProperties)"),
        "008-unknown-step-key": (["$.steps.home"], "unknown step key"),
        "009-unknown-request-key": (["$.steps.home.request"], "unknown request key"),
        "010-unknown-expect-key": (["$.steps.home.expect"], "unknown expect key"),
        "011-unknown-retry-key": (["$.steps.home.retry"], "unknown retry key"),
        "012-wrong-type-concurrency": (["$.concurrency"], "wrong type: a string for an integer"),
        "013-wrong-type-needs-mapping": (["$.steps.home.needs"], "wrong type: `needs` is a mapping"),
        "014-wrong-type-headers-list": (["$.steps.home.request.headers"], "wrong type: `headers` is a list"),
        "015-missing-url": (["$.steps.login.request"], "missing required key `url`"),
        "016-missing-steps": (["$"], "missing required key `steps`"),
        "017-missing-step-kind": (["$.steps.home"], "no step kind (oneOf: none matches)"),
        "018-two-bodies": (["$.steps.login.request.form"], "two bodies (dependentSchemas)"),
        "019-two-step-kinds": (["$.steps.bootstrap.group"], "two step kinds (oneOf)"),
        "028-unterminated-string-literal": (
            ["$.steps.home.if"], "the `if:` is not one `${{ }}`: its `}}` is inside an unterminated string literal"
        ),
        "040-bad-duration-no-unit": (["$.defaults.timeout"], "duration that is a number"),
        "085-empty-env-name": (["$.inputs.token.env"], "an empty environment variable name (pattern)"),
        "041-bad-duration-spelled-unit": (["$.steps.report.timeout"], "duration pattern"),
        "042-bad-duration-unknown-unit": (["$.steps.home.retry.backoff"], "duration pattern"),
        "043-bad-status-out-of-range": (["$.steps.home.expect.status"], "status out of 100–599"),
        "044-bad-status-class-6xx": (["$.defaults.expect.status[1]"], "status class pattern"),
        "045-bad-status-class-2x": (["$.steps.home.expect.status"], "status class pattern"),
        "046-bad-method-lowercase": (["$.steps.home.request.method"], "method enum"),
        "047-bad-method-unknown": (["$.steps.home.request.method"], "method enum"),
        "048-missing-version": (["$"], "missing required key `reqplan`"),
        "049-unsupported-version": (["$.reqplan"], "unsupported version (const 1)"),
        "058-for-each-over-string": (["$.steps.uploads.for_each"], "`for_each` neither a list nor one `${{ }}`"),
        "059-for-each-reserved-as": (["$.steps.pipeline.as"], "reserved item name"),
        "061-root-is-list": (["$"], "root is not a mapping"),
        "062-empty-document": (["$"], "empty document: null is not a mapping"),
        "064-invalid-step-id-digit": (["$.steps"], "invalid step id (propertyNames)"),
        "065-invalid-step-id-dot": (["$.steps"], "invalid step id (propertyNames)"),
        "066-many-errors": (
            [
                "$.defaults.timeout", "$.concurrency", "$.steps.login.request.method", "$.steps.login.expect.status",
                "$.steps.home",
            ],
            "its five structural errors (the unknown input, missing step, undeclared env, malformed expression and "
                + "cycle are beyond the schema)"
        ),
        "067-error-with-warnings": (["$.steps.home.request.method"], "method enum"),
        "069-invalid-on-failure": (["$.on_failure"], "on_failure enum"),
        "070-misspelt-step-kind": (["$.steps.login", "$.steps.bootstrap"], "unknown step keys"),
        "071-key-not-allowed-on-group": (
            ["$.steps.bootstrap.retry", "$.steps.login.concurrency"], "keys not allowed on the kind (oneOf)"
        ),
        "072-empty-group": (["$.steps.bootstrap.group"], "empty group (minProperties)"),
        "075-condition-with-text": (["$.steps.admin.if"], "text around `${{ }}` in `if:`"),
        "076-input-default-wrong-type": (["$.inputs.images.default"], "default not of the declared type (if/then)"),
        "077-bad-body-path": (["$.steps.orders.expect.body"], "malformed body paths (propertyNames pattern)"),
        "078-invalid-header-name": (["$.steps.home.request.headers"], "invalid header name (propertyNames)"),
        "080-unknown-matcher": (
            ["$.steps.me.expect.body.email", "$.steps.me.expect.body.roles"], "unknown matcher keys"
        ),
        "081-crlf-line-endings": (["$.steps.home"], "unknown step key (the unknown step reference is beyond it)"),
        "083-invalid-name-in-needs": (["$.steps.home.needs[0]"], "invalid step id in `needs`"),
        "086-auth-and-authorization-header": (
            ["$.steps.me.request.headers"], "`auth` and an `Authorization` header (if/then, propertyNames)"
        ),
        "087-auth-basic-and-bearer": (["$.steps.me.request.auth"], "both `basic` and `bearer` (oneOf)"),
        "088-auth-basic-missing-password": (["$.steps.me.request.auth.basic"], "missing `password` (required)"),
        "089-auth-misspelt-key": (["$.steps.me.request.auth"], "unknown key in `auth`"),
        "090-trace-with-body": (["$.steps.trace.request.json"], "a TRACE request with a body (if/then)"),
        "091-required-input-with-default": (["$.inputs.token.default"], "`required: true` with a `default` (if/then)"),
        "095-follow-redirects-not-boolean": (
            ["$.cookies", "$.defaults.follow_redirects", "$.steps.old.request.follow_redirects"], "booleans expected"
        ),
        "096-defaults-auth-and-authorization-header": (
            ["$.defaults.headers"], "`auth` and an `Authorization` header in `defaults` (if/then, propertyNames)"
        ),
        "150-poll-without-until": (["$.steps.job.poll"], "missing required key `until`"),
        "151-poll-without-bound": (["$.steps.job.poll"], "neither `timeout` nor `attempts` (anyOf of required)"),
        "152-poll-on-group": (["$.steps.jobs.poll"], "`poll` not allowed on a group (oneOf)"),
        "155-poll-post-without-unsafe": (["$.steps.job.poll"], "polling a POST without `unsafe: true` (if/then)"),
        "156-poll-every-max-shorter": (
            ["$.steps.job.poll.every.factor"], "a factor above 10 (the ceiling below `initial` is beyond the schema)"
        ),
        "157-for-each-as-response": (["$.steps.statuses.as"], "reserved item name `response`"),
        "158-unknown-poll-key": (["$.steps.job.poll"], "unknown key in `poll`"),
        "113-output-declaration-unknown-key": (["$.outputs.token"], "unknown key in an output declaration"),
        "115-plan-step-keys": (["$.steps.login"], "`on_failure` and `retry` on a plan step (oneOf)"),
        "116-for-each-over-plan": (["$.steps.logins"], "a for_each whose body is a `plan` (oneOf)"),
        "117-subplan-file-computed": (["$.steps.login.plan.file"], "`${{ }}` in a sub-plan's file (not pattern)"),
        "159-input-default-reads-input": (["$.inputs.url.default"], "`${{ }}` in an input's default (literal)"),
        "170-control-character-in-header-line": (
            [
                "$.steps.crlf.request.headers['X-Token']", "$.steps['lone-lf'].request.headers['X-Token']",
                "$.steps.bearer.request.auth.bearer", "$.steps.upload.request.multipart",
                "$.steps.upload.request.multipart.data.content_type", "$.steps.upload.request.multipart.doc.filename",
            ], "control characters in values that go into header lines (pattern)"
        ),
    ]

    /// Why the schema cannot judge a corpus case.
    enum NotDecidable: Sendable {
        /// The problem is in the YAML text itself: the file does not even load as YAML (the checker says so).
        case yamlSyntax(String)
        /// Not given to a validator at all: loading it as data would expand it beyond any limit.
        case notLoaded(String)
        /// Loads as data that the schema accepts: the problem is beyond what a schema can express.
        case beyondSchema(String)
    }

    /// Corpus cases not decidable by the schema, one reason each.
    static let notDecidable: [String: NotDecidable] = [
        "001-yaml-bad-indentation": .yamlSyntax("YAML syntax error: bad indentation"),
        "002-yaml-unclosed-quote": .yamlSyntax("YAML syntax error: unclosed quote"),
        "003-yaml-unclosed-bracket": .yamlSyntax("YAML syntax error: unclosed bracket"),
        "004-yaml-tab-indentation": .yamlSyntax("YAML syntax error: tab indentation"),
        "005-duplicate-yaml-key": .beyondSchema("a repeated YAML key is gone once YAML is data (the last one wins)"),
        "006-duplicate-yaml-key-flow": .beyondSchema(
            "a repeated YAML key is gone once YAML is data (the last one wins)"),
        "020-duplicate-step-id-in-group": .beyondSchema(
            "step ids unique across nesting: a schema sees one mapping at a time"),
        "021-duplicate-step-id-in-for-each": .beyondSchema(
            "step ids unique across nesting: a schema sees one mapping at a time"),
        "022-unknown-step-reference": .beyondSchema("reference inside an expression to a step that does not exist"),
        "023-unknown-input": .beyondSchema("reference inside an expression to an input that is not declared"),
        "024-unknown-function": .beyondSchema("expression error: unknown function"),
        "025-unterminated-expression": .beyondSchema("expression error inside a text template (a URL)"),
        "026-dangling-operator": .beyondSchema("expression error: the grammar of expressions is not a schema's"),
        "027-bad-bracket": .beyondSchema("expression error inside a text template"),
        "029-single-equals": .beyondSchema("expression error: unexpected character"),
        "030-needs-missing-step": .beyondSchema("`needs` names a step that does not exist (a reference)"),
        "031-cycle-explicit-needs": .beyondSchema("dependency cycle: a property of the whole graph"),
        "032-cycle-implicit-references": .beyondSchema("dependency cycle through references in expressions"),
        "033-cycle-mixed": .beyondSchema("dependency cycle: a property of the whole graph"),
        "034-cycle-through-group": .beyondSchema("dependency cycle: a property of the whole graph"),
        "035-cycle-member-needs-own-group": .beyondSchema("dependency cycle: a member needs its own group"),
        "036-cycle-sequence-reads-later-member": .beyondSchema("dependency cycle: order of sequence members"),
        "037-for-each-item-outside": .beyondSchema("scope of a for_each item name in expressions"),
        "038-for-each-body-step-from-outside": .beyondSchema("scope: a for_each body's step read from outside"),
        "039-undeclared-env": .beyondSchema("`env.X` must be declared by some input's `env:` (a cross-reference)"),
        "050-yaml-alias-bomb": .notLoaded("alias bomb: expanding it is what the limit prevents"),
        "051-yaml-alias-as-key": .beyondSchema(
            "an alias used as a key is refused by reqplan's YAML reader; as data it is a plain key"),
        "052-results-on-request": .beyondSchema("result fields depend on the kind of the step an expression reads"),
        "053-body-on-group": .beyondSchema("result fields depend on the kind of the step an expression reads"),
        "054-misspelt-result-field": .beyondSchema("result field name inside an expression"),
        "055-status-function-outside-if": .beyondSchema("expression error: `always()` outside `if:`"),
        "056-wrong-arity": .beyondSchema("expression error: number of function arguments"),
        "057-invalid-regex": .beyondSchema("ICU regular expressions are compiled only by the parser"),
        "060-relative-url-without-base-url": .beyondSchema(
            "relative URL: allowed or not depending on `defaults.base_url`"),
        "063-multiple-documents": .yamlSyntax("a second YAML document"),
        "068-yaml-over-indented-key": .yamlSyntax("YAML syntax error: over-indented key"),
        "073-steps-in-defaults": .beyondSchema("which roots an expression may read (`steps` in `defaults`)"),
        "074-unknown-root-name": .beyondSchema("expression error: unknown root name"),
        "079-duplicate-need": .beyondSchema("`needs` names a missing step; the repeated need is only a warning"),
        "082-yaml-merge-key-bomb": .notLoaded("merge-key bomb: expanding it is what the limit prevents"),
        "084-unquoted-expression-in-flow-mapping": .yamlSyntax(
            "YAML syntax error: unquoted `${{ }}` in a flow mapping"),
        "092-invalid-regex-in-match": .beyondSchema(
            "a regular expression inside an expression is compiled by the parser"),
        "093-invalid-xpath": .beyondSchema("an XPath expression inside an expression is compiled by the parser"),
        "100-subplan-unknown-input": .beyondSchema("an input given to a sub-plan is checked against the other file"),
        "101-subplan-input-type": .beyondSchema("the type an input is declared with in the other file"),
        "102-subplan-missing-input": .beyondSchema("the inputs the other file requires"),
        "103-subplan-unknown-output": .beyondSchema("the outputs the other file declares"),
        "104-subplan-cycle": .beyondSchema("a cycle between files: the schema sees one file"),
        "105-subplan-file-missing": .beyondSchema("whether a file exists"),
        "106-subplan-file-outside": .beyondSchema("where a file is, from the plan's folder"),
        "107-literal-files-missing": .beyondSchema("whether files exist, and where they are"),
        "108-error-inside-subplan": .beyondSchema("the problem is in the other file"),
        "109-unknown-var": .beyondSchema("a var named inside an expression"),
        "110-var-cycle": .beyondSchema("vars reading each other inside expressions"),
        "111-var-reading-step-in-defaults": .beyondSchema("what a var reads, inside expressions"),
        "112-cycle-through-var": .beyondSchema("a dependency cycle through a var"),
        "114-outputs-on-group": .beyondSchema("result fields depend on the kind of the step an expression reads"),
        "118-subplan-not-yaml": .beyondSchema("the other file is not YAML; this one is valid"),
        "094-cookies-field-on-group": .beyondSchema("result fields depend on the kind of the step an expression reads"),
        "153-response-outside-until": .beyondSchema("where `response` may be read inside expressions"),
        "154-response-unknown-field": .beyondSchema("fields of `response` inside an expression"),
        "160-caret-after-escape": .beyondSchema("expression errors: a call's arity, an unknown root name"),
        "161-yaml-control-character": .yamlSyntax("not YAML: a control character outside a quoted escape"),
        "162-yaml-alias-key-in-flow-sequence": .notLoaded("an alias bomb used as a key: refused before it is read"),
        "163-yaml-collection-key-in-flow-mapping": .notLoaded("a list of aliases as a key: refused before it is read"),
        "164-yaml-alias-key-before-text": .yamlSyntax("not YAML: an alias, then text and a colon, in a flow list"),
    ]

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

    @Test func everyCorpusCaseIsClassifiedOnce() throws {
        let folder = CommandRunner.packageRoot.appendingPathComponent("Tests/Corpus/invalid")
        let cases = Set(
            try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(".yaml".count)) })
        #expect(cases.count >= 84)
        let rejected = Set(Self.rejectedBySchema.keys)
        let undecidable = Set(Self.notDecidable.keys)
        #expect(rejected.isDisjoint(with: undecidable), "in both lists: \(rejected.intersection(undecidable).sorted())")
        #expect(
            cases.subtracting(rejected).subtracting(undecidable).isEmpty,
            "corpus cases to classify: \(cases.subtracting(rejected).subtracting(undecidable).sorted())")
        #expect(
            rejected.union(undecidable).subtracting(cases).isEmpty,
            "classified cases not in the corpus: \(rejected.union(undecidable).subtracting(cases).sorted())")
    }

    @Test func schemaAgreesWithTheParserOnTheCorpus() throws {
        var paths: [String] = []
        for name in Self.rejectedBySchema.keys.sorted() { paths.append(Self.corpusPath(name)) }
        for (name, reason) in Self.notDecidable.sorted(by: { $0.key < $1.key }) {
            if case .notLoaded = reason { continue }
            paths.append(Self.corpusPath(name))
        }
        let results = Dictionary(uniqueKeysWithValues: try SchemaChecker.check(paths).files.map { ($0.path, $0) })

        for (name, expected) in Self.rejectedBySchema {
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
        for (name, reason) in Self.notDecidable {
            let file = results[Self.corpusPath(name)]
            switch reason {
            case .notLoaded:
                #expect(file == nil)
            case .yamlSyntax(let why):
                #expect(file?.loaded == false, "\(name) (\(why)) loads as YAML")
            case .beyondSchema(let why):
                // The schema must not be stricter than the parser: the plan's only problems are beyond it.
                #expect(file?.loaded == true, "\(name) does not load: \(file?.loadError ?? "")")
                #expect(file?.valid == true, "\(name) (\(why)) is rejected by the schema: \(file?.errorSummary ?? "")")
            }
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

    // MARK: - Small plans judged by both

    /// A small plan, with what the parser (`reqplan validate`, warnings allowed) and the schema make of it.
    struct EdgeCase: Sendable {
        var name: String
        var yaml: String
        var parserAccepts: Bool
        var schemaAccepts: Bool
        /// For a known difference: why the two disagree.
        var difference: String?

        static func agree(_ name: String, _ yaml: String, accepted: Bool) -> EdgeCase {
            EdgeCase(name: name, yaml: yaml, parserAccepts: accepted, schemaAccepts: accepted)
        }

        /// The parser rejects it, the schema accepts it.
        static func looser(_ name: String, _ yaml: String, _ why: String) -> EdgeCase {
            EdgeCase(name: name, yaml: yaml, parserAccepts: false, schemaAccepts: true, difference: why)
        }
    }

    static let head = "reqplan: 1\ndefaults: { base_url: \"http://h\" }\n"

    /// A plan with one step `a` written as `body`.
    static func step(_ body: String) -> String {
        head + "steps:\n  a:\n" + body.split(separator: "\n").map { "    \($0)\n" }.joined()
    }

    /// A plan with `keys` at the top level and one request step.
    static func top(_ keys: String) -> String { head + keys + "\nsteps:\n  a: { request: { url: /a } }\n" }

    static let edgeCases: [EdgeCase] = [
        // Accepted by both.
        .agree("retry-shorthand", step("request: { url: /a }\nretry: 3"), accepted: true),
        .agree("retry-null-is-empty", step("request: { url: /a }\nretry:"), accepted: true),
        .agree(
            "retry-on-unquoted-429", step("request: { url: /a }\nretry: { on: [429, 5xx], unsafe: true }"),
            accepted: true),
        .agree(
            "needs-a-string", head + "steps:\n  a: { request: { url: /a } }\n  b: { needs: a, request: { url: /b } }\n",
            accepted: true),
        .agree(
            "null-mappings",
            "reqplan: 1\ninputs:\ndefaults:\noutputs:\nsteps:\n  a: { request: { url: \"http://h/a\" } }\n",
            accepted: true),
        .agree(
            "input-forms", top("inputs:\n  user: alice\n  tags: [a, b]\n  tenant:\n  n: { type: list, default: null }"),
            accepted: true),
        .agree("yaml-1.2-yes-is-a-string", top("name: yes\ndescription: on"), accepted: true),
        .agree("tags-ignored-octal-read", top("concurrency: !!str 0o17"), accepted: true),
        .agree(
            "extension-key-and-merges",
            head
                + "x-base: &b { url: /a }\nx-post: &p { method: POST }\nsteps:\n  a: { request: { <<: [*b, *p], json: 1 } }\n",
            accepted: true),
        .agree("statuses", step("request: { url: /a }\nexpect: { status: [200, \"201\", 2XX, 3xX] }"), accepted: true),
        .agree(
            "body-paths",
            step(
                "request: { url: /a }\nexpect:\n  body:\n    $: { type: object }\n    \"$.\": 1\n    \"items[-1]\": 1\n"
                    + "    \"['a b']\": 1\n    \"a . b [ 0 ]\": 1\n    \"x-y[*].z\": 1\n    '[\"k\\n\"]': 1"),
            accepted: true),
        .agree(
            "conditions",
            head + "steps:\n  a: { if: true, request: { url: /a } }\n"
                + "  b: { if: \" ${{ always() }} \", request: { url: /b } }\n"
                + "  c: { if: \"steps.a.status == 200\", request: { url: /c } }\n"
                + "  d: { if: \"${{ steps.a.body.x == '}}' }}\", request: { url: /d } }\n", accepted: true),
        .agree(
            "for-each-forms",
            head + "inputs: { xs: [1] }\nsteps:\n"
                + "  a: { for_each: \"${{ inputs.xs }}\", request: { url: /a } }\n"
                + "  b: { for_each: [], as: my-item, concurrency: 2, on_failure: fail_fast, request: { url: /b } }\n",
            accepted: true),
        .agree(
            "urls",
            head + "inputs: { u: x }\nsteps:\n  a: { request: { url: \"HTTP://h/a\" } }\n"
                + "  b: { request: { url: 5 } }\n  c: { request: { url: \"${{ inputs.u }}://h\" } }\n", accepted: true),
        .agree("step-id-true", head + "steps:\n  true: { request: { url: /a } }\n", accepted: true),
        .agree(
            "bodies-and-parts",
            step(
                "request:\n  url: /a\n  multipart: { a: 1, b: true, c: { file: f, filename: g } }\n"
                    + "  query: { q: , r: [1, x], \"${{ k }}\": 1 }"), accepted: true),
        .agree(
            "matcher-forms",
            step("request: { url: /a }\nexpect:\n  body:\n    a: [1, 2]\n    b: { equals: { c: 1 } }\n    c:\n"),
            accepted: true),
        .agree(
            "group-keys",
            step("timeout: 5s\nconcurrency: 2\non_failure: continue\ngroup: { b: { request: { url: /b } } }"),
            accepted: true),
        .agree(
            "auth-forms",
            "reqplan: 1\ninputs: { t: x }\ndefaults:\n  base_url: \"http://h\"\n  auth: { bearer: \"${{ inputs.t }}\" }\n"
                + "  follow_redirects: false\nsteps:\n  a: { request: { url: /a } }\n"
                + "  b: { request: { url: /b, auth: { basic: { username: u, password: \"\" } }, follow_redirects: true } }\n"
                + "  c: { request: { url: /c, headers: { Authorization: x } } }\n",
            accepted: true),
        .agree(
            "cookies-everywhere",
            top("cookies: false") + "  g: { cookies: true, group: { m: { cookies: false, request: { url: /m } } } }\n",
            accepted: true),
        .agree(
            "required-inputs",
            top(
                "inputs:\n  t: { env: T, required: true }\n  u: { required: false }\n  v: { required: false, default: 1 }"
            ),
            accepted: true),
        .agree("trace-without-body", step("request: { method: TRACE, url: /a }"), accepted: true),
        .agree(
            "match-and-xpath",
            step("request: { url: \"/a/${{ match('x', 'a(b)?') }}/${{ xpath('<a/>', 'count(//a)') }}\" }"),
            accepted: true),
        .agree(
            "poll-forms",
            head + "steps:\n  a: { request: { url: /a }, poll: { until: true, attempts: 2 } }\n"
                + "  b: { request: { url: /b },\n"
                + "       poll: { until: \"${{ response.status == 404 }}\", every: 2s, timeout: 1m } }\n"
                + "  c: { for_each: [1], request: { url: /c },\n"
                + "       poll: { until: false, every: { factor: 1.5 }, attempts: 3 } }\n"
                + "  d: { request: { method: POST, url: /d }, poll: { until: true, attempts: 2, unsafe: true } }\n",
            accepted: true),
        // Rejected by both.
        .agree("auth-empty", step("request: { url: /a, auth: {} }"), accepted: false),
        .agree("auth-null", step("request: { url: /a, auth: }"), accepted: false),
        .agree("auth-bearer-null", step("request: { url: /a, auth: { bearer: } }"), accepted: false),
        .agree(
            "auth-basic-extra-key",
            step("request: { url: /a, auth: { basic: { username: u, password: p, realm: r } } }"),
            accepted: false),
        .agree(
            "auth-header-any-case", step("request: { url: /a, auth: { bearer: t }, headers: { AUTHORIZATION: x } }"),
            accepted: false),
        .agree("auth-on-a-step", step("auth: { bearer: t }\nrequest: { url: /a }"), accepted: false),
        .agree("trace-with-form", step("request: { method: TRACE, url: /a, form: { a: 1 } }"), accepted: false),
        .agree("required-with-default", top("inputs: { t: { required: true, default: x } }"), accepted: false),
        .agree("required-yes", top("inputs: { t: { required: yes } }"), accepted: false),
        .agree(
            "cookies-in-defaults",
            "reqplan: 1\ndefaults: { base_url: \"http://h\", cookies: false }\nsteps:\n  a: { request: { url: /a } }\n",
            accepted: false),
        .agree("retry-zero", step("request: { url: /a }\nretry: 0"), accepted: false),
        .agree("retry-quoted-number", step("request: { url: /a }\nretry: \"3\""), accepted: false),
        .agree("retry-bad-condition", step("request: { url: /a }\nretry: { on: [5xx, 4xx] }"), accepted: false),
        .agree("duration-zero", step("timeout: 0ms0s\nrequest: { url: /a }"), accepted: false),
        .agree("duration-decimal", step("timeout: 1.5s\nrequest: { url: /a }"), accepted: false),
        .agree("duration-ending-with-newline", step("timeout: |\n  5s\nrequest: { url: /a }"), accepted: false),
        .agree("step-id-ending-with-newline", head + "steps:\n  \"a\\n\": { request: { url: /a } }\n", accepted: false),
        .agree("status-leading-zero", step("request: { url: /a }\nexpect: { status: \"0200\" }"), accepted: false),
        .agree("status-empty-list", step("request: { url: /a }\nexpect: { status: [] }"), accepted: false),
        .agree("if-two-expressions", step("if: \"${{ a }} ${{ b }}\"\nrequest: { url: /a }"), accepted: false),
        .agree("if-a-number", step("if: 5\nrequest: { url: /a }"), accepted: false),
        .agree(
            "for-each-space-before",
            head + "inputs: { xs: [1] }\nsteps:\n  a: { for_each: \" ${{ inputs.xs }}\", request: { url: /a } }\n",
            accepted: false),
        .agree("for-each-mapping", step("for_each: { a: 1 }\nrequest: { url: /a }"), accepted: false),
        .agree("for-each-no-body", step("for_each: [1]"), accepted: false),
        .agree(
            "for-each-sequence-body", step("for_each: [1]\nsequence: { b: { request: { url: /b } } }"), accepted: false),
        .agree(
            "for-each-group-with-retry", step("for_each: [1]\nretry: 2\ngroup: { b: { request: { url: /b } } }"),
            accepted: false),
        .agree("url-empty", step("request: { url: \"\" }"), accepted: false),
        .agree("url-scheme", step("request: { url: \"ftp://h/a\" }"), accepted: false),
        .agree("url-scheme-any-case", step("request: { url: \"HTTPS://h/a\" }"), accepted: true),
        .agree(
            "url-relative-with-a-url-in-its-query", step("request: { url: \"/login?next=https://app/x\" }"),
            accepted: true),
        .agree("url-scheme-with-a-path", step("request: { url: \"ftp+x://h/a?u=http://h\" }"), accepted: false),
        .agree("as-on-request", step("as: x\nrequest: { url: /a }"), accepted: false),
        .agree("on-failure-on-request", step("on_failure: continue\nrequest: { url: /a }"), accepted: false),
        .agree("step-id-number", head + "steps:\n  200: { request: { url: /a } }\n", accepted: false),
        .agree("step-id-not-ascii", head + "steps:\n  é: { request: { url: /a } }\n", accepted: false),
        .agree("yaml-1.1-underscore-integer", top("concurrency: 1_000"), accepted: false),
        .agree("extension-key-in-a-step", step("x-note: 1\nrequest: { url: /a }"), accepted: false),
        .agree("matcher-empty", step("request: { url: /a }\nexpect: { body: { a: {} } }"), accepted: false),
        .agree(
            "matcher-exists-yes", step("request: { url: /a }\nexpect: { body: { a: { exists: yes } } }"),
            accepted: false),
        .agree(
            "multipart-file-and-value", step("request: { url: /a, multipart: { p: { file: f, value: v } } }"),
            accepted: false),
        .agree(
            "multipart-neither", step("request: { url: /a, multipart: { p: { content_type: t } } }"), accepted: false),
        .agree(
            "multipart-filename-on-value", step("request: { url: /a, multipart: { p: { value: v, filename: f } } }"),
            accepted: false),
        .agree("multipart-list", step("request: { url: /a, multipart: { p: [v] } }"), accepted: false),
        .agree("query-mapping-value", step("request: { url: /a, query: { q: { a: 1 } } }"), accepted: false),
        .agree("json-key-expression", step("request: { url: /a, json: { \"${{ k }}\": 1 } }"), accepted: false),
        .agree("header-null", step("request: { url: /a, headers: { X-A: } }"), accepted: false),
        .agree(
            "input-default-expression", top("inputs: { x: { default: { a: [\"${{ inputs.y }}\"] } } }"), accepted: false
        ),
        .agree("input-type-null-unquoted", top("inputs: { x: { type: null } }"), accepted: false),
        .agree("input-env-dash", top("inputs: { x: { env: A-B } }"), accepted: false),
        .agree(
            "body-path-dot-bracket", step("request: { url: /a }\nexpect: { body: { \"a.[0]\": 1 } }"), accepted: false),
        .agree(
            "body-path-decimal-index", step("request: { url: /a }\nexpect: { body: { \"a[1.5]\": 1 } }"),
            accepted: false),
        .agree(
            "body-path-space-after-dollar", step("request: { url: /a }\nexpect: { body: { \"$ .a\": 1 } }"),
            accepted: false),
        .agree("redact-number", top("redact_headers: [5]"), accepted: false),
        .agree(
            "poll-in-defaults",
            "reqplan: 1\ndefaults: { base_url: \"http://h\", poll: { until: true, attempts: 2 } }\n"
                + "steps:\n  a: { request: { url: /a } }\n", accepted: false),
        .agree(
            "poll-on-for-each-group",
            step("for_each: [1]\npoll: { until: true, attempts: 2 }\ngroup: { b: { request: { url: /b } } }"),
            accepted: false),
        .agree(
            "poll-patch-unsafe-false",
            step("request: { method: PATCH, url: /a }\npoll: { until: true, attempts: 2, unsafe: false }"),
            accepted: false),
        .agree("poll-attempts-zero", step("request: { url: /a }\npoll: { until: true, attempts: 0 }"), accepted: false),
        .agree(
            "poll-every-number", step("request: { url: /a }\npoll: { until: true, attempts: 2, every: 5 }"),
            accepted: false),
        .agree(
            "poll-until-text-around", step("request: { url: /a }\npoll: { until: \"x ${{ true }}\", attempts: 2 }"),
            accepted: false),
        .agree("poll-a-list", step("request: { url: /a }\npoll: [1]"), accepted: false),
        // Known differences: the schema is looser.
        .looser(
            "integer-written-as-decimal", top("concurrency: 2.0"),
            "JSON Schema counts 2.0 as an integer; the parser wants a whole number written without a fraction"),
        .looser(
            "retry-written-as-decimal", step("request: { url: /a }\nretry: 3.0"),
            "JSON Schema counts 3.0 as an integer"),
        .looser(
            "number-spelling", step("request: { url: /a }\nexpect: { status: 0o310 }"),
            "the schema sees the number 200; the parser reads a status by its spelling"),
        .looser(
            "duration-over-seven-days", step("timeout: 169h\nrequest: { url: /a }"),
            "the 7-day limit is a sum over components, which a pattern cannot add up"),
        .looser(
            "duration-component-too-large", step("timeout: 100000001ms\nrequest: { url: /a }"),
            "the 100 000 000 limit per component is not in the pattern"),
        .looser(
            "headers-repeated-ignoring-case", step("request: { url: /a, headers: { X-A: 1, x-a: 2 } }"),
            "names unique ignoring case: JSON Schema compares keys exactly"),
        .looser(
            "poll-max-below-initial",
            step("request: { url: /a }\npoll: { until: true, attempts: 2, every: { initial: 2s, max: 1s } }"),
            "comparing two durations is beyond a schema"),
        .looser(
            "poll-max-below-default-initial",
            step("request: { url: /a }\npoll: { until: true, attempts: 2, every: { max: 500ms } }"),
            "comparing a duration with the default of another is beyond a schema"),
        .looser(
            "max-backoff-below-backoff", step("request: { url: /a }\nretry: { backoff: 2s, max_backoff: 1s }"),
            "comparing two durations is beyond a schema"),
        .looser(
            "quoted-merge-key", step("request: { \"<<\": { method: GET }, url: /a }"),
            "a quoted `\"<<\"` is an ordinary (unknown) key; the schema allows `<<` for editors without merges"),
        .looser(
            "body-path-index-beyond-64-bits",
            step("request: { url: /a }\nexpect: { body: { \"a[99999999999999999999]\": 1 } }"),
            "an index too large for 64 bits is not an integer to the parser"),
        .agree("input-env-empty", top("inputs: { x: { env: \"\" } }"), accepted: false),
        // Vars, secret outputs and sub-plans (`sub.yaml`, beside the edge cases, declares a number input `n`).
        .agree(
            "vars-and-output-forms",
            top(
                "inputs: { x: a }\nvars: { api: \"${{ inputs.x }}/v2\" }\noutputs:\n  s: { value: \"${{ vars.api }}\", secret: true }\n  o: { a: 1 }"
            ),
            accepted: true),
        .agree("output-declaration-unknown-key", top("outputs: { s: { value: 1, secrett: true } }"), accepted: false),
        .agree(
            "plan-step", step("plan: { file: sub.yaml, inputs: { n: 1 } }\nconcurrency: 2\ntimeout: 5s"), accepted: true
        ),
        .agree(
            "plan-step-and-request", step("plan: { file: sub.yaml, inputs: { n: 1 } }\nrequest: { url: /a }"),
            accepted: false),
        .agree("plan-step-without-file", step("plan: { inputs: { n: 1 } }"), accepted: false),
        .agree(
            "plan-step-computed-file", step("plan: { file: \"${{ 'sub.yaml' }}\", inputs: { n: 1 } }"), accepted: false),
        .agree(
            "plan-step-on-failure", step("plan: { file: sub.yaml, inputs: { n: 1 } }\non_failure: continue"),
            accepted: false),
        .agree("plan-step-unknown-key", step("plan: { file: sub.yaml, input: { n: 1 } }"), accepted: false),
        .agree(
            "for-each-over-plan", step("for_each: [1]\nplan: { file: sub.yaml, inputs: { n: 1 } }"), accepted: false),
        .agree("item-named-vars", step("for_each: [1]\nas: vars\nrequest: { url: /a }"), accepted: false),
        // The hand-written schema let `poll` through on a plan step; the generated one forbids the request-only keys.
        .agree(
            "plan-step-poll", step("plan: { file: sub.yaml, inputs: { n: 1 } }\npoll: { until: true, attempts: 2 }"),
            accepted: false),
    ]

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
        var paths: [String: String] = [:]
        for edge in Self.edgeCases {
            let file = directory.appendingPathComponent("\(edge.name).yaml")
            try edge.yaml.write(to: file, atomically: true, encoding: .utf8)
            paths[edge.name] = file.path
        }
        #expect(paths.count == Self.edgeCases.count, "edge case names must be unique")
        let ordered = Self.edgeCases.compactMap { paths[$0.name] }

        let validation = try CommandRunner.run(["validate", "--format", "json"] + ordered)
        let parsed = try JSONDecoder().decode(ValidateOutput.self, from: Data(validation.stdout.utf8))
        let parser = Dictionary(uniqueKeysWithValues: parsed.plans.map { ($0.file, $0.valid) })
        let schema = Dictionary(uniqueKeysWithValues: try SchemaChecker.check(ordered).files.map { ($0.path, $0) })

        for edge in Self.edgeCases {
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
