import Foundation

/// A document's URI as the client names it, and the file path the validator reads it as.
///
/// `file:` URIs are percent-decoded into paths (`file:///home/me/my%20plans/a.yaml` is
/// `/home/me/my plans/a.yaml`); paths are encoded back the way VS Code does (everything but unreserved
/// characters and `/` percent-encoded). A URI of another scheme (`untitled:Untitled-1`) has no file: it is
/// checked as if it were in the server's working folder.
public struct DocumentURI: Sendable, Hashable, CustomStringConvertible {
    /// The URI exactly as the client sent it: diagnostics are published under this very text.
    public let text: String

    /// Wraps a URI sent by the client.
    public init(_ text: String) {
        self.text = text
    }

    /// The URI of a file path.
    public init(filePath path: String) {
        let encoded = path.addingPercentEncoding(withAllowedCharacters: Self.unencoded) ?? path
        self.init("file://" + (encoded.hasPrefix("/") ? "" : "/") + encoded)
    }

    /// The file path of a `file:` URI, percent-decoded; `nil` for another scheme.
    public var filePath: String? {
        guard text.lowercased().hasPrefix("file:") else { return nil }
        var rest = Substring(text.dropFirst("file:".count))
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            // The authority: empty or `localhost` for a local file.
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            rest = rest[slash...]
        }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        guard let decoded = String(rest).removingPercentEncoding, !decoded.isEmpty else { return nil }
        return decoded
    }

    /// The path the validator checks the document as: its file, or a name in `folder` for a URI that is not
    /// a file (its sub-plans are then read from `folder`).
    public func checkedPath(inFolder folder: String) -> String {
        if let filePath { return filePath }
        let name = text.split(whereSeparator: { $0 == "/" || $0 == ":" }).last.map(String.init) ?? "untitled"
        return (folder as NSString).appendingPathComponent(name)
    }

    public var description: String { text }

    /// What a path keeps as is in a URI: RFC 3986's unreserved characters, and `/`.
    private static let unencoded = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
}
