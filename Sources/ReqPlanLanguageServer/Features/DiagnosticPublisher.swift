import ReqPlanSyntax
import Synchronization

/// What the server has told the client about each document's diagnostics, and telling it anew.
///
/// A document's diagnostics can come from several checks: its own, and that of each open plan that
/// includes it (a sub-plan's problem seen from the plan that includes it). Each check's part is kept
/// apart (`textDocument/publishDiagnostics` replaces a document's whole list), and the list sent is their
/// union, without repeats.
final class DiagnosticPublisher: Sendable {
    private struct State {
        /// Each document's diagnostics, by the document whose check found them.
        var parts: [DocumentURI: [DocumentURI: [Value]]] = [:]
        /// The files each checked document includes, directly or not (paths).
        var includes: [DocumentURI: Set<String>] = [:]
    }

    private let state = Mutex(State())
    private let send: @Sendable ([UInt8]) -> Void

    /// A publisher sending each message's JSON text with `send`.
    init(send: @escaping @Sendable ([UInt8]) -> Void) {
        self.send = send
    }

    /// Records what the check of `origin` found, and publishes the documents whose list changed. Parts for a
    /// document not in `open` are dropped (it was closed since the check started).
    func publish(
        from origin: DocumentURI, _ diagnostics: [DocumentURI: [Value]], includes: Set<String>,
        open: Set<DocumentURI>
    ) {
        state.withLock { state in
            state.includes[origin] = includes
            var changed: Set<DocumentURI> = []
            for target in state.parts.keys where state.parts[target]?[origin] != nil && diagnostics[target] == nil {
                state.parts[target]?[origin] = nil
                changed.insert(target)
            }
            for (target, values) in diagnostics where open.contains(target) {
                if state.parts[target]?[origin] != values {
                    state.parts[target, default: [:]][origin] = values
                    changed.insert(target)
                }
            }
            // The document checked is always published: the first check of a clean document says so.
            changed.insert(origin)
            for target in changed.sorted(by: { $0.text < $1.text }) { publish(target, state) }
        }
    }

    /// Forgets a closed document: its own list (published empty) and what its check found in others.
    func close(_ uri: DocumentURI) {
        state.withLock { state in
            state.includes[uri] = nil
            state.parts[uri] = nil
            send(Self.message(uri, []))
            for target in state.parts.keys where state.parts[target]?[uri] != nil {
                state.parts[target]?[uri] = nil
                publish(target, state)
            }
        }
    }

    /// The open documents whose check reads `path` (a sub-plan they include).
    func documents(including path: String) -> [DocumentURI] {
        state.withLock { state in state.includes.filter { $0.value.contains(path) }.map(\.key) }
    }

    private func publish(_ target: DocumentURI, _ state: State) {
        var seen: Set<String> = []
        var list: [Value] = []
        // The document's own check first, then the others in a stable order.
        let origins = (state.parts[target] ?? [:]).keys.sorted { first, second in
            first == target || (second != target && first.text < second.text)
        }
        for origin in origins {
            for value in state.parts[target]?[origin] ?? [] {
                // The same problem seen from two checks: once (the document's own check comes first).
                // (The first line of the message: the rest holds notes, which differ by where it was seen from.)
                var firstLine = ""
                if case .string(let message)? = value["message"] { firstLine = String(message.prefix { $0 != "\n" }) }
                let key = (value["range"]?.jsonText() ?? "") + (value["code"]?.jsonText() ?? "") + firstLine
                if seen.insert(key).inserted { list.append(value) }
            }
        }
        send(Self.message(target, list))
    }

    /// The `textDocument/publishDiagnostics` notification of `uri`.
    static func message(_ uri: DocumentURI, _ diagnostics: [Value]) -> [UInt8] {
        PublishDiagnosticsNotification(uri: uri, diagnostics: diagnostics).message
    }
}
