import ReqPlanSyntax

/// What an importer read, before it is written as plan text: requests in source order, the inputs they
/// read, and what was not converted. The boundary between the format readers and `PlanWriter`.
public struct ImportedPlan: Sendable {
    /// Where the requests came from, for the plan's first comment (`curl commands from api.sh`).
    public var origin: String
    /// What the plan's first comments say: what was left out of the source as a whole.
    public var notes: [String] = []
    /// The requests, in the order the source ran them.
    public var steps: [ImportedStep]
    /// Inputs the requests read (credentials, shell variables), in the order first read.
    public var inputs: InputTable
    /// Whether the source ran its requests one after another (a shell script, a browser session): the writer
    /// keeps that order with `needs` where nothing in the data orders two steps.
    public var ranInOrder: Bool
    /// The API descriptions the plan binds (`openapi:`), for plans written from one.
    public var apis: [ImportedAPI] = []
    /// `defaults.base_url` when the steps' URLs do not say it (`operation:` requests).
    public var baseURL: PlanText?

    /// A plan of `steps`.
    public init(origin: String, steps: [ImportedStep] = [], inputs: InputTable = InputTable(), ranInOrder: Bool = true)
    {
        self.origin = origin
        self.steps = steps
        self.inputs = inputs
        self.ranInOrder = ranInOrder
    }
}

/// One request of an imported plan.
public struct ImportedStep: Sendable {
    /// The step's id, once `StepNaming` has given it one.
    public var id = ""
    /// A name the source gives the request (a Postman item's name), preferred over its path for the id.
    public var name: String?
    /// `GET`, `POST`, …
    public var method: String
    /// The URL with its query string, as the source wrote it.
    public var url: PlanText
    /// Query parameters taken out of the URL or given apart (`-G -d`), in order.
    public var query: [Pair] = []
    /// Request headers, in order, as the source sent them.
    public var headers: [Pair] = []
    /// The body, when there is one.
    public var body: ImportedBody?
    /// The credentials, when the source gave them apart from the headers (`-u`, `--oauth2-bearer`).
    public var auth: ImportedAuth?
    /// `false` when the source did not follow redirects (curl without `-L`); `nil` leaves the default.
    public var followRedirects: Bool?
    /// The time limit of each attempt (`30s`, `2500ms`), when the source gave one.
    public var timeout: String?
    /// Comments written above the step: what was not converted, where a reference's value came from.
    public var comments: [String] = []
    /// The checks of the response the source made (Bruno's `assert`, Hurl's asserts), as `expect:`.
    public var expect = ImportedExpect()
    /// The operation it is bound to (`API.operationId`), written `operation:` in place of the method and URL.
    public var operation: String?
    /// Values of the operation's path parameters (`path:`), with `operation`: typed, as the schema reads them.
    public var pathParameters: [PlanValue.Member] = []
    /// Steps it runs after though it reads nothing of them (a `DELETE` after the requests on its resource).
    public var needs: [String] = []

    /// A request.
    public init(method: String, url: PlanText) {
        self.method = method
        self.url = url
    }

    /// The value of the header `name` (ignoring case), if the request has it.
    public func header(_ name: String) -> PlanText? {
        headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// An API description an imported plan binds (`openapi:`), with what its security schemes are given.
public struct ImportedAPI: Sendable {
    /// The name requests use (`petstore` of `petstore.showPetById`).
    public var name: String
    /// The description's path, relative to the plan's folder.
    public var file: String
    /// Scheme name → its credentials: a key or token (`text`), or fields (`username`, `client_id`, …).
    public var credentials: [(scheme: String, value: ImportedCredential)] = []

    /// A binding of `file` as `name`.
    public init(name: String, file: String) {
        self.name = name
        self.file = file
    }
}

/// What one security scheme of a bound description is given (grammar.md §6.9, "Credentials from the
/// description").
public enum ImportedCredential: Sendable {
    /// An API key or a bearer token.
    case text(PlanText)
    /// `{ username, password }`, an OAuth 2.0 client, …
    case fields([Pair])
}

/// The checks of a response (grammar.md §8): statuses, and matchers of headers and body paths in order.
public struct ImportedExpect: Sendable {
    /// The statuses one of which the response must have; empty: the default (`2xx`).
    public var status: [Int] = []
    /// Header name and matcher.
    public var headers: [(name: String, matcher: ImportedMatcher)] = []
    /// Body path (`$`, `data.items[0].id`) and matcher.
    public var body: [(path: String, matcher: ImportedMatcher)] = []

    /// No check.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool { status.isEmpty && headers.isEmpty && body.isEmpty }

    /// Adds a check of the body path `path` (of the header `path` when `header`), merged with the checks of
    /// that path already made (a plan writes a path once).
    /// - Returns: `false` when it asks what a check of that path already asks (two `equals`): not added.
    public mutating func add(_ matcher: ImportedMatcher, at path: String, header: Bool = false) -> Bool {
        let existing =
            header
            ? headers.firstIndex { $0.name.lowercased() == path.lowercased() } : body.firstIndex { $0.path == path }
        guard let index = existing else {
            if header { headers.append((path, matcher)) } else { body.append((path, matcher)) }
            return true
        }
        let earlier = Self.checks(header ? headers[index].matcher : body[index].matcher)
        // The same check twice (`eq foo` and `eq 'foo'`) is one.
        let merged = earlier + Self.checks(matcher).filter { !earlier.contains($0) }
        guard Set(merged.map(\.key)).count == merged.count else { return false }
        if header { headers[index].matcher = .checks(merged) } else { body[index].matcher = .checks(merged) }
        return true
    }

    /// Adds a check of a result path (`status`, `headers.name`, `body`, `body.a.b[0]`): a status it equals, or a
    /// header's or a body path's matcher (merged as `add(_:at:header:)` does).
    /// - Returns: `false` when the check cannot be written: a status that is not one number, or that contradicts
    ///   one already asked for; a second `equals` of one value.
    public mutating func add(_ matcher: ImportedMatcher, atResult path: String) -> Bool {
        if path == "status" {
            guard case .equals(.number(let digits)) = matcher, let code = Int(digits), (100...599).contains(code),
                status.isEmpty || status == [code]
            else { return false }
            status = [code]
            return true
        }
        if path.hasPrefix("headers.") { return add(matcher, at: String(path.dropFirst(8)), header: true) }
        return add(matcher, at: path == "body" ? "$" : String(path.dropFirst(path.hasPrefix("body.") ? 5 : 4)))
    }

    private static func checks(_ matcher: ImportedMatcher) -> [PlanValue.Member] {
        switch matcher {
        case .equals(let value): [PlanValue.Member("equals", value)]
        case .checks(let members): members
        }
    }
}

/// A matcher of grammar.md §8.1: a value it equals, or checks (`exists`, `matches`, `contains`, `length`,
/// `type`) that must all hold.
public enum ImportedMatcher: Sendable {
    case equals(PlanValue)
    case checks([PlanValue.Member])
}

/// A name and a text value: a header, a query parameter, a form field.
public struct Pair: Sendable, Hashable {
    public var name: String
    public var value: PlanText
    /// A pair.
    public init(_ name: String, _ value: PlanText) {
        self.name = name
        self.value = value
    }
}

/// The body of an imported request.
public enum ImportedBody: Sendable {
    /// JSON, written as `json:`.
    case json(PlanValue)
    /// `application/x-www-form-urlencoded`, written as `form:`.
    case form([Pair])
    /// `multipart/form-data`, written as `multipart:`.
    case multipart([MultipartPart])
    /// Text sent as it is, written as `body:`.
    case raw(PlanText)
    /// The bytes of a file, written as `body_file:` (a path the importer does not read).
    case file(PlanText)
}

/// One part of a multipart body.
public struct MultipartPart: Sendable {
    public var name: String
    /// A text field's value; `nil` for a file.
    public var value: PlanText?
    /// The path of a file part.
    public var file: PlanText?
    public var contentType: String?
    public var filename: String?

    /// A part.
    public init(
        name: String, value: PlanText? = nil, file: PlanText? = nil, contentType: String? = nil, filename: String? = nil
    ) {
        self.name = name
        self.value = value
        self.file = file
        self.contentType = contentType
        self.filename = filename
    }
}

/// Credentials of an imported request.
public enum ImportedAuth: Sendable, Hashable {
    case basic(username: PlanText, password: PlanText)
    case bearer(PlanText)
    case digest(username: PlanText, password: PlanText)
    /// Another scheme of the language's `auth:` (`oauth2`, `aws_sigv4`, `api_key`), written key by key.
    case scheme(String, [Pair])
}

/// An input of the imported plan.
public struct ImportedInput: Sendable, Hashable {
    public var name: String
    /// The default, when the value may be written in the plan (never for a secret).
    public var defaultValue: String?
    public var secret: Bool
    /// The environment variable the value comes from (a shell variable of a curl command).
    public var environment: String?
    /// Where the value came from, for the input's `description`.
    public var description: String?
}

/// The inputs of an imported plan: one per value, however many requests send it.
public struct InputTable: Sendable {
    /// The inputs, in the order first asked for.
    public private(set) var inputs: [ImportedInput] = []
    private var byValue: [String: String] = [:]

    /// An empty table.
    public init() {}

    /// The name of the input that stands for `value`: the one already made for that value, else a new one
    /// named `name` (or `name_2`, … when taken).
    /// - Parameters:
    ///   - value: the value found in the source (a secret is never written in the plan).
    ///   - name: the name wanted; made a valid input name.
    ///   - secret: whether the value is a credential (`secret: true`, no default).
    ///   - description: where the value was found.
    /// - Returns: the input's name.
    public mutating func input(for value: String, named name: String, secret: Bool, description: String?) -> String {
        add(
            key: (secret ? "s:" : "p:") + value, named: name,
            ImportedInput(name: "", defaultValue: secret ? nil : value, secret: secret, description: description))
    }

    /// The name of the input that stands for the shell variable `variable`: read from that environment
    /// variable as the shell read it, `value` as its default when the script set one and it is no secret.
    public mutating func input(forVariable variable: String, value: String?, secret: Bool) -> String {
        add(
            key: "$" + variable, named: variable,
            ImportedInput(
                name: "", defaultValue: secret ? nil : value, secret: secret, environment: variable,
                description: "the shell variable $\(variable)"))
    }

    /// The name of the input that stands for the source's variable `variable` (a Postman `{{name}}`),
    /// `value` its default unless it is a secret or there is none (then the run asks for it).
    public mutating func input(forSourceVariable variable: String, value: String?, secret: Bool, description: String?)
        -> String
    {
        add(
            key: "{{" + variable, named: variable,
            ImportedInput(name: "", defaultValue: secret ? nil : value, secret: secret, description: description))
    }

    /// The input already made for `key`, else `input` under `name` made a valid, unused input name.
    private mutating func add(key: String, named name: String, _ input: ImportedInput) -> String {
        if let existing = byValue[key] { return existing }
        let base = StepNaming.identifier(name, fallback: "value").replacingOccurrences(of: "-", with: "_")
        var candidate = base
        var number = 2
        while inputs.contains(where: { $0.name == candidate }) {
            candidate = "\(base)_\(number)"
            number += 1
        }
        var input = input
        input.name = candidate
        inputs.append(input)
        byValue[key] = candidate
        return candidate
    }
}
