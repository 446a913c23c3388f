import Testing

@testable import ReqPlanSyntax

/// Keys that are lists or mappings, or aliases of them, are refused before Yams composes the text (it hashes
/// every key, and an alias bomb as a key would take exponential time). They are found where libyaml finds
/// keys, so text inside a block scalar, a quoted scalar or a comment is never read as a key.
@Suite struct ComplexKeyScannerTests {
    /// Both readers: a plan's (`YAMLComposer`) and every other file's (Yams, through `DataDocument`).
    static func read(_ text: String) -> (plan: Diagnostic?, data: Diagnostic?) {
        let source = SourceFile(path: "t.yaml", text: text)
        var plan: Diagnostic?
        if case .failure(let diagnostic) = YAMLLoader.composePlan(source, limits: ParseLimits()) { plan = diagnostic }
        var data: Diagnostic?
        switch DataDocument.parse(source, what: "Arazzo document", limits: ParseLimits()) {
        case .failure(let failure): data = failure.diagnostic
        case .success(let document):
            if case .failure(let diagnostic) = document.value() { data = diagnostic }
        }
        return (plan, data)
    }

    /// A text with an anchor-like `&quot;` (so the scan runs) and, inside a scalar, what looks like a key.
    @Test(arguments: [
        // A block scalar whose header has a comment: its text was scanned as YAML.
        "info:\n  description: |- # shown as is\n    Says &quot;hi&quot;\n    *see*: the docs\n",
        // A double-quoted scalar over two lines: the second was scanned as YAML.
        "info:\n  description: \"Says &quot;hi&quot;,\n    see [1]: the docs\"\n",
        // A single-quoted one.
        "info:\n  description: 'Says &quot;hi&quot;,\n    see {1}: the docs'\n",
        // A block scalar after a tab, or after a tag.
        "info:\n  description:\t|\n    Says &quot;hi&quot;\n    a]: b\n",
        "info:\n  description: !!str >\n    Says &quot;hi&quot;\n    a]: b\n",
        // A plain scalar's second line that starts with `? `.
        "info:\n  description: Says &quot;hi&quot;\n    ? or not\n",
        // A comment.
        "# &quot;a&quot;\nx: 1 # [a]: b\n",
        // An explicit key that is a scalar, and an alias of a scalar as a key, are ordinary keys.
        "a: &x b\n? c\n: d\n",
        "a: &x b\n*x : c\n",
    ])
    func textInsideAScalarIsNeverTakenForAKey(text: String) {
        let (plan, data) = Self.read(text)
        #expect(plan == nil, "\(String(describing: plan))")
        #expect(data == nil, "\(String(describing: data))")
    }

    /// The Arazzo document the problem was seen in, in short: a description with HTML entities, and a
    /// criterion whose text has a key-like colon in a folded scalar with a comment.
    @Test func anArazzoDocumentWithEntitiesInABlockScalarIsRead() {
        let text = """
            arazzo: 1.0.1
            info:
              title: Coupons
              version: 1.0.0
              description: >- # rendered by the portal
                Applies &quot;the usual&quot; coupon.
                [Coupons]: see the pet store's documentation.
            sourceDescriptions:
              - name: pets
                url: ./pets.yaml
                type: openapi
            workflows:
              - workflowId: apply
                steps:
                  - { stepId: find, operationId: findPets }

            """
        let (plan, data) = Self.read(text)
        #expect(plan == nil, "\(String(describing: plan))")
        #expect(data == nil, "\(String(describing: data))")
    }

    /// Keys that are refused, and where: the alias or the collection that is the key.
    @Test(arguments: [
        // After a block scalar in a mapping that is a list item, the line holding the key was taken for the
        // scalar's text (indented more than the line of its header), so the key went through to Yams.
        ("x: &a [1]\nsteps:\n  - description: |\n      text\n    *a: 1\n", 5, 5),
        // An anchor after a JSON key's colon (`"a":&a`), with nothing between: the scan did not run.
        ("{\"a\":&a [1, 2], *a: 1}\n", 1, 17),
        // The fuzzer's three (Tests/Corpus/invalid/162-164) and a collection as a key.
        ("a: &a [x]\ni: [*a, *a, *a: *a]\n", 2, 13),
        ("a: &a [x]\ng: { [*a, *a], g: 1 }\n", 2, 6),
        ("a: &a [x]\ni: [*a, *a  timeout: 5s]\n", 2, 9),
        ("a: &a [x]\n[b, c]: 1\n", 2, 1),
        ("a: &a [x]\n? { b: c }\n: 1\n", 2, 3),
    ])
    func aKeyThatIsACollectionOrItsAliasIsRefused(text: String, line: Int, column: Int) {
        let (plan, data) = Self.read(text)
        for diagnostic in [plan, data] {
            #expect(diagnostic?.code == .unsupportedYAML, "\(String(describing: diagnostic))")
            #expect(diagnostic?.range?.start == SourceLocation(line: line, column: column))
        }
    }
}
