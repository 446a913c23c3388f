import Testing

@testable import ReqPlanSyntax

/// What `YAMLLoader` words, whichever reader met it.
@Suite struct YAMLLoaderTests {
    /// libyaml's reader stops at a control character; Yams says where in characters, not bytes, so text before
    /// it that is not ASCII moved the place (`é` is two bytes: column 3 instead of 4).
    @Test(arguments: ["é: \u{07}\n", "x: 1\n\"日本\": \u{07}\n"])
    func aControlCharacterIsLocatedAtIt(text: String) throws {
        let source = SourceFile(path: "t.yaml", text: text)
        let line = source.lineCount - 1
        let column = try #require(source.line(line)).unicodeScalars.count
        for failure in YAMLLoader.failures(composing: source) {
            guard let diagnostic = failure else {
                Issue.record("composed")
                continue
            }
            #expect(diagnostic.message.hasPrefix("the file cannot be read as UTF-8 YAML"))
            #expect(diagnostic.range?.start == SourceLocation(line: line, column: column))
        }
    }
}

extension YAMLLoader {
    /// What each composer (Yams' tree and the plan's own) says of `source`: its diagnostic, or nil when it
    /// composed. Both must refuse the same text at the same place.
    static func failures(composing source: SourceFile) -> [Diagnostic?] {
        [
            compose(source, limits: ParseLimits()).map { _ in () },
            composePlan(source, limits: ParseLimits()).map { _ in () },
        ].map { result in
            guard case .failure(let diagnostic) = result else { return nil }
            return diagnostic
        }
    }
}
