import ReqPlanTransport
import ReqPlanRuntime
import ReqPlanSyntax

/// `--verbose`: every request and response with its headers (sensitive ones redacted) and the
/// start of its body.
///
/// A request is shown with the headers of its head as reqplan's client writes them (`shownHeadersAsSent`:
/// `Host`, `Content-Length` and `Accept-Encoding` included) and as `PreparedRequest.shown` has it (`***` where a secret went in, what a server sent
/// through the textual net); the values of headers that carry credentials or cookies are `***` by name;
/// a response's header values and body, which the server wrote, go through the textual net (`Redactor`).
/// Names and the layout are never touched. Everything shown (a server's headers and bodies, and a request's,
/// which may repeat them) shows its control characters instead of obeying them (`VisibleText`): a header
/// value on its line, a body's lines kept.
public struct VerboseLog: ExecutionObserver {
    /// Headers whose values are always hidden, plus the plan's `redact_headers`.
    public static let alwaysRedacted = SecretFlow.alwaysSecretHeaders

    private let redactedHeaders: Set<String>
    private let redactor: Redactor
    private let bodyLimit: Int
    private let write: @Sendable (String) -> Void

    /// Creates the log.
    /// - Parameters:
    ///   - redactHeaders: the plan's `redact_headers`.
    ///   - redactor: the textual net for free text.
    ///   - bodyLimit: bytes of each body shown.
    ///   - write: where lines go.
    public init(
        redactHeaders: [String], redactor: Redactor, bodyLimit: Int = 2048,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.redactedHeaders = VerboseLog.alwaysRedacted.union(redactHeaders.map { $0.lowercased() })
        self.redactor = redactor
        self.bodyLimit = bodyLimit
        self.write = write
    }

    public func stepStarted(_ id: String, item: Int?, at time: Duration) {}
    public func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {}
    public func stepFinished(_ result: StepResult) {}

    private func label(_ id: String, _ item: Int?) -> String {
        item.map { "\(id)[\($0)]" } ?? id
    }

    private func headerLines(_ headers: [HeaderField], prefix: String) -> String {
        headers.map { header in
            let value =
                redactedHeaders.contains(header.name.lowercased())
                ? ExpressionEvaluator.secretMarker : redactor.redact(header.value)
            return "\(prefix) \(VisibleText.line(header.name)): \(VisibleText.line(value))\n"
        }.joined()
    }

    /// A response's headers as every output shows them (`ResponseHeaders`): repeated fields combined.
    private func responseHeaderLines(_ headers: [HeaderField], prefix: String) -> String {
        ResponseHeaders(headers).fields.map { field in
            field.lines.map { line in
                let value =
                    redactedHeaders.contains(field.name) ? ExpressionEvaluator.secretMarker : redactor.redact(line)
                return "\(prefix) \(VisibleText.line(field.name)): \(VisibleText.line(value))\n"
            }.joined()
        }.joined()
    }

    /// - Parameter net: whether the text goes through the textual net (what a server sent).
    /// - Parameter size: the whole body's size, when `bytes` is only its start.
    private func body(_ bytes: [UInt8]?, size: Int? = nil, prefix: String, net: Bool) -> String {
        guard let bytes, !bytes.isEmpty else { return "" }
        let text = String(decoding: bytes.prefix(bodyLimit), as: UTF8.self)
        let shown = VisibleText.lines(net ? redactor.redact(text) : text)
        let total = size ?? bytes.count
        let more = total > bodyLimit ? "\n\(prefix) … \(total - bodyLimit) more bytes" : ""
        return shown.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "\(prefix) \($0)" }.joined(separator: "\n") + more + "\n"
    }

    public func requestSent(_ id: String, item: Int?, request: PreparedRequest) {
        let text =
            "> \(label(id, item)): \(request.method) \(VisibleText.line(redactor.redact(request.shownURL)))\n"
            + headerLines(request.shownHeadersAsSent, prefix: ">") + body(request.shownBody, prefix: ">", net: true)
        write(text)
    }

    public func responseReceived(_ id: String, item: Int?, response: TransportResponse) {
        let text =
            "< \(label(id, item)): \(response.status)\n"
            + responseHeaderLines(response.headers, prefix: "<")
            + body(response.body, size: response.size, prefix: "<", net: true)
        write(text)
    }
}
