/// Why no response came.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Kinds of transport failure; `retry.on` names some of them.
    ///
    /// A struct over a private enum, as async-http-client's `HTTPClientError` is: a kind added later is a new
    /// static member, not a new case that breaks every exhaustive `switch` of a caller (who switches with a
    /// `default`).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case connect, reset, tls, timeout, bodyTooLarge = "body_too_large", cancelled, other
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The connection could not be made (refused, DNS, unreachable).
        public static let connect = Kind(.connect)
        /// The connection broke (reset, closed early).
        public static let reset = Kind(.reset)
        /// TLS failed (certificate, handshake).
        public static let tls = Kind(.tls)
        /// The attempt's deadline passed.
        public static let timeout = Kind(.timeout)
        /// The response body was larger than the limit.
        public static let bodyTooLarge = Kind(.bodyTooLarge)
        /// The task was cancelled.
        public static let cancelled = Kind(.cancelled)
        /// Anything else (malformed response, bad URL).
        public static let other = Kind(.other)

        /// The kind's name in reports and logs (`connect`, `body_too_large`).
        public var rawValue: String { base.rawValue }
        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure it is.
    public var kind: Kind
    /// A sentence naming the host and the cause.
    public var message: String

    /// A failure of `kind`, said by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
