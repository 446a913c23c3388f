import ReqPlanSyntax

/// An open document: the client's text of it, which the server checks instead of the file on disk.
public struct TextDocument: Sendable, Equatable {
    /// Its URI, as the client names it.
    public var uri: DocumentURI
    /// The version the client gave with its last change (it grows with every change).
    public var version: Int
    /// The whole text.
    public var text: String

    /// A document as `textDocument/didOpen` gives it.
    public init(uri: DocumentURI, version: Int, text: String) {
        self.uri = uri
        self.version = version
        self.text = text
    }

    /// Applies the `contentChanges` of a `textDocument/didChange`, in order: a change with a `range`
    /// replaces that range (LSP positions, UTF-16), one without replaces the whole text.
    /// - Throws: `ResponseError` (`invalidParams`) for a change that is neither; the changes before it stay
    ///   applied, as the client sent them in order.
    public mutating func apply(_ changes: [Value]) throws(ResponseError) {
        for change in changes {
            guard case .string(let newText)? = change["text"] else {
                throw ResponseError(.invalidParams, "a content change has no `text`")
            }
            if let rangeValue = change["range"] {
                guard let range = TextRange(rangeValue) else {
                    throw ResponseError(.invalidParams, "a content change has a `range` that is not a range")
                }
                text = text.replacing(range, with: newText)
            } else {
                text = newText
            }
        }
    }
}
