import Foundation

/// Hides secret input values in everything reqplan prints: each occurrence becomes `***`.
public struct Redactor: Sendable {
    /// The texts to hide, longest first (so a secret containing another is hidden whole).
    public let secrets: [String]

    /// Creates a redactor for the given secret values (empty ones are ignored).
    public init(secrets: [String]) {
        self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
    }

    /// `text` with every secret replaced by `***`.
    public func redact(_ text: String) -> String {
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "***")
        }
        return result
    }
}
