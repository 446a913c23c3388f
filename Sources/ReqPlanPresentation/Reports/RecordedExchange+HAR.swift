import Foundation
import ReqPlanTransport
import ReqPlanRuntime
import ReqPlanSyntax

extension RecordedExchange {
    /// The HAR 1.2 `entry` of this exchange, on the page `pageID`, redacted as `page` says.
    func harEntry(pageID: String, of page: HARLog.Page) -> Value {
        let net = page.redactor
        let version = response?.httpVersion ?? ""
        var fields: [Value.Field] = [
            .init("pageref", .string(pageID)),
            .init("startedDateTime", .string(RunReport.timeText(started))),
            .init("time", harTime.millisecondsValue),
            .init("request", harRequest(version: version, page: page)),
            .init("response", harResponse(version: version, page: page)),
            .init("cache", .object([])),
            .init("timings", harTimings),
            .init("_step", .string(step)),
        ]
        if let item { fields.append(.init("_item", .int(item))) }
        fields.append(.init("_attempt", .int(attempt)))
        if let error { fields.append(.init("_error", .string(net.redact(error)))) }
        return .object(fields)
    }

    private func harRequest(version: String, page: HARLog.Page) -> Value {
        let url = page.redactor.redact(request.url)
        var fields: [Value.Field] = [
            .init("method", .string(request.method)),
            .init("url", .string(url)),
            .init("httpVersion", .string(version)),
            .init("cookies", .list(Self.requestCookies(request.headers))),
            .init("headers", Self.harHeaders(request.headers, page: page)),
            .init("queryString", .list(Self.query(of: url))),
            .init("headersSize", .int(-1)),
            .init("bodySize", .int(request.body?.size ?? 0)),
        ]
        if let body = request.body {
            let written = body.written(redactedBy: page.redactor)
            var postData: [Value.Field] = [
                .init("mimeType", .string(body.mimeType ?? "")),
                .init("text", .string(written.text)),
            ]
            if let encoding = written.encoding { postData.append(.init("_encoding", .string(encoding))) }
            if written.truncated { postData.append(.init("_truncated", .bool(true))) }
            fields.insert(.init("postData", .object(postData)), at: 6)
        }
        return .object(fields)
    }

    /// A response, or what browsers write for a request that got none: status 0, nothing else.
    private func harResponse(version: String, page: HARLog.Page) -> Value {
        guard let response else {
            return .object([
                .init("status", .int(0)), .init("statusText", .string("")), .init("httpVersion", .string("")),
                .init("cookies", .list([])), .init("headers", .list([])),
                .init("content", .object([.init("size", .int(0)), .init("mimeType", .string(""))])),
                .init("redirectURL", .string("")), .init("headersSize", .int(-1)), .init("bodySize", .int(-1)),
            ])
        }
        let written = response.body.written(redactedBy: page.redactor)
        var content: [Value.Field] = [
            .init("size", .int(response.body.size)),
            .init("mimeType", .string(response.body.mimeType ?? "")),
        ]
        if !written.text.isEmpty { content.append(.init("text", .string(written.text))) }
        if let encoding = written.encoding { content.append(.init("encoding", .string(encoding))) }
        if written.truncated { content.append(.init("_truncated", .bool(true))) }
        let location =
            (300..<400).contains(response.status)
            ? response.headers.last { $0.name.equalsIgnoringCase("location") }?.value : nil
        return .object([
            .init("status", .int(response.status)),
            // reqplan keeps no reason phrase (HTTP/2 has none).
            .init("statusText", .string("")),
            .init("httpVersion", .string(version)),
            .init("cookies", .list(Self.responseCookies(response.headers))),
            .init("headers", Self.harHeaders(response.headers, page: page)),
            .init("content", .object(content)),
            .init("redirectURL", .string(location.map(page.redactor.redact) ?? "")),
            .init("headersSize", .int(-1)),
            .init("bodySize", .int(response.body.size)),
        ])
    }

    /// HAR's `time`: the sum of the phases when they were measured (HAR requires it), else the exchange's time.
    private var harTime: Duration {
        guard let phases else { return time }
        return phases.blocked + (phases.connect ?? .zero) + phases.send + phases.wait + phases.receive
    }

    /// HAR's `timings`: the client's phases; where it did not measure them (the library clients, an
    /// exchange that failed), the whole time is `wait` (HAR requires send, wait and receive, adding up
    /// to `time`) and the others are -1. DNS is never told apart (-1): it is part of `connect`.
    private var harTimings: Value {
        let unknown = Value.int(-1)
        guard let phases else {
            return .object([
                .init("blocked", unknown), .init("dns", unknown), .init("connect", unknown), .init("ssl", unknown),
                .init("send", .int(0)), .init("wait", time.millisecondsValue), .init("receive", .int(0)),
            ])
        }
        return .object([
            .init("blocked", phases.blocked.millisecondsValue),
            .init("dns", unknown),
            .init("connect", phases.connect?.millisecondsValue ?? unknown),
            .init("ssl", phases.tls?.millisecondsValue ?? unknown),
            .init("send", phases.send.millisecondsValue),
            .init("wait", phases.wait.millisecondsValue),
            .init("receive", phases.receive.millisecondsValue),
        ])
    }

    /// Headers as HAR lists them; values of secret names `***`, the others through the net.
    private static func harHeaders(_ headers: [HeaderField], page: HARLog.Page) -> Value {
        .list(
            headers.map { header in
                let value =
                    page.hiddenHeaders.contains(header.name.lowercased())
                    ? ExpressionEvaluator.secretMarker : page.redactor.redact(header.value)
                return .object([.init("name", .string(header.name)), .init("value", .string(value))])
            })
    }

    /// The cookies of `Cookie` headers, their values `***` (every cookie value is a secret).
    private static func requestCookies(_ headers: [HeaderField]) -> [Value] {
        headers.filter { $0.name.equalsIgnoringCase("cookie") }.flatMap { header in
            header.value.split(separator: ";").compactMap { pair in
                let name = pair.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces)
                return name.isEmpty ? nil : cookie(name)
            }
        }
    }

    /// The cookies `Set-Cookie` headers set, their values `***`.
    private static func responseCookies(_ headers: [HeaderField]) -> [Value] {
        headers.filter { $0.name.equalsIgnoringCase("set-cookie") }.compactMap { header in
            let name = header.value.prefix { $0 != "=" && $0 != ";" }.trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? nil : cookie(name)
        }
    }

    private static func cookie(_ name: String) -> Value {
        .object([.init("name", .string(name)), .init("value", .string(ExpressionEvaluator.secretMarker))])
    }

    /// The query of `url` as name and value pairs, as written (still percent-encoded).
    private static func query(of url: String) -> [Value] {
        guard let mark = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: mark)...].prefix { $0 != "#" }
        return query.split(separator: "&").map { pair in
            let name = pair.prefix { $0 != "=" }
            let value = pair.dropFirst(name.count + 1)
            return .object([.init("name", .string(String(name))), .init("value", .string(String(value)))])
        }
    }
}
