/// Why no response came.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Kinds of transport failure; `retry.on` names some of them.
    public enum Kind: String, Sendable, Hashable {
        /// The connection could not be made (refused, DNS, unreachable).
        case connect
        /// The connection broke (reset, closed early).
        case reset
        /// TLS failed (certificate, handshake).
        case tls
        /// The attempt's deadline passed.
        case timeout
        /// The response body was larger than the limit.
        case bodyTooLarge = "body_too_large"
        /// The task was cancelled.
        case cancelled
        /// Anything else (malformed response, bad URL).
        case other
    }

    public var kind: Kind
    /// A sentence naming the host and the cause.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
