import Foundation

extension StepResult {
    /// How many polls a step with `poll:` made (the last attempt's poll); nil for other steps.
    public var polls: Int? { attempts.last?.poll }

    /// The tries of a request in words: `3 polls`, `3 polls, 4 attempts` (retries within polls),
    /// `2 attempts`, `3 visits` (a member of a control flow that a loop ran again), `3 visits, 4 attempts`; nil
    /// for one attempt of a request that does not poll.
    public var triesText: String? {
        guard let visits, visits > 1 else { return Self.triesText(attempts: attempts.count, polls: polls) }
        return "\(visits) visits" + (attempts.count > visits ? ", \(attempts.count) attempts" : "")
    }

    /// The tries in words, from their counts (see `triesText`).
    public static func triesText(attempts: Int, polls: Int?) -> String? {
        guard let polls else { return attempts > 1 ? "\(attempts) attempts" : nil }
        return "\(polls) poll\(polls == 1 ? "" : "s")" + (attempts > polls ? ", \(attempts) attempts" : "")
    }

    /// A time in words, as messages and the progress display give it: `250ms` under a second, `1.2s` from one.
    public static func elapsedText(milliseconds: Int) -> String {
        milliseconds < 1000 ? "\(milliseconds)ms" : String(format: "%.1fs", Double(milliseconds) / 1000)
    }
}

extension AttemptRecord {
    /// A try that started at `start` (since the run started) and took `duration`; the rest is set after.
    public init(number: Int, start: Duration, duration: Duration) {
        self.number = number
        self.start = start
        self.duration = duration
    }
}
