import ReqPlanSyntax

/// An Arazzo runtime expression (Arazzo 1.0.1 §4.8, "Runtime Expressions"): `$statusCode`,
/// `$response.body#/0/id`, `$steps.login.outputs.token`, parsed from its text.
///
/// ```
/// expression = "$url" / "$method" / "$statusCode" / "$request." source / "$response." source
///            / "$inputs." name / "$outputs." name / "$steps." name / "$workflows." name
///            / "$sourceDescriptions." name / "$components." name
/// source     = "header." token / "query." name / "path." name / "body" [ "#" json-pointer ]
/// ```
/// Any expression may end with `#` and a JSON pointer into its value (`$inputs.customer#/firstName`).
public struct RuntimeExpression: Sendable, Hashable {
    /// What the expression reads.
    public enum Root: Sendable, Hashable {
        case url
        case method
        case statusCode
        /// `$request.header.NAME`, `$request.query.NAME`, `$request.path.NAME`.
        case request(Source)
        /// `$response.header.NAME`, `$response.body`.
        case response(Source)
        /// `$inputs.NAME`.
        case inputs(String)
        /// `$outputs.NAME`.
        case outputs(String)
        /// `$steps.STEP.FIELD…` (`outputs.NAME`).
        case steps(String, [String])
        /// `$workflows.WORKFLOW.FIELD…` (`outputs.NAME`, `inputs.NAME`).
        case workflows(String, [String])
        /// `$sourceDescriptions.NAME.REST` (`url`, an operation or workflow id).
        case sourceDescriptions(String, String)
        /// `$components.KIND.NAME`.
        case components(String, String)
    }

    /// Where a request or response value is read.
    public enum Source: Sendable, Hashable {
        case header(String)
        case query(String)
        case path(String)
        case body
    }

    /// What it reads.
    public var root: Root
    /// The JSON pointer after `#`, as reference tokens (unescaped); `nil` without one.
    public var pointer: [String]?
    /// The whole text.
    public var text: String

    /// Why a text is not a runtime expression.
    public struct SyntaxError: Error, Sendable {
        /// The reason, one line.
        public var message: String
        /// How many scalars of the text parsed before the problem.
        public var offset: Int
    }

    /// The roots, for messages.
    static let rootNames = [
        "url", "method", "statusCode", "request", "response", "inputs", "outputs", "steps", "workflows",
        "sourceDescriptions", "components",
    ]

    /// Parses `text`, the whole of which must be one expression.
    /// - Throws: `SyntaxError` naming what is wrong.
    public static func parse(_ text: String) throws(SyntaxError) -> RuntimeExpression {
        guard text.hasPrefix("$") else { throw SyntaxError(message: "a runtime expression starts with `$`", offset: 0) }
        var body = Substring(text.dropFirst())
        var pointer: [String]?
        if let hash = body.firstIndex(of: "#") {
            let fragment = body[body.index(after: hash)...]
            body = body[..<hash]
            pointer = try Self.pointer(String(fragment), offset: text.count - fragment.count)
        }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, !first.isEmpty else {
            throw SyntaxError(message: "expected a name after `$`", offset: 1)
        }
        func rest(from index: Int, what: String) throws(SyntaxError) -> [String] {
            let names = Array(parts.dropFirst(index))
            guard !names.isEmpty, !names.contains(where: \.isEmpty) else {
                throw SyntaxError(
                    message: "expected \(what) after `$\(parts.prefix(index).joined(separator: "."))`",
                    offset: text.count)
            }
            return names
        }
        let root: Root
        switch first {
        case "url", "method", "statusCode":
            guard parts.count == 1 else {
                throw SyntaxError(message: "`$\(first)` has no fields", offset: first.count + 1)
            }
            root = first == "url" ? .url : first == "method" ? .method : .statusCode
        case "request", "response":
            let names = try rest(from: 1, what: "`header.NAME`, `query.NAME`, `path.NAME` or `body`")
            let source: Source
            switch names[0] {
            case "body" where names.count == 1: source = .body
            case "header" where names.count >= 2: source = .header(names.dropFirst().joined(separator: "."))
            case "query" where names.count >= 2: source = .query(names.dropFirst().joined(separator: "."))
            case "path" where names.count >= 2: source = .path(names.dropFirst().joined(separator: "."))
            default:
                throw SyntaxError(
                    message:
                        "`$\(first).\(names.joined(separator: "."))` reads nothing: write `$\(first).header.NAME`, "
                        + "`$\(first).query.NAME`, `$\(first).path.NAME` or `$\(first).body#/pointer`",
                    offset: first.count + 2)
            }
            if first == "response", case .query = source {
                throw SyntaxError(message: "a response has no query", offset: first.count + 2)
            }
            if first == "response", case .path = source {
                throw SyntaxError(message: "a response has no path parameters", offset: first.count + 2)
            }
            root = first == "request" ? .request(source) : .response(source)
        case "inputs", "outputs":
            let names = try rest(from: 1, what: "a name")
            let name = names.joined(separator: ".")
            root = first == "inputs" ? .inputs(name) : .outputs(name)
        case "steps", "workflows":
            let names = try rest(from: 1, what: first == "steps" ? "a step id" : "a workflow id")
            root =
                first == "steps"
                ? .steps(names[0], Array(names.dropFirst())) : .workflows(names[0], Array(names.dropFirst()))
        case "sourceDescriptions":
            let names = try rest(from: 1, what: "a source description's name")
            guard names.count >= 2 else {
                throw SyntaxError(
                    message: "expected `.url` or an operation or workflow id after `$sourceDescriptions.\(names[0])`",
                    offset: text.count)
            }
            root = .sourceDescriptions(names[0], names.dropFirst().joined(separator: "."))
        case "components":
            let names = try rest(from: 1, what: "a kind of component")
            guard names.count >= 2 else {
                throw SyntaxError(message: "expected `$components.\(names[0]).NAME`", offset: text.count)
            }
            root = .components(names[0], names.dropFirst().joined(separator: "."))
        default:
            let suggestion = Suggestion.didYouMean(first, in: rootNames)
            throw SyntaxError(
                message: "unknown runtime expression `$\(first)`" + (suggestion.map { " (\($0))" } ?? ""), offset: 1)
        }
        return RuntimeExpression(root: root, pointer: pointer, text: text)
    }

    /// The reference tokens of a JSON pointer (RFC 6901): `/a/b~1c` is `a`, `b/c`; the empty pointer has none.
    static func pointer(_ text: String, offset: Int) throws(SyntaxError) -> [String] {
        do {
            return try JSONPointer.tokens(text)
        } catch {
            throw SyntaxError(message: error.message, offset: offset)
        }
    }

    /// Whether a character may appear in an expression written inside a condition (it ends at a space, an
    /// operator or a parenthesis).
    static func continues(_ scalar: Unicode.Scalar) -> Bool {
        !(scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "=" || scalar == "!" || scalar == "<"
            || scalar == ">" || scalar == "&" || scalar == "|" || scalar == "(" || scalar == ")" || scalar == ","
            || scalar == "}" || scalar == "[" || scalar == "]")
    }
}
