import ReqPlanSyntax
import Synchronization

/// Secrets a run learns while it goes: credentials from `auth:` and from URLs (with their base64
/// form), proxy credentials, cookie values. Every output of the run hides them, as it hides secret
/// inputs: live output through a `Redactor` that reads the store, reports and the summary through
/// `RunResult.secrets`. Shared by the executor and the transport; safe from any task.
public final class SecretStore: Sendable {
    private let values = Mutex<Set<String>>([])

    /// An empty store.
    public init() {}

    /// Adds a secret (empty ones and one-character ones are ignored: hiding every `a` would hide nothing
    /// useful and garble every line).
    public func add(_ secret: String) {
        guard secret.count > 1 else { return }
        values.withLock { _ = $0.insert(secret) }
    }

    /// The shortest cookie value taken for a secret. Session ids and tokens are long; the short values
    /// cookies also carry (`lang=en`, `theme=dark`, `consent=1`) are preferences, and hiding every `en`
    /// or `dark` in every output would garble it without protecting anything.
    public static let minimumCookieSecretLength = 8

    /// Adds a cookie's value, when it is long enough to be a credential (`minimumCookieSecretLength`).
    public func addCookieValue(_ value: String) {
        guard value.count >= Self.minimumCookieSecretLength else { return }
        add(value)
    }

    /// Every secret added so far.
    public var all: [String] {
        values.withLock { Array($0) }
    }

    /// Adds a secret value (a secret input or output): a string as it is, anything else as its JSON text.
    public func addValue(_ value: Value) {
        switch value {
        case .null: return
        case .string(let text): add(text)
        default: add(value.jsonText())
        }
    }
}
