import ReqPlanSyntax

/// Finds where a value a request sends first came from an earlier response, and writes a reference to it
/// (`${{ steps.create.body.id }}`) in place of the literal, with the evidence as a comment.
///
/// **The rule.** A value of a response is a *source* when it is
/// - a JSON value of its body (`body.id`, `body.items[0].id`, `body['a b']`): a string, or an integer;
/// - its `Location` header (`headers.location`), or a cookie it sets (`cookies.NAME`);
///
/// and it is not trivial: a string of 8 characters or more, or of 4 or more with a digit; an integer of
/// 3 digits or more; or any non-empty string or integer at a field named like an identifier or a
/// credential (`id`, `…_id`, `…Id`, `uuid`, `key`, `token`, `…_token`, `session…`). Booleans, null,
/// decimals, and a value that some request sent at or before that response (the client knew it: a user
/// name echoed back) are never sources. The first response a value appears in is its source.
///
/// A later request's value is replaced when it is *whole* equal to a source: a URL path segment, the whole
/// URL (or its path and query) equal to a `Location`, a query, form or JSON body value, a header value, the
/// credential after `Bearer ` or `Token `, a cookie's value. A cookie the source set is sent by the
/// run's cookie jar: its pair is left out of the `Cookie` header. A request header the HAR hides (`***`,
/// as `reqplan run --report har:` writes `Authorization`) is the token of the latest response with a
/// field named like a token, when there is one.
struct DataFlowFinder {
    private let entries: [HAREntry]
    private(set) var diagnostics: [Diagnostic] = []
    private var sources: [String: Source] = [:]
    private var sent: Set<String> = []
    private var setCookies: [String: Source] = [:]
    private var latestToken: Source?
    private var secretNames: [String: Bool] = [:]
    /// Every value a request sends that `rewrite` may look up; nil: not worked out (every value is learnt).
    private var wanted: Set<String>?

    /// Where a value was found.
    struct Source {
        var step: String
        var path: String
        var field: String
        var secret: Bool
    }

    private let file: String?

    /// A finder over `entries`, in the order they ran; warnings name `file`.
    init(entries: [HAREntry], file: String?) {
        self.entries = entries
        self.file = file
    }

    mutating func link(_ plan: inout ImportedPlan) {
        // A response's body values are learnt only when some request sends them (the rewrite's lookups are
        // all among these): a long session's bodies hold far more values than its requests ever send back.
        let sentByStep = plan.steps.map(Self.sentValues(of:))
        wanted = Set(sentByStep.joined()).union(plan.steps.flatMap(Self.headerParts(of:)))
        for index in plan.steps.indices {
            var step = plan.steps[index]
            for value in sentByStep[index] { sent.insert(value) }
            rewrite(&step)
            plan.steps[index] = step
            learn(from: entries[index], id: step.id)
        }
    }

    // MARK: - Sources

    private mutating func learn(from entry: HAREntry, id: String) {
        for header in entry.responseHeaders {
            let name = header.name.lowercased()
            if name == "location", !header.value.isEmpty {
                add(
                    header.value, Source(step: id, path: "headers.location", field: "location", secret: false),
                    force: true)
            } else if name == "set-cookie" {
                let pair = header.value.prefix { $0 != ";" }
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let cookie = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
                let value = String(pair[pair.index(after: equals)...])
                let source = Source(
                    step: id, path: "cookies" + Self.component(cookie), field: cookie, secret: value.count >= 8)
                if setCookies[cookie] == nil { setCookies[cookie] = source }
                add(value, source, force: false)
            }
        }
        guard let body = entry.responseBody else { return }
        // Breadth-first without recursion; a HAR's bodies may nest 512 levels. A value's path is written out
        // only when the value is kept as a source: each pending value knows its parent and its step from it.
        enum Step {
            case root
            case member(String)
            case index(Int)
        }
        var pending: [(value: Value, parent: Int, step: Step, field: String)] = [(body, -1, .root, "")]
        func path(of position: Int) -> String {
            var steps: [String] = []
            var current = position
            while current >= 0 {
                switch pending[current].step {
                case .root: steps.append("body")
                case .member(let key): steps.append(Self.component(key))
                case .index(let index): steps.append("[\(index)]")
                }
                current = pending[current].parent
            }
            return steps.reversed().joined()
        }
        var next = 0
        while next < pending.count, next < 100_000 {
            let position = next
            let (value, _, _, field) = pending[position]
            next += 1
            switch value {
            case .object(let fields):
                for member in fields where pending.count < 100_000 {
                    pending.append((member.value, position, .member(member.key), member.key))
                }
            case .list(let items):
                for (index, item) in items.enumerated().prefix(1000) where pending.count < 100_000 {
                    pending.append((item, position, .index(index), field))
                }
            case .string(let text):
                let secret = isSecretName(field)
                let token = secret && (text == "***" || text.count >= 8)
                guard token || isNew(text, field: field, secretName: secret) else { continue }
                let source = Source(step: id, path: path(of: position), field: field, secret: secret)
                if token { latestToken = source }
                add(text, source, force: false)
            case .int, .largeInt:
                let text = Self.text(of: value)
                guard isNew(text, field: field, secretName: isSecretName(field)) else { continue }
                add(text, Source(step: id, path: path(of: position), field: field, secret: false), force: false)
            default:
                break
            }
        }
    }

    /// Whether `value` would be kept as a new source (`add`'s test, before its path is written), and some
    /// request sends it.
    private mutating func isNew(_ value: String, field: String, secretName: Bool) -> Bool {
        wanted?.contains(value) != false && sources[value] == nil && !sent.contains(value)
            && Self.isLinkable(value, field: field, secretName: secretName)
    }

    /// `Credentials.isSecretName`, remembered: a long session's bodies repeat a few field names.
    private mutating func isSecretName(_ field: String) -> Bool {
        if let known = secretNames[field] { return known }
        let secret = Credentials.isSecretName(field)
        if secretNames.count < 10_000 { secretNames[field] = secret }
        return secret
    }

    private mutating func add(_ value: String, _ source: Source, force: Bool) {
        guard sources[value] == nil, !sent.contains(value),
            force || Self.isLinkable(value, field: source.field, secretName: isSecretName(source.field))
        else {
            return
        }
        sources[value] = source
    }

    /// The rule for a value worth a reference (see the type's documentation).
    /// - Parameter secretName: whether `field` is named like a credential (`Credentials.isSecretName`).
    static func isLinkable(_ value: String, field: String, secretName: Bool) -> Bool {
        guard !value.isEmpty, value != "***", value != "true", value != "false", value != "null" else { return false }
        let isInteger = Value.integer(fromDecimal: value) != nil
        let digits = value.utf8.count { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        if isIdentifierName(field) || secretName { return true }
        let length = value.count
        if isInteger { return length - (value.hasPrefix("-") ? 1 : 0) >= 3 }
        return length >= 8 || (length >= 4 && digits > 0)
    }

    private static func isIdentifierName(_ field: String) -> Bool {
        let lower = field.lowercased()
        return lower == "id" || lower.hasSuffix("_id") || lower.hasSuffix("-id") || field.hasSuffix("Id")
            || field.hasSuffix("ID") || lower == "uuid" || lower == "guid" || lower.hasPrefix("session")
    }

    // MARK: - Requests

    private mutating func rewrite(_ step: inout ImportedStep) {
        var evidence: [String] = []
        // The whole URL, from a `Location`.
        if let url = step.url.literal {
            let path = URLParts(url).path
            if let source = sources[url] ?? sources[path], source.path == "headers.location" {
                step.url = .reference(.step(source.step, source.path))
                evidence.append(note(source, "the URL"))
            } else {
                step.url = linkPath(url, evidence: &evidence)
            }
        }
        for index in step.query.indices {
            step.query[index].value = link(
                step.query[index].value, "the query parameter `\(step.query[index].name)`", &evidence)
        }
        var headers: [Pair] = []
        for header in step.headers {
            var header = header
            let name = header.name.lowercased()
            if name == "cookie" && header.value.literal == "***" {
                // reqplan's own HAR hides every `Cookie`: the cookies came from the responses, as the jar's will.
                evidence.append("the HAR hides `Cookie` (`***`): the run's cookie jar sends what the responses set")
                continue
            } else if name == "cookie" {
                guard let cookies = linkCookies(header.value, &evidence) else { continue }
                header.value = cookies
            } else if header.value.literal == "***" {
                guard let token = latestToken else {
                    warnHidden(header.name, step: step.id)
                    headers.append(header)
                    continue
                }
                if name == "authorization" {
                    step.auth = .bearer(.reference(.step(token.step, token.path)))
                } else {
                    headers.append(Pair(header.name, .reference(.step(token.step, token.path))))
                }
                evidence.append(
                    "the HAR hides `\(header.name)` (`***`): taken as the token `steps.\(token.step).\(token.path)`")
                continue
            } else if let value = header.value.literal, let space = value.firstIndex(of: " "),
                ["bearer", "token"].contains(value[..<space].lowercased())
            {
                let credential = String(value[value.index(after: space)...])
                if let source = sources[credential] {
                    header.value = PlanText(String(value[...space])) + .reference(.step(source.step, source.path))
                    evidence.append(note(source, "the `\(header.name)` credential"))
                }
            } else {
                header.value = link(header.value, "the header `\(header.name)`", &evidence)
            }
            headers.append(header)
        }
        step.headers = headers
        switch step.body {
        case .json(let value)?: step.body = .json(link(value, &evidence))
        case .form(let fields)?:
            step.body = .form(fields.map { Pair($0.name, link($0.value, "the form field `\($0.name)`", &evidence)) })
        default: break
        }
        step.comments += evidence
    }

    private mutating func warnHidden(_ name: String, step: String) {
        var diagnostic = Diagnostic.warning(
            .importSettingNotConverted,
            "the HAR hides the header `\(name)` of step `\(step)` (`***`) and no earlier response has a token",
            at: nil, hint: "the plan reads it from a secret input; give its value when it runs")
        diagnostic.file = file
        diagnostics.append(diagnostic)
    }

    private func link(_ text: PlanText, _ place: String, _ evidence: inout [String]) -> PlanText {
        guard let value = text.literal, let source = sources[value] else { return text }
        evidence.append(note(source, place))
        return .reference(.step(source.step, source.path))
    }

    private func linkPath(_ url: String, evidence: inout [String]) -> PlanText {
        let parts = URLParts(url)
        var pieces: [PlanText.Piece] = [.literal(parts.origin)]
        for segment in parts.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            pieces.append(.literal("/"))
            let decoded = FormFields.decode(String(segment), plusIsSpace: false)
            if let source = sources[decoded], !segment.isEmpty {
                pieces.append(.reference(.step(source.step, source.path)))
                evidence.append(note(source, "a segment of the URL's path"))
            } else {
                pieces.append(.literal(String(segment)))
            }
        }
        return PlanText(pieces: Self.joined(pieces))
    }

    private func link(_ value: PlanValue, _ evidence: inout [String]) -> PlanValue {
        switch value {
        case .text(let text): return .text(link(text, "a value of the JSON body", &evidence))
        case .number(let digits):
            guard let source = sources[digits] else { return value }
            evidence.append(note(source, "a number of the JSON body"))
            return .text(.reference(.step(source.step, source.path)))
        case .list(let items): return .list(items.map { link($0, &evidence) })
        case .object(let members): return .object(members.map { .init($0.key, link($0.value, &evidence)) })
        default: return value
        }
    }

    /// A `Cookie` header without the cookies an earlier response set (the run's jar sends them), its other
    /// values linked; `nil` when none is left.
    private func linkCookies(_ text: PlanText, _ evidence: inout [String]) -> PlanText? {
        guard let value = text.literal else { return text }
        var pieces: [PlanText.Piece] = []
        for pair in value.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            let name = String(trimmed.prefix { $0 != "=" })
            if let source = setCookies[name] {
                evidence.append(
                    "the cookie `\(name)` is sent by the run's cookie jar, from the response of `\(source.step)`")
                continue
            }
            if !pieces.isEmpty { pieces.append(.literal("; ")) }
            let cookieValue = String(trimmed.dropFirst(name.count + 1))
            if trimmed.contains("="), let source = sources[cookieValue] {
                pieces.append(.literal(name + "="))
                pieces.append(.reference(.step(source.step, source.path)))
                evidence.append(note(source, "the cookie `\(name)`"))
            } else {
                pieces.append(.literal(trimmed))
            }
        }
        return pieces.isEmpty ? nil : PlanText(pieces: Self.joined(pieces))
    }

    private func note(_ source: Source, _ place: String) -> String {
        "data flow: \(place) is `steps.\(source.step).\(source.path)`, first seen in the response of `\(source.step)`"
    }

    // MARK: - Helpers

    /// Every literal value a step sends, for the rule that a value the client sent first is no source.
    /// The values of `step`'s headers that `rewrite` may look up among the sources beside those it sends
    /// whole (`sentValues`): the credential after a scheme, and each `name=value` pair's value.
    private static func headerParts(of step: ImportedStep) -> [String] {
        var values: [String] = []
        for header in step.headers {
            guard let value = header.value.literal else { continue }
            if let space = value.firstIndex(of: " ") { values.append(String(value[value.index(after: space)...])) }
            for pair in value.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                if let equals = trimmed.firstIndex(of: "=") {
                    values.append(String(trimmed[trimmed.index(after: equals)...]))
                }
            }
        }
        return values
    }

    private static func sentValues(of step: ImportedStep) -> [String] {
        var values: [String] = []
        if let url = step.url.literal {
            values += URLParts(url).path.split(separator: "/").map { FormFields.decode(String($0), plusIsSpace: false) }
        }
        values += step.query.compactMap(\.value.literal) + step.headers.compactMap(\.value.literal)
        switch step.body {
        case .json(let value)?:
            var pending = [value]
            while let next = pending.popLast() {
                switch next {
                case .text(let text): if let literal = text.literal { values.append(literal) }
                case .number(let digits): values.append(digits)
                case .list(let items): pending += items
                case .object(let members): pending += members.map(\.value)
                default: break
                }
            }
        case .form(let fields)?: values += fields.compactMap(\.value.literal)
        case .raw(let text)?: if let literal = text.literal { values.append(literal) }
        default: break
        }
        return values
    }

    /// `.name` when the key is a name of the language, else `['key']`.
    static func component(_ key: String) -> String {
        func isLetter(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
        }
        let isName =
            key.utf8.first.map { $0 == UInt8(ascii: "_") || isLetter($0) } == true
            && key.utf8.allSatisfy {
                isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: "-")
            }
        return isName ? "." + key : "['" + key.replacingOccurrences(of: "'", with: "''") + "']"
    }

    private static func text(of value: Value) -> String {
        switch value {
        case .int(let number): String(number)
        case .largeInt(let digits): digits
        default: ""
        }
    }

    private static func joined(_ pieces: [PlanText.Piece]) -> [PlanText.Piece] {
        var result: [PlanText.Piece] = []
        for piece in pieces {
            if case .literal(let text) = piece {
                if text.isEmpty { continue }
                if case .literal(let last)? = result.last {
                    result[result.count - 1] = .literal(last + text)
                    continue
                }
            }
            result.append(piece)
        }
        return result
    }
}
