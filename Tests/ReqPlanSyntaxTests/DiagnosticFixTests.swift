import Testing

@testable import ReqPlanSyntax

/// A diagnostic's fix: the text for its range, written as YAML (or JSON) needs it there, and in the JSON
/// output only where there is one.
@Suite struct DiagnosticFixTests {
    @Test(
        "a scalar is written in the style of the one it replaces, quoted where plain would not read back",
        arguments: [
            // Plain stays plain where the value reads back as itself.
            (
                "petstore.getPetById", "$sourceDescriptions.petstore.getPetById",
                "$sourceDescriptions.petstore.getPetById"
            ),
            // `{` cannot start a plain scalar; `: ` and ` #` would end one; `true` and `12` are not strings.
            (
                "$sourceDescriptions.api#/paths/~1pets/get", "{$sourceDescriptions.api.url}#/paths/~1pets/get",
                "'{$sourceDescriptions.api.url}#/paths/~1pets/get'"
            ),
            ("x", "a: b", "'a: b'"), ("x", "a #b", "'a #b'"), ("x", "true", "'true'"), ("x", "12", "'12'"),
            ("x", "-a", "'-a'"), ("x", "it's", "'it''s'"),
            // Quoted stays quoted, escaped as its style escapes.
            ("'a'", "it's {x}", "'it''s {x}'"), ("\"a\"", "say \"hi\"\\", #""say \"hi\"\\""#),
            ("\"a\"", "tab\there", #""tab\there""#),
        ])
    func scalarKeepsItsStyle(_ written: String, _ value: String, _ expected: String) throws {
        let fix = try #require(Diagnostic.Fix.scalar(value, replacing: written, title: "t"))
        #expect(fix.replacement == expected)
    }

    @Test(
        "no fix stands for a block scalar, a flow collection or text over lines",
        arguments: ["|", ">-", "[a]", "{a: b}", "a\nb", ""])
    func noFixWhereTheRangeIsNotOneScalar(_ written: String) {
        #expect(Diagnostic.Fix.scalar("v", replacing: written, title: "t") == nil)
    }

    @Test func theJSONOutputHasAFixOnlyWhereThereIsOne() {
        let range = SourceRange(start: SourceLocation(line: 3, column: 18), length: 22)
        var diagnostic = Diagnostic.warning(.unusedInput, "input `a` is never used", at: range)
        #expect(!DiagnosticRenderer.json(diagnostic).jsonText().contains("\"fix\""))
        diagnostic.fix = Diagnostic.Fix(title: "Write `$a.b`", replacement: "$a.b")
        #expect(
            DiagnosticRenderer.json(diagnostic).jsonText().hasSuffix(
                #""notes":[],"fix":{"title":"Write `$a.b`","replacement":"$a.b","safe":true}}"#))
    }
}
