import ReqPlanHTTP
import ReqPlanSyntax

/// The textual safety net of redaction: hides the text of secrets in what cannot be traced to where a
/// secret went in: the values a server sent (a response that echoes a credential, a URL it redirected
/// to, an error body), and the free text of a library's error.
///
/// Redaction is by value first (`SecretFlow`): what reqplan shows of a value built from a secret says
/// `***` exactly where the secret went in, whatever the secret's length, and the plan's own text, keys,
/// names, numbers and the structure of every report are never touched. The net works on values before
/// they are encoded, so no report can be made invalid by it, and only for secrets of at least
/// `minimumLength` characters, so that it does not collide with ordinary text: a secret `1`, `test` or
/// `json` would otherwise turn `418` into `4***8` and `testcase` into `***case`. Credentials, session
/// ids and API keys are this long (NIST SP 800-63B asks 8 characters of a password at least); a shorter
/// secret is hidden wherever reqplan put it, but not where a server repeats it.
public struct Redactor: Sendable {
    /// The shortest secret whose text the net hides.
    public static let minimumLength = SecretStore.minimumTextualLength

    /// The texts hidden, longest first (so a secret containing another is hidden whole).
    public let secrets: [String]
    /// Secrets learnt during the run (credentials, cookie values), read at each call.
    private let store: SecretStore?

    /// Creates a net for the given secret values, and for those `store` holds at the time of each call.
    public init(secrets: [String], store: SecretStore? = nil) {
        self.secrets = SecretStore.texts(hiding: secrets)
        self.store = store
    }

    /// `text` with every secret (of `minimumLength` or more) replaced by `***`.
    public func redact(_ text: String) -> String {
        let learnt = store?.hidden ?? []
        if secrets.isEmpty && learnt.isEmpty { return text }
        var result = text
        for secret in learnt.isEmpty ? secrets : SecretStore.longestFirst(secrets + learnt)
        where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: ExpressionEvaluator.secretMarker)
        }
        return result
    }

    /// `text` redacted, when there is one.
    public func redact(_ text: String?) -> String? {
        text.map(redact)
    }

    /// `value` with every secret in its strings replaced by `***`; object keys are names and stay.
    public func redact(_ value: Value) -> Value {
        switch value {
        case .string(let text): .string(redact(text))
        case .list(let items): .list(items.map(redact))
        case .object(let fields): .object(fields.map { Value.Field($0.key, redact($0.value)) })
        default: value
        }
    }
}
