import Yams

/// Turns YAML text into a node tree with marks, or into located diagnostics.
///
/// Plans are composed into `YAMLNode`s (`composePlan`, over libyaml's events); other YAML and JSON (inputs
/// and data files, API descriptions, Arazzo documents) into Yams' tree with `Yams.compose` (never
/// `YAMLDecoder`, which drops positions) and the basic resolver. Either way the reader resolves plain
/// scalars itself with the YAML 1.2 core schema, so `yes`, `no` and `on` stay strings, and a problem is
/// worded the same (`diagnostic(for:in:what:)`).
enum YAMLLoader {
    /// Composes `source` into Yams' node tree; `nil` for an empty document (or one of comments only).
    /// - Parameter what: what the file is, in messages (`plan`, `inputs file`).
    static func compose(_ source: SourceFile, limits: ParseLimits, what: String = "plan") -> Result<Node?, Diagnostic> {
        let text: ReadableText
        switch readable(source, limits: limits, what: what) {
        case .failure(let refused): return .failure(refused)
        case .success(let readable): text = readable
        }
        do {
            // UTF-8, Swift's native encoding, as Yams' default would choose; naming it spares reading the
            // whole environment for `YAMS_DEFAULT_ENCODING` at every file (a suite reads hundreds).
            return .success(try Yams.compose(yaml: text.text, Resolver.basic, .default, .utf8))
        } catch let error as YamlError {
            return .failure(diagnostic(for: text.placedInFile(YAMLProblem(error)), in: source, what: what))
        } catch {
            return .failure(.error(.yamlSyntax, "\(error)", at: nil))
        }
    }

    /// Composes a plan's `source` (or another document a reader walks itself, `what`) into `YAMLNode`s, under
    /// the same checks and with the same diagnostics as `compose`; `nil` for an empty document (or one of
    /// comments only).
    static func composePlan(_ source: SourceFile, limits: ParseLimits, what: String = "plan")
        -> Result<YAMLNode?, Diagnostic>
    {
        switch readable(source, limits: limits, what: what) {
        case .failure(let refused): return .failure(refused)
        case .success(let text):
            return YAMLComposer.compose(text.text).mapError {
                diagnostic(for: text.placedInFile($0), in: source, what: what)
            }
        }
    }

    /// Composes a part of a plan (a run of its steps, `PlanReader.readAlone`) whose file passed the size limit;
    /// `nil` when it does not compose, or has keys that are lists or mappings. Nothing is worded: the whole
    /// plan is read again then, and reports why.
    static func composePlanPart(_ text: String) -> YAMLNode? {
        let text = SurrogatePairEscapes.rewriting(text)?.text ?? text
        if ComplexKeyScanner.firstComplexKey(in: text) != nil { return nil }
        return try? YAMLComposer.compose(text).get()
    }

    /// The text libyaml reads for a file, and how to find a place of it in the file.
    struct ReadableText {
        /// The text: the file's, with JSON's surrogate pair escapes rewritten (`SurrogatePairEscapes`).
        var text: String
        /// The rewritten escapes, if any: what moved.
        var escapes: SurrogatePairEscapes?

        /// `problem`, found in `text`, placed in the file: a reader's error at the character it stopped at.
        func placedInFile(_ problem: YAMLProblem) -> YAMLProblem {
            var problem = problem
            if problem.kind == .reader, let offset = problem.offset {
                problem.mark = YAMLLoader.location(ofCharacter: offset, in: text)
            }
            guard let escapes else { return problem }
            problem.mark = escapes.original(problem.mark)
            if let context = problem.context { problem.context = (context.text, escapes.original(context.mark)) }
            if let again = problem.duplicate?.again { problem.duplicate?.again = escapes.original(again) }
            return problem
        }
    }

    /// The text to compose for `source`, or why it is not composed at all: larger than the limit, or with keys
    /// that are lists or mappings, or aliases of them.
    private static func readable(_ source: SourceFile, limits: ParseLimits, what: String)
        -> Result<ReadableText, Diagnostic>
    {
        if source.text.utf8.count > limits.maxFileSize {
            return .failure(
                .error(
                    .fileTooLarge,
                    "\(what) is \(source.text.utf8.count) bytes, more than the limit of \(limits.maxFileSize) bytes",
                    at: nil, hint: limits.tooLargeHint(splitting: "the \(what)")))
        }
        let escapes = SurrogatePairEscapes.rewriting(source.text)
        let text = ReadableText(text: escapes?.text ?? source.text, escapes: escapes)
        if let complexKey = ComplexKeyScanner.firstComplexKey(in: text.text) {
            return .failure(
                .error(
                    .unsupportedYAML,
                    "complex mapping keys (lists, mappings or their aliases as keys) are not supported",
                    at: SourceRange(at: escapes?.original(complexKey) ?? complexKey),
                    hint: "\(what) keys are plain names"))
        }
        return .success(text)
    }

    /// "a plan file", "an inputs file": the file in a sentence.
    private static func aFile(_ what: String) -> String {
        if what == "plan" { return "a plan file" }
        return ("aeiou".contains(what.prefix(1)) ? "an " : "a ") + what
    }

    /// The line and column (columns counted in Unicode scalars, as marks are) of the character at `offset`, the
    /// characters before it counted as Yams counts a reader's offset (`Character`s).
    fileprivate static func location(ofCharacter offset: Int, in text: String) -> SourceLocation {
        let before = SourceFile(path: "", text: String(text.prefix(max(offset, 0))))
        return SourceLocation(
            line: before.lineCount, column: (before.line(before.lineCount)?.unicodeScalars.count ?? 0) + 1)
    }

    /// Whether the line of `location` is indented deeper than the previous line, which
    /// holds a `key: value` pair, so YAML reads the line as a continuation of that value.
    private static func continuesValueAbove(_ location: SourceLocation, in source: SourceFile) -> Bool {
        guard let line = source.line(location.line) else { return false }
        let indent = line.prefix(while: { $0 == " " }).count
        var number = location.line - 1
        while let previous = source.line(number) {
            number -= 1
            if previous.trimmingCharactersIsBlankOrComment { continue }
            let previousIndent = previous.prefix(while: { $0 == " " }).count
            guard indent > previousIndent, let colon = previous.firstRange(of: ": ") else { return false }
            let value = previous[colon.upperBound...].drop(while: { $0 == " " })
            return !value.isEmpty && !value.hasPrefix("#") && !value.hasPrefix("|") && !value.hasPrefix(">")
        }
        return false
    }

    static func diagnostic(for error: YAMLProblem, in source: SourceFile, what: String = "plan") -> Diagnostic {
        switch error.kind {
        case .scanner where error.problem.contains("invalid Unicode character escape"):
            return invalidEscape(at: error.mark, in: source)
        case .scanner, .parser, .composer:
            let (context, problem, mark) = (error.context, error.problem, error.mark)
            var notes: [Diagnostic.Note] = []
            if let context, context.mark != mark, context.mark.line > 0 {
                notes.append(.init(context.text, at: SourceRange(at: context.mark)))
            }
            var message = problem
            if let context, notes.isEmpty, !context.text.isEmpty { message = "\(problem) \(context.text)" }
            var at = source.tokenRange(at: mark)
            let hint: String?
            if problem.contains("expected a single document") || problem.contains("another document") {
                message = "\(aFile(what)) holds one YAML document, but a second one starts here"
                hint = "remove the `---` separator, or split the file"
                notes = notes.map { .init("the first document starts here", at: $0.range) }
            } else if problem.contains("tab") || source.character(at: mark) == "\t" {
                message = "a tab character cannot indent YAML"
                at = SourceRange(at: mark)
                hint = "indent with spaces, not tabs"
            } else if problem.contains("end of stream"), let context, context.text.contains("quoted scalar") {
                // The end of the file says nothing; the opening quote does.
                message = "this quoted string is never closed"
                at = SourceRange(at: context.mark)
                notes = []
                let quote = source.character(at: context.mark).map { "`\($0)`" } ?? "quote"
                hint = "close it with \(quote); a quoted string may span lines, so YAML read on to the end of the file"
            } else if problem.contains("mapping values are not allowed") {
                hint =
                    continuesValueAbove(mark, in: source)
                    ? "this line is indented more than the key above it, so YAML reads it as part of that key's value; "
                        + "align it with the keys above"
                    : "quote a value that contains `: `"
            } else if problem.contains("did not find expected key"), context?.text.contains("block mapping") == true {
                hint = "the keys of one mapping start in the same column; check the indentation of this line"
            } else if (problem.contains("did not find expected ',' or ']'")
                || problem.contains("did not find expected ',' or '}'")),
                source.line(mark.line).map(Template.opensExpression) == true
            {
                hint = "inside `{ }` or `[ ]`, a value with `${{ }}` must be quoted: write \"${{ … }}\""
            } else if problem.contains("did not find expected ',' or ']'") {
                hint = "close the `[` list with `]`"
            } else if problem.contains("did not find expected ',' or '}'") {
                hint = "close the `{` mapping with `}`"
            } else if problem.contains("Maximum nesting level") {
                message = "the document is nested more than 1000 levels deep"
                hint = nil
            } else {
                hint = nil
            }
            return .error(.yamlSyntax, "invalid YAML: \(message)", at: at, notes: notes, hint: hint)
        case .reader:
            // Where libyaml's reader stopped (a control character, invalid UTF-8), if that starts a character.
            let at = error.offset.map { _ in SourceRange(at: error.mark) }
            return .error(
                .yamlSyntax, "the file cannot be read as UTF-8 YAML: \(error.problem)", at: at,
                hint: "save the \(what) as UTF-8 text; write a control character as an escape in a double-quoted string"
            )
        case .duplicateKey:
            let key = error.duplicate?.key ?? ""
            let first = error.mark
            let second = error.duplicate?.again ?? findRepeatedKey(key, after: first, in: source)
            let notes: [Diagnostic.Note] =
                second == nil ? [] : [.init("`\(key)` is first given here", at: source.tokenRange(at: first))]
            return .error(
                .duplicateKey, "duplicate key `\(key)` in the same mapping",
                at: source.tokenRange(at: second ?? first), notes: notes,
                hint: "each key may appear once; remove or rename one of them")
        case .memory:
            return .error(.yamlSyntax, "out of memory while reading YAML", at: nil)
        case .other:
            return .error(.yamlSyntax, "invalid YAML: \(error.problem)", at: nil)
        }
    }

    /// An escape of a double-quoted scalar that is no character (libyaml's "found invalid Unicode character escape
    /// code", `mark` at its first digit): half a surrogate pair, or past U+10FFFF.
    private static func invalidEscape(at mark: SourceLocation, in source: SourceFile) -> Diagnostic {
        let start = SourceLocation(line: mark.line, column: max(1, mark.column - 2))
        let scalars = source.line(start.line).map { Array($0.unicodeScalars.dropFirst(start.column - 1).prefix(10)) }
        let digits = scalars?.first == "\\" && scalars?.dropFirst().first == "U" ? 8 : 4
        let escape = String(String.UnicodeScalarView(scalars?.prefix(2 + digits) ?? []))
        let value = escape.utf8.dropFirst(2).reduce(UInt32(0)) { ($0 << 4) + (SurrogatePairEscapes.hexDigit($1) ?? 0) }
        let pairHint =
            "write a character above U+FFFF as both halves of its UTF-16 pair (`\\uD83C\\uDFB2`), as `\\U0001F3B2`, or as "
            + "itself"
        let message: String
        var hint = pairHint
        switch value {
        case 0xD800...0xDBFF where digits == 4:
            message = "`\(escape)` is the first half of a UTF-16 surrogate pair, and no second half follows"
        case 0xDC00...0xDFFF where digits == 4:
            message = "`\(escape)` is the second half of a UTF-16 surrogate pair, and no first half comes before it"
        case 0xD800...0xDFFF:
            message = "`\(escape)` is half of a UTF-16 surrogate pair, not a character"
        default:
            message = "`\(escape)` is not a Unicode character (the last is U+10FFFF)"
            hint = "`\\U` takes the eight hexadecimal digits of a character up to U+10FFFF, as in `\\U0001F3B2`"
        }
        return .error(
            .yamlSyntax, "invalid YAML: \(message)", at: SourceRange(start: start, length: escape.unicodeScalars.count),
            hint: hint)
    }

    /// The second occurrence of a duplicated key: the next line that has the key at
    /// the same column (block mappings) or a later `key:` on the same line (flow).
    private static func findRepeatedKey(_ key: String, after first: SourceLocation, in source: SourceFile)
        -> SourceLocation?
    {
        let spellings = [key, "\"\(key)\"", "'\(key)'"]
        if let line = source.line(first.line) {
            let scalars = Array(line.unicodeScalars)
            var index = first.column
            while index < scalars.count {
                for spelling in spellings where matchesKey(spelling, in: scalars, at: index) {
                    return SourceLocation(line: first.line, column: index + 1)
                }
                index += 1
            }
        }
        var number = first.line + 1
        while let line = source.line(number) {
            let scalars = Array(line.unicodeScalars)
            let indent = scalars.prefix(while: { $0 == " " }).count
            if indent + 1 < first.column, !line.trimmingCharactersIsBlankOrComment { return nil }
            for spelling in spellings where matchesKey(spelling, in: scalars, at: first.column - 1) {
                return SourceLocation(line: number, column: first.column)
            }
            number += 1
        }
        return nil
    }

    private static func matchesKey(_ key: String, in scalars: [Unicode.Scalar], at index: Int) -> Bool {
        let keyScalars = Array(key.unicodeScalars)
        guard index >= 0, index + keyScalars.count <= scalars.count,
            Array(scalars[index..<index + keyScalars.count]) == keyScalars
        else { return false }
        if index > 0, !" {,\t".unicodeScalars.contains(scalars[index - 1]) { return false }
        var after = index + keyScalars.count
        while after < scalars.count, scalars[after] == " " { after += 1 }
        return after < scalars.count && scalars[after] == ":"
    }
}

extension YAMLProblem {
    /// Yams' error, in the terms `YAMLLoader` words.
    init(_ error: YamlError) {
        func location(_ mark: Mark) -> SourceLocation { SourceLocation(line: mark.line, column: mark.column) }
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let kind: Kind
            if case .scanner = error {
                kind = .scanner
            } else if case .parser = error {
                kind = .parser
            } else {
                kind = .composer
            }
            self.init(
                kind: kind, problem: problem, mark: location(mark),
                context: context.map { ($0.text, location($0.mark)) })
        case .reader(let problem, let offset, _, _):
            self.init(kind: .reader, problem: problem, mark: SourceLocation(line: 1, column: 1), offset: offset)
        case .duplicatedKeysInMapping(let duplicates, let context):
            self.init(
                kind: .duplicateKey, problem: "duplicated key", mark: location(context.mark),
                duplicate: (duplicates.first ?? "", nil))
        case .memory:
            self.init(kind: .memory, problem: "out of memory", mark: SourceLocation(line: 1, column: 1))
        default:
            self.init(kind: .other, problem: "\(error)", mark: SourceLocation(line: 1, column: 1))
        }
    }
}

extension Substring {
    var trimmingCharactersIsBlankOrComment: Bool {
        let trimmed = drop(while: { $0 == " " || $0 == "\t" })
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }
}

extension SourceRange {
    /// The range itself; reads well where an optional is expected.
    var first: SourceRange? { self }
}
