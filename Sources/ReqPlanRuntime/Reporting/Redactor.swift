import Foundation
import ReqPlanSyntax

/// Hides secret values in everything reqplan prints: each occurrence becomes `***`.
public struct Redactor: Sendable {
    /// The texts to hide, longest first (so a secret containing another is hidden whole).
    public let secrets: [String]
    /// Secrets learnt during the run (credentials, cookie values), read at each call.
    private let store: SecretStore?

    /// Creates a redactor for the given secret values (empty ones are ignored), and for those
    /// `store` holds at the time of each call.
    public init(secrets: [String], store: SecretStore? = nil) {
        self.secrets = Self.ordered(secrets)
        self.store = store
    }

    /// `text` with every secret replaced by `***`.
    public func redact(_ text: String) -> String {
        var result = text
        let learnt = store.map { Self.ordered($0.all) } ?? []
        for secret in Self.merged(secrets, learnt) where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "***")
        }
        return result
    }

    /// `value` with every secret in its strings (and object keys) replaced by `***`.
    public func redact(_ value: Value) -> Value {
        switch value {
        case .string(let text): .string(redact(text))
        case .list(let items): .list(items.map(redact))
        case .object(let fields): .object(fields.map { Value.Field(redact($0.key), redact($0.value)) })
        default: value
        }
    }

    private static func ordered(_ secrets: [String]) -> [String] {
        Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
    }

    private static func merged(_ a: [String], _ b: [String]) -> [String] {
        b.isEmpty ? a : ordered(a + b)
    }
}
