import ReqPlanSyntax
import Synchronization

/// Secrets a run learns while it goes: credentials from `auth:` and from URLs (with their base64
/// form), proxy credentials, cookie values, secret outputs. What carries them by value is shown as `***`
/// by name or by `SecretFlow`; the store feeds the textual net (`Redactor`) for the text that cannot be
/// traced, with the texts it hides computed once, when a secret is added. Shared by the executor and the
/// transport; safe from any task.
public final class SecretStore: Sendable {
    private struct State {
        var values: Set<String> = []
        /// What the net hides of them: see `Redactor.texts(hiding:)`.
        var hidden: [String] = []
    }

    private let state = Mutex(State())

    /// An empty store.
    public init() {}

    /// Adds a secret (empty ones are ignored).
    public func add(_ secret: String) {
        guard !secret.isEmpty else { return }
        state.withLock { state in
            guard state.values.insert(secret).inserted else { return }
            let texts = Redactor.texts(hiding: [secret])
            if !texts.isEmpty { state.hidden = Redactor.longestFirst(state.hidden + texts) }
        }
    }

    /// Adds a cookie's value: the `Cookie` and `Set-Cookie` headers hide it by name, and the textual net
    /// hides it elsewhere when it is long enough to be a credential (session ids and tokens are; the short
    /// values cookies also carry, `lang=en`, `consent=1`, are preferences).
    public func addCookieValue(_ value: String) {
        add(value)
    }

    /// Every secret added so far.
    public var all: [String] {
        state.withLock { Array($0.values) }
    }

    /// The texts the net hides for the secrets added so far, longest first.
    var hidden: [String] {
        state.withLock { $0.hidden }
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
