import ReqPlanSyntax

/// Reads the curl commands of a file (a script, a README snippet, a terminal session) into steps, one per
/// URL, in the order written. Commands other than `curl` are skipped, but a line that only sets shell
/// variables (`TOKEN=…`, `export BASE=…`) gives those variables' inputs their default (not a secret's).
struct CurlReader {
    private let source: SourceFile
    private(set) var diagnostics: DiagnosticCollector
    private(set) var plan: ImportedPlan
    private var assigned: [String: String] = [:]

    /// A reader of `source`, adding to the inputs of the files read before it.
    init(_ source: SourceFile, inputs: InputTable) {
        self.source = source
        diagnostics = DiagnosticCollector(file: source.path)
        plan = ImportedPlan(origin: source.path, inputs: inputs)
    }

    mutating func read() {
        var splitter = ShellSplitter(source.text)
        let commands: [ShellCommand]
        switch splitter.commands() {
        case .failure(let error):
            diagnostics.error(error.code, error.message, at: error.range, hint: error.hint)
            return
        case .success(let read): commands = read
        }
        var found = false
        for command in commands {
            var words = command.words[...]
            if words.first?.text == "export" { words = words.dropFirst() }
            // `NAME=value` words before the command (or alone, setting the shell's variables).
            while let first = words.first, let text = first.text, let equals = text.firstIndex(of: "="),
                ShellSplitter.isName(String(text[..<equals]))
            {
                assigned[String(text[..<equals])] = String(text[text.index(after: equals)...])
                words = words.dropFirst()
            }
            guard let program = words.first?.text, program == "curl" || program.hasSuffix("/curl") else { continue }
            found = true
            var command = CurlCommand(words: Array(words.dropFirst()), at: words.first?.range)
            command.read(into: &self)
        }
        if !found {
            diagnostics.error(
                .importNothing, "no curl command in `\(source.path)`", at: nil,
                hint: "each command starts with `curl`; a line may start with a `$ ` prompt")
        }
    }

    // MARK: - What a command gives

    mutating func add(_ step: ImportedStep) {
        plan.steps.append(step)
    }

    mutating func warn(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, hint: String? = nil) {
        diagnostics.warning(code, message, at: range, hint: hint)
    }

    mutating func error(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, hint: String? = nil) {
        diagnostics.error(code, message, at: range, hint: hint)
    }

    /// A word as plan text: each shell variable an input read from the environment variable of its name.
    mutating func text(_ word: ShellWord) -> PlanText {
        PlanText(
            pieces: word.pieces.map { piece in
                switch piece {
                case .text(let text): return .literal(text)
                case .variable(let name):
                    let input = plan.inputs.input(
                        forVariable: name, value: assigned[name], secret: Credentials.isSecretName(name))
                    return .reference(.input(input))
                }
            })
    }

    /// The input for a credential found in the command (never written in the plan).
    mutating func secret(_ value: String, named name: String, at range: SourceRange) -> PlanText {
        let input = plan.inputs.input(
            for: value, named: name, secret: true,
            description: "\(name) of the curl command at line \(range.start.line) (not written in the plan)")
        return .reference(.input(input))
    }

    /// The input for a user name found in the command (written as its default).
    mutating func plain(_ value: String, named name: String) -> PlanText {
        .reference(.input(plan.inputs.input(for: value, named: name, secret: false, description: nil)))
    }

    /// The file's name as shown.
    var sourcePath: String { plan.origin }

    /// `auth:` for a user and password given with `-u` or in the URL: the password a secret input.
    mutating func basic(user: String, password: String, digest: Bool) -> ImportedAuth {
        Credentials.basic(user: user, password: password, inputs: &plan.inputs, digest: digest)
    }
}
