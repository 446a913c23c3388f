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

    /// One of the `contentChanges` of a `textDocument/didChange`: a range replaced, or the whole text.
    public struct ContentChange: Sendable, Equatable {
        /// The range replaced (LSP positions, UTF-16); `nil` for the whole text.
        public var range: TextRange?
        /// The new text.
        public var text: String

        /// A change of `range` (the whole text when `nil`) to `text`.
        public init(range: TextRange?, text: String) {
            self.range = range
            self.text = text
        }

        /// A change from LSP's JSON.
        /// - Throws: `ResponseError` (`invalidParams`) for JSON that is neither kind of change.
        init(_ value: Value) throws(ResponseError) {
            guard case .string(let text)? = value["text"] else {
                throw ResponseError(.invalidParams, "a content change has no `text`")
            }
            var range: TextRange?
            if let rangeValue = value["range"] {
                guard let given = TextRange(rangeValue) else {
                    throw ResponseError(.invalidParams, "a content change has a `range` that is not a range")
                }
                range = given
            }
            self.init(range: range, text: text)
        }
    }

    /// Applies changes in order: a change with a `range` replaces that range (LSP positions, UTF-16), one
    /// without replaces the whole text.
    public mutating func apply(_ changes: [ContentChange]) {
        for change in changes {
            if let range = change.range {
                text = text.replacing(range, with: change.text)
            } else {
                text = change.text
            }
        }
    }
}
