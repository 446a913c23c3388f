import ReqPlanSyntax

/// Reads a `.hurl` file: each entry (`METHOD URL`, headers, sections, a body, then `HTTP STATUS`, response
/// headers, `[Captures]` and `[Asserts]`) is one step, in the file's order. A capture of a response path
/// (`jsonpath "$.id"`, `header "Location"`, `cookie "sid"`) makes later `{{name}}` a reference to that step;
/// asserts and the status line become `expect:` where the language has the matcher. Hurl does not follow
/// redirects unless told (`[Options] location: true`), so neither does the plan.
struct HurlReader: SourceReader, CollectionReading {
    var diagnostics: DiagnosticCollector
    var plan: ImportedPlan
    var variables = TemplateVariables()
    let tool = "Hurl"
    let source: SourceFile
    /// The file's lines; `index` the next one to read.
    let lines: [String]
    var index = 0

    init(_ source: SourceFile, inputs: InputTable) {
        self.source = source
        diagnostics = DiagnosticCollector(file: source.path)
        plan = ImportedPlan(origin: source.path, inputs: inputs)
        lines = source.text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
    }

    mutating func read() {
        while let (method, url, line) = nextRequestLine() {
            readEntry(method: method, url: url, line: line)
        }
    }

    /// The next `METHOD URL` line, skipping blank and comment lines (and anything else, warned of).
    private mutating func nextRequestLine() -> (String, String, Int)? {
        while index < lines.count {
            let line = Self.code(lines[index])
            index += 1
            guard !line.isEmpty else { continue }
            if let request = Self.requestLine(line) { return (request.0, request.1, index) }
            diagnostics.warning(
                .importOptionNotConverted, "a line that starts no request is left out", at: place(index), hint: nil)
        }
        return nil
    }

    /// `GET http://…` as its method and URL.
    static func requestLine(_ line: String) -> (String, String)? {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard words.count == 2, let method = words.first, method.allSatisfy({ $0.isUppercase || $0 == "_" }),
            method != "HTTP"
        else { return nil }
        return (method, words[1].trimmingCharacters(in: .whitespaces))
    }

    /// A line without its comment (`# …` after a space, or the whole line), `\#` read as `#`.
    static func code(_ line: String) -> String {
        var output = ""
        var previous: Character = " "
        var escaped = false
        for character in line {
            if escaped {
                output.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
                output.append(character)
            } else if character == "#", previous == " " || previous == "\t" {
                break
            } else {
                output.append(character)
            }
            previous = character
        }
        return output.replacingOccurrences(of: "\\#", with: "#").trimmingCharacters(in: .whitespaces)
    }

    func place(_ line: Int) -> SourceRange {
        SourceRange(at: SourceLocation(line: line, column: 1))
    }

    mutating func warning(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, hint: String?) {
        diagnostics.warning(code, message, at: range, hint: hint)
    }

    mutating func text(_ text: String, secret: Bool) -> PlanText {
        variables.text(text, secret: secret, plan: &plan)
    }
}
