import Logging
import ReqPlanTransport

/// Settings of one run, given once to the executor.
public struct RunConfiguration: Sendable {
    /// Overrides the plan's `concurrency` (`--concurrency`).
    public var concurrency: Int?
    /// Where request files are read from.
    public var files: FileAccess
    /// Delays before retries are multiplied by this (tests use a small factor).
    public var backoffScale: Double = 1
    /// The most a `Retry-After` header may delay a retry.
    public var maxRetryAfter: Duration = .seconds(60)
    /// Where the executor logs for tool developers (`--log-level`); silent by default.
    /// User-facing output never goes through it.
    public var logger = Logger(label: "reqplan.executor", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Without a concurrency limit, the most requests of one scope started at once (a memory
    /// guard; the transport's connection pool is the real limit long before this).
    public var maxActiveRequests = 1024
    /// Secrets learnt during the run (credentials, cookie values), shared with the transport so every
    /// output hides them; they end up in `RunResult.secrets`.
    public var secrets = SecretStore()
    /// The OAuth 2.0 tokens of the run, one per grant (`auth: { oauth2 }`); a suite gives every plan the same,
    /// so its plans share them too.
    public var tokens = TokenCache<OAuthGrant>()
    /// The loopback listener, the prompt and the wait of an `authorization_code` grant (the user signs in in a
    /// browser; the runtime prints nothing itself). Without a listener and a prompt, that grant fails the step.
    public var authorizationCode = AuthorizationCodeSettings()
    /// Whether each response of a request bound to an API description (`openapi:`) is checked against
    /// the schema of its status and content type (`--no-response-schema-check` turns it off).
    public var checksResponseSchemas = true

    public init(concurrency: Int? = nil, files: FileAccess) {
        self.concurrency = concurrency
        self.files = files
    }
}
