import Testing

import Yams

@testable import ReqPlanSyntax

/// JSON writes a character above U+FFFF as the escapes of its UTF-16 surrogate pair (`"\ud83c\udfb2"`, RFC 8259
/// §7), which libyaml refuses; reqplan reads the pair as the one character it stands for, in a double-quoted
/// scalar only, with every place after it where the text has it. Half a pair is a located error.
@Suite struct SurrogatePairEscapeTests {
    /// The document's value by both readers: a plan's (`YAMLComposer`) and every other file's (`DataDocument`).
    static func values(_ text: String) -> (plan: Result<YAMLNode?, Diagnostic>, data: Result<Value, Diagnostic>) {
        let source = SourceFile(path: "t.json", text: text)
        let plan = YAMLLoader.composePlan(source, limits: ParseLimits())
        let data: Result<Value, Diagnostic>
        switch DataDocument.parse(source, what: "API description", limits: ParseLimits()) {
        case .failure(let failure): data = .failure(failure.diagnostic)
        case .success(let document): data = document.value()
        }
        return (plan, data)
    }

    @Test(arguments: [
        ("{\"a\": \"\\ud83c\\udfb2\"}", "🎲"),
        ("a: \"\\uD83C\\uDFB2 and \\ud834\\udd1e\"\n", "🎲 and 𝄞"),
        // Over two lines, and beside other escapes (an escaped backslash before `u` is no escape).
        ("a: \"x \\ud83c\\udfb2\n  \\ud83c\\udfb2\\n\\\\ud83c\"\n", "x 🎲 🎲\n\\ud83c"),
        ("[\"\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\"]", "😀😀😀"),
    ])
    func aPairIsTheCharacterItStandsFor(text: String, expected: String) throws {
        let (plan, data) = Self.values(text)
        let node = try plan.get()
        let scalar =
            node?.string
            ?? node.flatMap { node -> String? in
                if case .mapping(let mapping) = node { return mapping.first?.value.string }
                if case .sequence(let items) = node { return items.first?.string }
                return nil
            }
        #expect(scalar == expected)
        switch try data.get() {
        case .object(let fields): #expect(fields.first?.value == .string(expected))
        case .list(let items): #expect(items.first == .string(expected))
        case let other: Issue.record("read \(other)")
        }
    }

    /// Outside a double-quoted scalar an escape is text: plain, single-quoted, block scalars and comments keep
    /// it as written.
    @Test func aPairOutsideDoubleQuotesIsText() throws {
        let text = """
            plain: \\ud83c\\udfb2
            single: '\\ud83c\\udfb2 "x"'
            block: |
              "\\ud83c\\udfb2"
            # "\\ud83c\\udfb2"
            double: "\\ud83c\\udfb2"

            """
        let value = try Self.values(text).data.get()
        #expect(
            value
                == .object([
                    .init("plain", .string("\\ud83c\\udfb2")), .init("single", .string("\\ud83c\\udfb2 \"x\"")),
                    .init("block", .string("\"\\ud83c\\udfb2\"\n")), .init("double", .string("🎲")),
                ]))
    }

    /// Every node after a pair starts where the text has it: the readers' marks are the file's lines and columns.
    @Test func nodesAfterAPairAreWhereTheTextHasThem() throws {
        let line = "{\"a\": \"\\ud83c\\udfb2\\ud83c\\udfb2\", \"b\": [\"\\ud83c\\udfb2\", x]}"
        /// The column of `token` in `line`, as written.
        func column(of token: String) -> Int {
            guard let range = line.range(of: token) else { return 0 }
            return line.unicodeScalars.distance(from: line.startIndex, to: range.lowerBound) + 1
        }
        guard case .mapping(let mapping)? = try Self.values(line + "\n").plan.get() else {
            Issue.record("not a mapping")
            return
        }
        #expect(mapping[1].key.mark == SourceLocation(line: 1, column: column(of: "\"b\"")))
        guard case .sequence(let items) = mapping[1].value else {
            Issue.record("not a list")
            return
        }
        #expect(items.mark == SourceLocation(line: 1, column: column(of: "[")))
        #expect(items[1].mark == SourceLocation(line: 1, column: column(of: "x")))
        // Yams' nodes, which every other reader reads, likewise.
        let yams = try YAMLLoader.compose(SourceFile(path: "t.json", text: line), limits: ParseLimits()).get()
        let b = yams?.mapping?.first { $0.key.string == "b" }
        #expect(b?.key.mark?.column == column(of: "\"b\""))
        #expect(b?.value.sequence?.last?.mark?.column == column(of: "x"))
        // In YAML: after a key, and after a scalar over two lines.
        let yaml =
            "\"\\ud83c\\udfb2\": [a, \"\\ud83c\\udfb2\\ud83c\\udfb2\", b]\nc: \"x \\ud83c\\udfb2\n  \\ud83c\\udfb2 y\" # z\nd: e\n"
        guard case .mapping(let entries)? = try Self.values(yaml).plan.get(), entries.count == 3,
            case .sequence(let list) = entries[0].value
        else {
            Issue.record("not read")
            return
        }
        #expect(list.mark == SourceLocation(line: 1, column: 17))
        #expect(list[2].mark == SourceLocation(line: 1, column: 49))
        #expect(entries[1].value.string == "x 🎲 🎲 y")
        #expect(entries[2].key.mark == SourceLocation(line: 4, column: 1))
        #expect(entries[2].value.mark == SourceLocation(line: 4, column: 4))
        // A control character after a pair is located at it.
        let control = SourceFile(path: "t.yaml", text: "a: [\"\\ud83c\\udfb2\", é\u{07}]\n")
        guard case .failure(let unreadable) = YAMLLoader.compose(control, limits: ParseLimits()) else {
            Issue.record("composed")
            return
        }
        #expect(unreadable.range?.start == SourceLocation(line: 1, column: 22))
        // A second document after a pair is refused where it starts.
        let source = SourceFile(path: "t.yaml", text: "a: \"\\ud83c\\udfb2\" # x\n--- b\n")
        for failure in YAMLLoader.failures(composing: source) {
            guard let diagnostic = failure else {
                Issue.record("composed")
                continue
            }
            #expect(diagnostic.range?.start == SourceLocation(line: 2, column: 1))
        }
    }

    /// Half a pair, or a code past U+10FFFF, is refused at its escape, in words that say what is wrong.
    @Test(arguments: [
        (
            "a: \"\\ud800\"\n", 1, 5, 6,
            "`\\ud800` is the first half of a UTF-16 surrogate pair, and no second half follows"
        ),
        (
            "{\"a\": \"\\ud83c\\udfb2 \\udfb2\"}", 1, 21, 6,
            "`\\udfb2` is the second half of a UTF-16 surrogate pair, and no first half comes before it"
        ),
        ("a: \"\\U00110000\"\n", 1, 5, 10, "`\\U00110000` is not a Unicode character (the last is U+10FFFF)"),
        (
            "a: \"x\n  \\ud83c\\udfb2\\ud83c x\"\n", 2, 15, 6,
            "`\\ud83c` is the first half of a UTF-16 surrogate pair, and no second half follows"
        ),
    ])
    func halfAPairIsRefusedAtItsEscape(text: String, line: Int, column: Int, length: Int, message: String) {
        let (plan, data) = Self.values(text)
        for result in [plan.map { _ in () }, data.map { _ in () }] {
            guard case .failure(let diagnostic) = result else {
                Issue.record("read")
                continue
            }
            #expect(diagnostic.code == .yamlSyntax)
            #expect(diagnostic.message == "invalid YAML: \(message)")
            #expect(diagnostic.range == SourceRange(start: SourceLocation(line: line, column: column), length: length))
            #expect(diagnostic.hint?.contains("\\U0001F3B2") == true)
        }
    }
}
