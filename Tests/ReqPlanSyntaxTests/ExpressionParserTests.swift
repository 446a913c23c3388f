import Testing

@testable import ReqPlanSyntax

/// Parses `text` as the value of a scalar at 1:1 of a one-line file.
private func template(_ text: String, line: String? = nil) -> Result<Template, Diagnostic> {
    let source = SourceFile(path: "t.yaml", text: line ?? text)
    let column = (line.map { Array($0.unicodeScalars) } ?? []).firstIndex(of: text.unicodeScalars.first ?? " ") ?? 0
    return TemplateParser(source: source).template(
        text, at: SourceRange(at: SourceLocation(line: 1, column: column + 1)))
}

private func expression(_ text: String) throws -> Expression {
    let parsed = try template("${{ \(text) }}").get()
    return try #require(parsed.singleExpression)
}

@Suite struct ExpressionParserTests {
    @Test(arguments: [
        ("a || b && c", "a || b && c"),
        ("(a || b) && c", "(a || b) && c"),
        ("!a == b", "!a == b"),
        ("a == b || c != d", "a == b || c != d"),
        ("a < b == c >= d", "a < b == c >= d"),
        ("!(a && b)", "!(a && b)"),
        ("a && b || c && d", "a && b || c && d"),
    ])
    func precedenceRoundTrips(text: String, canonical: String) throws {
        #expect(try expression(text).description == canonical)
    }

    @Test func andBindsTighterThanOr() throws {
        guard case .binary(.or, let left, let right, _) = try expression("a || b && c") else {
            Issue.record("expected || at the top")
            return
        }
        #expect(left.description == "a")
        guard case .binary(.and, _, _, _) = right else {
            Issue.record("expected && on the right")
            return
        }
    }

    @Test func comparisonBindsTighterThanEquality() throws {
        guard case .binary(.equal, let left, _, _) = try expression("a < b == true") else {
            Issue.record("expected == at the top")
            return
        }
        #expect(left.description == "a < b")
    }

    @Test func notAppliesToPostfixPath() throws {
        guard case .not(let operand, _) = try expression("!steps.a.body.ok") else {
            Issue.record("expected !")
            return
        }
        #expect(operand.reference?.description == "steps.a.body.ok")
    }

    @Test func pathsWithAllComponentKinds() throws {
        let parsed = try expression("steps.uploads.results[*].body['x-y'][0][-1].url")
        let reference = try #require(parsed.reference)
        #expect(reference.root.value == "steps")
        #expect(
            reference.components.map(\.value) == [
                .member("uploads"), .member("results"), .wildcard, .member("body"), .member("x-y"), .index(0),
                .index(-1), .member("url"),
            ])
    }

    @Test func namesMayContainDashes() throws {
        #expect(try expression("steps.load-config.status").reference?.memberName(at: 0)?.value == "load-config")
    }

    @Test(arguments: [
        ("'it''s'", Value.string("it's")),
        ("\"a\\\"b\"", Value.string("a\"b")),
        ("42", Value.int(42)),
        ("-7", Value.int(-7)),
        ("2.5", Value.double(2.5)),
        ("1e3", Value.double(1000)),
        ("true", Value.bool(true)),
        ("null", Value.null),
    ])
    func literals(text: String, value: Value) throws {
        guard case .literal(let parsed, _) = try expression(text) else {
            Issue.record("expected a literal for \(text)")
            return
        }
        #expect(parsed == value)
    }

    @Test func callsWithArguments() throws {
        guard case .call(let name, let arguments, _) = try expression("contains(steps.a.body, 'x')") else {
            Issue.record("expected a call")
            return
        }
        #expect(name.value == "contains")
        #expect(arguments.count == 2)
    }

    @Test func memberAccessOnACallResult() throws {
        let parsed = try expression("from_json(steps.a.body).token")
        guard case .access(.call, let component, _) = parsed else {
            Issue.record("expected access on a call")
            return
        }
        #expect(component.value == .member("token"))
    }

    @Test func closingBracesInsideAStringDoNotEndTheExpression() throws {
        let parsed = try template("${{ 'a }} b' }}").get()
        #expect(parsed.singleExpression != nil)
    }
}

@Suite struct TemplateTests {
    @Test func singleExpressionKeepsItsType() throws {
        let parsed = try template("${{ inputs.images }}").get()
        #expect(parsed.singleExpression != nil)
        #expect(parsed.parts.count == 1)
    }

    @Test func spacesAroundASingleExpressionMakeItText() throws {
        let parsed = try template(" ${{ inputs.images }}").get()
        #expect(parsed.singleExpression == nil)
    }

    @Test func textAroundExpressionsInterpolates() throws {
        let parsed = try template("/users/${{ inputs.user }}/items/${{ steps.a.body.id }}").get()
        #expect(parsed.singleExpression == nil)
        #expect(parsed.expressions.count == 2)
        guard case .text(let first) = parsed.parts[0], case .text(let middle) = parsed.parts[2] else {
            Issue.record("expected text parts")
            return
        }
        #expect(first == "/users/")
        #expect(middle == "/items/")
    }

    @Test func plainTextIsLiteral() throws {
        let parsed = try template("/home").get()
        #expect(parsed.literalText == "/home")
    }

    @Test func interpolationFormatsValues() {
        #expect(Value.null.interpolated == "")
        #expect(Value.int(3).interpolated == "3")
        #expect(Value.double(2.5).interpolated == "2.5")
        #expect(Value.bool(true).interpolated == "true")
        #expect(Value.list([.int(1), .string("a")]).interpolated == "[1,\"a\"]")
    }
}

@Suite struct ExpressionErrorPositionTests {
    /// The column (1-based) where the error for `value`, written on `line`, is reported.
    private func errorColumn(_ value: String, line: String) -> (column: Int, message: String)? {
        guard case .failure(let diagnostic) = template(value, line: line) else { return nil }
        return (diagnostic.range?.start.column ?? 0, diagnostic.message)
    }

    @Test func danglingOperatorPointsAtTheClosingBraces() {
        let line = "url: /x/${{ steps.a.body && }}"
        let error = errorColumn("/x/${{ steps.a.body && }}", line: line)
        #expect(error?.column == 29)
        #expect(error?.message == "expected an expression after `&&`")
    }

    @Test func unexpectedCharacterIsLocated() {
        let line = "url: \"${{ a = b }}\""
        let error = errorColumn("${{ a = b }}", line: line)
        #expect(error?.column == 13)
        #expect(error?.message.contains("unexpected character `=`") == true)
    }

    @Test func unterminatedExpression() {
        let line = "url: /a/${{ inputs.user"
        let error = errorColumn("/a/${{ inputs.user", line: line)
        #expect(error?.message == "expected `}}` to close the expression")
        #expect(error?.column == 24)
    }

    @Test func unterminatedStringPointsAtItsQuote() {
        let line = "if: ${{ 'abc }}"
        let error = errorColumn("${{ 'abc }}", line: line)
        #expect(error?.column == 9)
        #expect(error?.message == "unterminated string literal")
    }

    @Test func badBracketContent() {
        let line = "x: ${{ steps.a.results[b] }}"
        let error = errorColumn("${{ steps.a.results[b] }}", line: line)
        #expect(error?.column == 24)
    }

    @Test func emptyExpression() {
        let error = errorColumn("${{ }}", line: "x: ${{ }}")
        #expect(error?.message == "empty expression")
        #expect(error?.column == 8)
    }

    @Test func errorInsideQuotedScalarWithEscapesFallsBackToTheExpressionStart() {
        // The value differs from the source text (an escape before the expression), so
        // the locator searches from `${{` instead of the whole line.
        let line = #"u: "a\tb ${{ x + }}""#
        let error = errorColumn("a\tb ${{ x + }}", line: line)
        #expect(error?.column == 16)
    }
}
