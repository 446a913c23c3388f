extension PlanReader {
    static let pollKeys = ["until", "every", "timeout", "attempts", "unsafe"]
    static let pollIntervalKeys = ["initial", "factor", "max"]
    /// The most polls (`poll.attempts`).
    static let pollAttemptsRange = PollPolicy.attemptsRange
    /// How much each wait grows (`poll.every.factor`).
    static let pollFactorRange = 1.0...10.0

    /// `poll:` — `until` (required), `every`, and a bound: `timeout`, `attempts` or both.
    /// - Parameter key: the `poll` key, where a missing key is reported.
    mutating func readPoll(_ node: YAMLNode, _ what: String, key: Located<String>) -> PollPolicy? {
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.pollKeys, in: what)
        let until: Expression?
        if let untilNode = fields.value("until") {
            until = condition(untilNode, "`until` of \(what)")
        } else {
            until = nil
            diagnostics.error(
                .missingKey, "\(what) has no `until`", at: key.range,
                hint: "say when to stop, as in `until: ${{ response.body.state == 'done' }}`")
        }
        let timeout = fields.value("timeout").flatMap { duration($0, "`timeout` of \(what)") }
        let attempts = fields.value("attempts").flatMap {
            integer($0, "`attempts` of \(what)", in: PlanReader.pollAttemptsRange)
        }
        if !fields.has("timeout") && !fields.has("attempts") {
            diagnostics.error(
                .missingKey, "\(what) has no bound: neither `timeout` nor `attempts`", at: key.range,
                hint: "add `timeout: 2m` (time for all the polls) or `attempts: 30` (the most polls)")
        }
        let every = fields.value("every").flatMap { readPollInterval($0, "`every` of \(what)") }
        let unsafe = fields.value("unsafe").flatMap { bool($0, "`unsafe` of \(what)") }
        guard let until else { return nil }
        return PollPolicy(
            until: until, every: every, timeout: timeout, attempts: attempts, unsafe: unsafe,
            range: key.range)
    }

    /// `every:` — a duration, or `{ initial, factor, max }`.
    private mutating func readPollInterval(_ node: YAMLNode, _ what: String) -> Located<PollInterval>? {
        guard case .mapping = node else {
            return duration(node, what).map { Located(.fixed($0.value), at: $0.range) }
        }
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.pollIntervalKeys, in: what)
        let initial = fields.value("initial").flatMap { duration($0, "`initial` of \(what)") }
        let max = fields.value("max").flatMap { duration($0, "`max` of \(what)") }
        let factor =
            fields.value("factor").map { number($0, "`factor` of \(what)", in: PlanReader.pollFactorRange) }
            ?? PollInterval.defaultFactor
        let first = initial?.value ?? PollInterval.defaultInitial
        let ceiling = max?.value ?? PollInterval.defaultMax
        if let max, max.value < first {
            diagnostics.error(
                .invalidValue, "`max` (\(max.value)) of \(what) is shorter than `initial` (\(first))",
                at: max.range)
            return nil
        }
        guard let factor, initial != nil || !fields.has("initial"), max != nil || !fields.has("max") else { return nil }
        return Located(.backoff(initial: first, factor: factor, max: Swift.max(first, ceiling)), at: fields.range)
    }

    /// A number (whole or not) within `bounds`.
    private mutating func number(_ node: YAMLNode, _ what: String, in bounds: ClosedRange<Double>) -> Double? {
        guard charge(node) else { return nil }
        let value: Double
        switch scalarValue(node) {
        case .int(let whole): value = Double(whole)
        case .double(let fraction): value = fraction
        default:
            diagnostics.error(.wrongType, "\(what) must be a number, found \(describe(node))", at: range(node))
            return nil
        }
        guard bounds.contains(value) else {
            diagnostics.error(
                .invalidValue,
                "\(what) must be between \(bounds.lowerBound.formatted) and "
                    + "\(bounds.upperBound.formatted), found \(value.formatted)", at: range(node))
            return nil
        }
        return value
    }

    /// Polling repeats the request: like a retry, a method that is not idempotent needs `unsafe: true`.
    mutating func checkPollMethod(_ poll: PollPolicy, of request: RequestSpec?, in what: String) {
        guard let method = request?.method, !method.value.isIdempotent, poll.unsafe?.value != true else { return }
        diagnostics.error(
            .unsafePoll, "\(what) polls a \(method.value) request, which is not idempotent", at: poll.range,
            notes: [.init("the method is given here", at: method.range)],
            hint: "each poll sends the request again; poll a GET of the status URL, or write `unsafe: true` in `poll:`")
    }
}

extension Double {
    /// `2` for whole numbers, `1.5` otherwise.
    fileprivate var formatted: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
