/// One entry of the top-level `openapi:` key: an API description the plan's requests are checked against.
///
/// `openapi: { petstore: petstore.yaml }` or `openapi: { petstore: { file: petstore.yaml, base_url: … } }`.
public struct APIBinding: Sendable {
    /// The short name requests use: `operation: petstore.showPetById`.
    public var name: Located<String>
    /// `file:` — the OpenAPI document (YAML or JSON), relative to the plan's file (a literal path).
    public var file: Located<String>
    /// `base_url:` — where the API is served; operation requests are sent below it. When absent, their
    /// paths are relative to `defaults.base_url`.
    public var baseURL: Template?
    /// `response_fields:` — how a response field the description does not declare is taken when a plan
    /// reads it; `nil` when not written (`described`).
    public var responseFields: Located<ResponseFields>?
    /// `credentials:` — what each of the description's security schemes is given, by scheme name; empty when
    /// not written.
    public var credentials: [SchemeCredentials] = []
    /// The schemes `--credential` gives credentials for (`CommandLineCredentials`), whether or not its
    /// description declares them: a request left without credentials is then said (RP0855).
    public var commandLineSchemes: [String] = []
    /// The whole entry.
    public var range: SourceRange
    /// Whether, without `baseURL`, its operations are sent below the description's first server (an Arazzo
    /// source description) rather than below `defaults.base_url` (a plan's `openapi:` entry).
    public var servedAtFirstServer = false
    /// Why the description is not read (an Arazzo source description at a remote URL, which reqplan does
    /// not fetch), said where it is named: its operations are not checked, and a request to one fails with
    /// this reason. Nil for a description that is read.
    public var unread: String? = nil

    /// How undeclared response fields are taken (grammar.md §6.9).
    public enum ResponseFields: String, Sendable, CaseIterable {
        /// Every object schema is closed: reading a field it does not declare is an error.
        case strict
        /// As the description says: an error where the object is closed (`additionalProperties: false`,
        /// `unevaluatedProperties: false`) or the name is a likely misspelling of a declared one, else a
        /// warning.
        case described
        /// Only an object the description closes makes a read of an undeclared field an error; a likely
        /// misspelling is a warning; other undeclared fields are read without a word.
        case loose
    }

    /// Creates a binding.
    public init(
        name: Located<String>, file: Located<String>, baseURL: Template?,
        responseFields: Located<ResponseFields>? = nil, range: SourceRange
    ) {
        self.name = name
        self.file = file
        self.baseURL = baseURL
        self.responseFields = responseFields
        self.range = range
    }
}

/// One entry of an `openapi:` binding's `credentials:`: what a security scheme of the description is given. A
/// text for an API key or a bearer token; fields for the rest (`username` and `password`; `client_id`,
/// `client_secret`, `client_auth`, `refresh_token` for OAuth 2.0 and OpenID Connect).
public struct SchemeCredentials: Sendable {
    /// The scheme's name in `components.securitySchemes`.
    public var scheme: Located<String>
    /// The key or token, when written as a text.
    public var text: Template?
    /// The fields, when written as a mapping, by name.
    public var fields: [String: Template]
    /// `client_auth:`, for OAuth 2.0.
    public var clientAuthentication: Located<OAuth2Auth.ClientAuthentication>?
    /// Whether `--credential` gave them (located at the binding's name then, as written nowhere in the file).
    public var fromCommandLine = false

    public init(
        scheme: Located<String>, text: Template?, fields: [String: Template] = [:],
        clientAuthentication: Located<OAuth2Auth.ClientAuthentication>? = nil
    ) {
        self.scheme = scheme
        self.text = text
        self.fields = fields
        self.clientAuthentication = clientAuthentication
    }

    /// Every template it holds.
    public var templates: [Template] { [text].compactMap { $0 } + fields.keys.sorted().compactMap { fields[$0] } }
}

/// `operation:` of a request: an operation of a bound API description, `NAME.operationId`; or, translated
/// from an Arazzo step, its `operationId` or its `operationPath`.
public struct OperationReference: Sendable, Hashable {
    /// The whole text as written, with its place.
    public var written: Located<String>
    /// The `openapi:` entry's name (before the first `.`), or the Arazzo source description's.
    public var api: String
    /// Which operation of the description.
    public var operation: Operation
    /// `path:` — values of the operation's path parameters, in the order written.
    public var pathParameters: [QueryParameter]
    /// The `path` key, when written.
    public var pathKey: Located<String>?

    /// How a reference names its operation.
    public enum Operation: Sendable, Hashable {
        /// By its `operationId` (after the first `.` of `operation:`).
        case id(String)
        /// By where it is in its description (an Arazzo step's `operationPath`): `GET /pets/{petId}`.
        case route(method: String, path: String)
    }

    /// Creates a reference.
    public init(
        written: Located<String>, api: String, operation: Operation, pathParameters: [QueryParameter] = [],
        pathKey: Located<String>? = nil
    ) {
        self.written = written
        self.api = api
        self.operation = operation
        self.pathParameters = pathParameters
        self.pathKey = pathKey
    }
}
