import ReqPlanSyntax
import Synchronization

/// The open documents, by URI, shared by the task that reads the client's messages and the one that
/// checks documents. Safe to use from several threads.
public final class DocumentStore: Sendable {
    private let documents = Mutex<[DocumentURI: TextDocument]>([:])

    /// An empty store.
    public init() {}

    /// The document open under `uri`, if any.
    public subscript(uri: DocumentURI) -> TextDocument? {
        documents.withLock { $0[uri] }
    }

    /// Opens (or reopens) a document.
    public func open(_ document: TextDocument) {
        documents.withLock { $0[document.uri] = document }
    }

    /// Applies changes, in order, to the open document `uri` and sets its version.
    /// - Returns: whether the document is open.
    func change(_ uri: DocumentURI, version: Int?, changes: [TextDocument.ContentChange]) -> Bool {
        documents.withLock { documents in
            guard var document = documents[uri] else { return false }
            if let version { document.version = version }
            document.apply(changes)
            documents[uri] = document
            return true
        }
    }

    /// Closes a document.
    public func close(_ uri: DocumentURI) {
        documents.withLock { _ = $0.removeValue(forKey: uri) }
    }

    /// Runs `body` with the open documents while no other thread can change them: what `body` sends about
    /// a version of a document cannot cross a change or a close of it.
    public func withDocuments<Result>(_ body: (inout [DocumentURI: TextDocument]) -> Result) -> Result {
        documents.withLock { body(&$0) }
    }
}
