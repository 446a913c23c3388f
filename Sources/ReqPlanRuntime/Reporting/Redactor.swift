import ReqPlanTransport
import ReqPlanSyntax

/// The textual safety net of redaction: hides the text of secrets in what cannot be traced to where a
/// secret went in: the values a server sent (a response that echoes a credential, a URL it redirected
/// to, an error body), and the free text of a library's error.
///
/// Redaction is by value first (`SecretFlow`): what reqplan shows of a value built from a secret says
/// `***` exactly where the secret went in, whatever the secret's length, and the plan's own text, keys,
/// names, numbers and the structure of every report are never touched. The net works on values before
/// they are encoded, so no report can be made invalid by it, and only for secrets of at least
/// `minimumLength` characters, so that it does not collide with ordinary text: a secret `1`, `test` or
/// `json` would otherwise turn `418` into `4***8` and `testcase` into `***case`. Credentials, session
/// ids and API keys are this long (NIST SP 800-63B asks 8 characters of a password at least); a shorter
/// secret is hidden wherever reqplan put it, but not where a server repeats it.
public struct Redactor: Sendable {
    /// The shortest secret whose text the net hides.
    public static let minimumLength = SecretStore.minimumTextualLength

    /// The texts hidden, longest first (so a secret containing another is hidden whole).
    public let secrets: [String]
    /// Secrets learnt during the run (credentials, cookie values), read at each call.
    private let store: SecretStore?

    /// Creates a net for the given secret values, and for those `store` holds at the time of each call.
    public init(secrets: [String], store: SecretStore? = nil) {
        self.secrets = SecretStore.texts(hiding: secrets)
        self.store = store
    }

    /// Every text the net hides now, longest first (for a renderer that hides them itself:
    /// `DiagnosticRenderer.hiding`).
    public var texts: [String] {
        let learnt = store?.hidden ?? []
        return learnt.isEmpty ? secrets : SecretStore.longestFirst(secrets + learnt)
    }

    /// `text` with every secret (of `minimumLength` or more) replaced by `***`.
    public func redact(_ text: String) -> String {
        let learnt = store?.hidden ?? []
        if secrets.isEmpty && learnt.isEmpty { return text }
        var result = text
        for secret in learnt.isEmpty ? secrets : SecretStore.longestFirst(secrets + learnt)
        where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: ExpressionEvaluator.secretMarker)
        }
        return result
    }

    /// `text` redacted, when there is one.
    public func redact(_ text: String?) -> String? {
        text.map(redact)
    }

    /// `value` with every secret in its strings replaced by `***`; object keys are names and stay.
    public func redact(_ value: Value) -> Value {
        switch value {
        case .string(let text): .string(redact(text))
        case .list(let items): .list(items.map(redact))
        case .object(let fields): .object(fields.map { Value.Field($0.key, redact($0.value)) })
        default: value
        }
    }
}

extension RunResult {
    /// The result as every output shows it: each string in it through `net`, wherever its text came from
    /// (a URL or a body the plan wrote literally, a server's answer, a library's error), inside each value so
    /// that no report can be garbled. Names, numbers, states and the structure are left alone, and so are
    /// the outputs as the run gave them (`outputs`: `--output json` writes those the plan declares secret
    /// whole, as asked); `shownOutputs` go through the net. Redaction by value (`SecretFlow`) has happened
    /// already; this is the net over it for secrets of `Redactor.minimumLength` characters or more.
    public func netted(by net: Redactor) -> RunResult {
        // A run with no secret of that length (most runs) is shown as it is, without a copy.
        guard !net.texts.isEmpty else { return self }
        var shown = self
        shown.results = results.mapValues { $0.netted(by: net) }
        shown.shownOutputs = shownOutputs.map { ($0.name, net.redact($0.value)) }
        shown.outputErrors = outputErrors.map(net.redact)
        return shown
    }
}

extension StepResult {
    /// The step's result with each string in it through `net`, its members' and items' too.
    public func netted(by net: Redactor) -> StepResult {
        guard !net.texts.isEmpty else { return self }
        var shown = self
        if var reason = shown.reason {
            reason.message = net.redact(reason.message)
            shown.reason = reason
        }
        shown.url = net.redact(url)
        shown.responseExcerpt = net.redact(responseExcerpt)
        shown.bodyProblem = net.redact(bodyProblem)
        shown.body = body.map(net.redact)
        shown.outputs = outputs.map(net.redact)
        shown.headers = headers?.map { ($0.name, net.redact($0.value)) }
        shown.checks = checks.map { check in
            var check = check
            check.problems = check.problems.map(net.redact)
            return check
        }
        shown.attempts = attempts.map { attempt in
            var attempt = attempt
            attempt.error = net.redact(attempt.error)
            return attempt
        }
        shown.children = children?.map { $0.netted(by: net) }
        return shown
    }
}
