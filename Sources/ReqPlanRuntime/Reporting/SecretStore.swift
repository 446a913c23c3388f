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

    /// Every secret added so far.
    public var all: [String] {
        values.withLock { Array($0) }
    }
}
