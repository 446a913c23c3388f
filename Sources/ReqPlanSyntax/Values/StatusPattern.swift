/// An expected HTTP status: an exact code (`200`) or a class (`2xx`).
public enum StatusPattern: Hashable, Sendable, CustomStringConvertible {
    /// One status code, 100–599.
    case code(Int)
    /// A class: `2` means 200–299.
    case classOf(Int)

    /// Whether `status` matches.
    public func matches(_ status: Int) -> Bool {
        switch self {
        case .code(let code): status == code
        case .classOf(let digit): status / 100 == digit
        }
    }

    public var description: String {
        switch self {
        case .code(let code): String(code)
        case .classOf(let digit): "\(digit)xx"
        }
    }

    /// Parses `200` or `2xx` (also `2XX`); `nil` when the text is neither.
    public static func parse(_ text: String) -> StatusPattern? {
        if let code = Int(text), (100...599).contains(code), text.count == 3 { return .code(code) }
        let lower = text.lowercased()
        if lower.count == 3, lower.hasSuffix("xx"), let digit = Int(lower.prefix(1)), (1...5).contains(digit) {
            return .classOf(digit)
        }
        return nil
    }
}

/// The HTTP methods a request may use.
public enum HTTPMethodName: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE

    /// Whether repeating the request is harmless, so retries are allowed without `unsafe: true`.
    public var isIdempotent: Bool {
        switch self {
        case .GET, .HEAD, .PUT, .DELETE, .OPTIONS, .TRACE: true
        case .POST, .PATCH: false
        }
    }

    public var description: String { rawValue }
}
