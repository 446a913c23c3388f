/// One of a description's security schemes (OpenAPI's `components.securitySchemes`, Swagger 2.0's
/// `securityDefinitions`): how a request proves who sends it. Requirements name it by `name`.
public struct APISecurityScheme: Sendable, Hashable {
    /// Where an API key goes.
    public enum KeyLocation: String, Sendable, Hashable {
        case header, query, cookie
    }

    /// What the scheme asks for.
    public enum Kind: Sendable, Hashable {
        /// A key in a header, a query parameter or a cookie of this name.
        case apiKey(name: String, location: KeyLocation)
        /// An `Authorization` scheme of HTTP: `scheme` lowercased (`basic`, `bearer`, `digest`…), and for
        /// bearer tokens the format the description names (`JWT`), if any.
        case http(scheme: String, bearerFormat: String?)
        /// OAuth 2.0, with the flows the description declares, in document order.
        case oauth2(flows: [APIOAuthFlow])
        /// OpenID Connect, with the URL of its discovery document (as written: it may be relative).
        case openIDConnect(url: String)
        /// Mutual TLS: a client certificate.
        case mutualTLS
    }

    /// Its key in `components.securitySchemes`.
    public var name: String
    /// What it asks for.
    public var kind: Kind
    /// `description`, when the document gives one.
    public var description: String?

    /// Creates a security scheme.
    public init(name: String, kind: Kind, description: String? = nil) {
        self.name = name
        self.kind = kind
        self.description = description
    }
}

/// One OAuth 2.0 flow of a security scheme: the grant, where to ask for tokens, and the scopes it offers.
public struct APIOAuthFlow: Sendable, Hashable {
    /// The grant the flow uses (OpenAPI's names; Swagger 2.0's `application`, `accessCode`, `password` and
    /// `implicit` are read as `clientCredentials`, `authorizationCode`, `password` and `implicit`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case clientCredentials, authorizationCode, password, implicit
        /// The device authorization grant (RFC 8628; OpenAPI 3.2's `deviceAuthorization`).
        case deviceAuthorization
    }

    /// The grant.
    public var kind: Kind
    /// `tokenUrl`, as written (it may be relative to the server).
    public var tokenURL: String?
    /// `authorizationUrl`, as written.
    public var authorizationURL: String?
    /// `refreshUrl`, as written.
    public var refreshURL: String?
    /// The names of the scopes it declares, in document order.
    public var scopes: [String]

    /// Creates a flow.
    public init(
        kind: Kind, tokenURL: String? = nil, authorizationURL: String? = nil, refreshURL: String? = nil,
        scopes: [String] = []
    ) {
        self.kind = kind
        self.tokenURL = tokenURL
        self.authorizationURL = authorizationURL
        self.refreshURL = refreshURL
        self.scopes = scopes
    }
}

/// One security requirement: schemes that a request must satisfy together, each with the scopes it
/// needs. A list of requirements (`security`) is satisfied by any one of them; a requirement with no
/// schemes (`{}` in the list) lets a request go without credentials.
public struct APISecurityRequirement: Sendable, Hashable {
    /// A scheme the requirement names, and the scopes it needs of it (OAuth 2.0 and OpenID Connect; the
    /// roles some descriptions list for other kinds).
    public struct Scheme: Sendable, Hashable {
        /// The scheme's name: its key in `APIDescription.securitySchemes`.
        public var name: String
        /// The scopes, in document order.
        public var scopes: [String]

        /// Creates one.
        public init(name: String, scopes: [String] = []) {
            self.name = name
            self.scopes = scopes
        }
    }

    /// The schemes, all needed, in document order.
    public var schemes: [Scheme]

    /// Creates a requirement.
    public init(schemes: [Scheme]) {
        self.schemes = schemes
    }

    /// Whether it asks for nothing (`{}`): a request may go without credentials.
    public var isAnonymous: Bool { schemes.isEmpty }
}

extension APIDescription {
    /// The security requirements of `operation`: its own where it says (`[]`: none), the document's
    /// otherwise. Any one of them is enough; an empty list asks for nothing.
    /// - Parameter operation: one of its operations.
    /// - Returns: the requirements that apply.
    public func security(of operation: APIOperation) -> [APISecurityRequirement] {
        operation.security ?? security
    }
}
