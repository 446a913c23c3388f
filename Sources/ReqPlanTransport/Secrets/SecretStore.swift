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
        /// What the net hides of them: see `texts(hiding:)`.
        var hidden: [String] = []
    }

    private let state: Mutex<State>

    /// An empty store.
    public init() {
        state = Mutex(State())
    }

    /// A store holding what `other` holds now, to learn more on its own (what the net hides is copied, not
    /// worked out again).
    public init(copying other: SecretStore) {
        state = Mutex(other.state.withLock { $0 })
    }

    /// Adds a secret (empty ones are ignored).
    public func add(_ secret: String) {
        guard !secret.isEmpty else { return }
        state.withLock { state in
            guard state.values.insert(secret).inserted else { return }
            let texts = Self.texts(hiding: [secret])
            if !texts.isEmpty { state.hidden = Self.longestFirst(state.hidden + texts) }
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
    public var hidden: [String] {
        state.withLock { $0.hidden }
    }

    /// The shortest secret whose text the textual net hides (`Redactor`): shorter ones would collide
    /// with ordinary text.
    public static let minimumTextualLength = 8

    /// The texts that hide `secrets`: each one of `minimumTextualLength` or more characters, as written
    /// and as a URL, a form body and a JSON string encode it, longest first.
    public static func texts(hiding secrets: [String]) -> [String] {
        var texts: Set<String> = []
        for secret in secrets where secret.count >= minimumTextualLength {
            texts.formUnion([
                secret, URLEncoding.percentEncode(secret), URLEncoding.formEncode(secret),
                String(Value.string(secret).jsonText().dropFirst().dropLast()),
            ])
        }
        return longestFirst(Array(texts))
    }

    /// `texts` without repeats, longest first (so a secret containing another is hidden whole).
    public static func longestFirst(_ texts: [String]) -> [String] {
        Array(Set(texts)).sorted { $0.count > $1.count || ($0.count == $1.count && $0 < $1) }
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
