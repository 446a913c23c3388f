import Foundation
import ReqPlanTransport
import ReqPlanSyntax

/// Checks a response against `expect:`; every unmet expectation is reported, expected vs actual.
public enum ExpectationChecker {
    /// One expectation a response did not meet: why, and where the plan writes it (nil for the default
    /// `2xx`, which no plan writes).
    public struct Problem: Sendable {
        public var text: String
        public var range: SourceRange?
    }

    /// The problems with `response`, empty when it meets every expectation; `url` is the URL requested, as
    /// conditions read it (`response.url`).
    public static func check(
        _ expectation: Expectation?, status: Int, headers: [HeaderField], body: Value, bodyProblem: String? = nil,
        duration: Duration, url: String? = nil, in context: EvaluationContext
    ) -> [String] {
        locatedProblems(
            expectation, status: status, headers: headers, body: body, bodyProblem: bodyProblem, duration: duration,
            url: url, in: context
        ).map(\.text)
    }

    /// The problems with `response`, each with the place of the expectation it did not meet.
    public static func locatedProblems(
        _ expectation: Expectation?, status: Int, headers: [HeaderField], body: Value, bodyProblem: String? = nil,
        duration: Duration, url: String? = nil, in context: EvaluationContext
    ) -> [Problem] {
        checks(
            expectation, status: status, headers: headers, body: body, bodyProblem: bodyProblem, duration: duration,
            url: url, in: context
        ).flatMap { check in check.problems.map { Problem(text: $0, range: check.range) } }
    }

    /// Every expectation checked against `response`, met or not: the status, the headers, the body, the
    /// conditions, then the time limit.
    public static func checks(
        _ expectation: Expectation?, status: Int, headers: [HeaderField], body: Value, bodyProblem: String? = nil,
        duration: Duration, url: String? = nil, in context: EvaluationContext
    ) -> [ExpectationCheck] {
        var checks: [ExpectationCheck] = []
        func add(_ subject: ExpectationCheck.Subject, _ problems: [String], at range: SourceRange?) {
            checks.append(ExpectationCheck(subject, at: range, problems: problems))
        }
        let statuses = expectation?.status?.map(\.value) ?? [.classOf(2)]
        if statuses.contains(where: { $0.matches(status) }) {
            add(.status(statuses), [], at: expectation?.status?.first?.range)
        } else {
            let expected = statuses.map(\.description).joined(separator: " or ")
            add(
                .status(statuses), ["expected status \(expected), got \(status)"], at: expectation?.status?.first?.range
            )
        }
        if let expected = expectation?.headers, !expected.isEmpty {
            let combined = ResponseHeaders(headers)
            for header in expected {
                // A header that carries credentials or cookies is shown as `***` whatever it holds.
                add(
                    .header(header),
                    check(
                        header.matcher, combined[header.name.value], what: "header `\(header.name.value)`",
                        hidingActual: context.secretFlow.headers.contains(header.name.value.lowercased()),
                        in: context), at: header.name.range)
            }
        }
        for item in expectation?.body ?? [] {
            if let bodyProblem, !item.path.value.isEmpty {
                add(.body(item), ["cannot check body `\(item.pathText)`: \(bodyProblem)"], at: item.path.range)
                continue
            }
            let actual = lookUp(body, item.path.value)
            add(
                .body(item),
                check(
                    item.matcher, actual, what: item.pathText == "$" ? "body" : "body `\(item.pathText)`",
                    in: context), at: item.path.range)
        }
        if let conditions = expectation?.conditions, !conditions.isEmpty {
            var inner = context
            inner.items["response"] = .object([
                .init("status", .int(status)), .init("headers", ResponseHeaders(headers).value),
                .init("body", body), .init("duration", .int(Int(duration.milliseconds))),
                .init("url", url.map(Value.string) ?? .null),
            ])
            for condition in conditions {
                add(.condition(condition), check(condition, in: inner), at: condition.written.range)
            }
        }
        if let limit = expectation?.maxDuration {
            add(
                .maxDuration(limit.value),
                duration > limit.value.duration
                    ? ["expected a response within \(limit.value), took \(duration.milliseconds)ms"] : [],
                at: limit.range)
        }
        return checks
    }

    /// Whether a condition on the response holds (`context` reads it as `response`); if not, the criterion as
    /// written and the values of the response it read.
    static func check(_ condition: ResponseCondition, in context: EvaluationContext) -> [String] {
        let holds: Bool
        do {
            holds = try ExpressionEvaluator.condition(condition.expression, in: context)
        } catch {
            return ["cannot evaluate criterion `\(condition.written.value)`: \(error.message)"]
        }
        guard !holds else { return [] }
        var seen: [String] = []
        var shown: Set<String> = []
        for reference in condition.expression.references where reference.root.value == "response" {
            let path = reference.description
            guard shown.insert(path).inserted else { continue }
            let expression = reference.components.reduce(Expression.variable(reference.root)) {
                .access($0, $1, reference.range)
            }
            let value = (try? ExpressionEvaluator.evaluate(expression, in: context)) ?? .null
            let text =
                context.secretFlow.carriesSecret(expression)
                ? ExpressionEvaluator.secretMarker : shortened(context.secretNet.redact(value))
            seen.append("\(path) = \(text)")
        }
        return [
            "criterion `\(condition.written.value)` does not hold"
                + (seen.isEmpty ? "" : " (\(seen.joined(separator: ", ")))")
        ]
    }

    /// The value at a body path, or `nil` when the path does not exist.
    static func lookUp(_ body: Value, _ path: [PathComponent]) -> Value? {
        var current = body
        for (position, component) in path.enumerated() {
            switch component {
            case .member(let name):
                guard let next = current[name] else { return nil }
                current = next
            case .index(let index):
                guard case .list(let items) = current else { return nil }
                let resolved = index < 0 ? items.count + index : index
                guard items.indices.contains(resolved) else { return nil }
                current = items[resolved]
            case .wildcard:
                return ExpressionEvaluator.follow(current, [.wildcard] + path[(position + 1)...])
            }
        }
        return current
    }

    /// A value of the response as failure messages show it: through the textual net (a server may repeat
    /// a secret), shortened to 200 characters.
    private static func describe(_ value: Value?, in context: EvaluationContext, hiding: Bool = false) -> String {
        guard let value else { return "nothing" }
        if hiding { return shortened(.string(ExpressionEvaluator.secretMarker)) }
        return shortened(context.secretNet.redact(value))
    }

    /// A value's JSON text, shortened to 200 characters.
    private static func shortened(_ value: Value) -> String {
        let text = value.jsonText()
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// - Parameter hidingActual: the value checked is shown as `***` (a header secret by its name).
    static func check(
        _ matcher: Matcher, _ actual: Value?, what: String, hidingActual: Bool = false, in context: EvaluationContext
    ) -> [String] {
        var problems: [String] = []
        if let equals = matcher.equals {
            do {
                let (expected, shownExpected) = try ExpressionEvaluator.render(equals, in: context)
                // Header values are text: compare them with the expected value's text.
                let matches: Bool
                if case .string(let text)? = actual, what.hasPrefix("header"), expected.type != .string {
                    matches = text == expected.interpolated
                } else {
                    matches = actual.map { $0.languageEquals(expected) } ?? false
                }
                if !matches {
                    let shown = shortened(shownExpected ?? expected)
                    problems.append(
                        "expected \(what) to equal \(shown), got \(describe(actual, in: context, hiding: hidingActual))"
                    )
                }
            } catch {
                problems.append("cannot evaluate the expected \(what): \(error.message)")
            }
        }
        if let exists = matcher.exists?.value {
            if exists && actual == nil { problems.append("expected \(what) to exist, it is missing") }
            if !exists && actual != nil {
                problems.append(
                    "expected \(what) not to exist, got \(describe(actual, in: context, hiding: hidingActual))")
            }
        }
        if let type = matcher.type?.value {
            if actual?.type != type {
                problems.append(
                    "expected \(what) to be \(type.withArticle), got \(actual.map { $0.type.withArticle } ?? "nothing")"
                )
            }
        }
        if let pattern = matcher.matches?.value {
            let text = actual.map { value -> String in
                if case .string(let string) = value { return string }
                return value.jsonText()
            }
            // Through the language's regular expressions: compiled once, matched within the evaluation's limits.
            var found = false
            var stopped: EvaluationStopped?
            if let text {
                do {
                    found = try RegularExpression.firstMatch(of: pattern, in: text) != nil
                } catch {
                    if case .stopped(let stop) = error { stopped = stop }
                }
            }
            if let stopped {
                problems.append(
                    "could not check \(what) against /\(pattern)/: the match was stopped: \(stopped.message)")
            } else if !found {
                problems.append(
                    "expected \(what) to match /\(pattern)/, got \(describe(actual, in: context, hiding: hidingActual))"
                )
            }
        }
        if let contains = matcher.contains {
            do {
                let (needle, shownNeedle) = try ExpressionEvaluator.render(contains, in: context)
                let found: Bool
                switch actual {
                case .string(let text)?: found = text.contains(needle.interpolated)
                case .list(let items)?: found = items.contains { $0.languageEquals(needle) }
                default: found = false
                }
                if !found {
                    let shown = shortened(shownNeedle ?? needle)
                    problems.append(
                        "expected \(what) to contain \(shown), got \(describe(actual, in: context, hiding: hidingActual))"
                    )
                }
            } catch {
                problems.append("cannot evaluate the expected \(what): \(error.message)")
            }
        }
        if let length = matcher.length?.value {
            let actualLength: Int?
            switch actual {
            case .string(let text)?: actualLength = text.count
            case .list(let items)?: actualLength = items.count
            case .object(let fields)?: actualLength = fields.count
            default: actualLength = nil
            }
            if actualLength != length {
                problems.append(
                    "expected \(what) to have length \(length), got \(actualLength.map(String.init) ?? describe(actual, in: context, hiding: hidingActual))"
                )
            }
        }
        return problems
    }
}
