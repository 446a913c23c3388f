import Foundation
import ReqPlanSyntax
import ReqPlanTransport

/// Where `--push URL` sends a load's figures at its end, and how: one `PUT` of the Prometheus text format
/// (0.0.4, the format a Pushgateway takes) to `URL/metrics/job/reqplan/plan/PLAN[/shard/K-of-N]`, which
/// replaces the figures of that group, so a load pushed again replaces its own figures and the shards of a
/// load keep theirs apart.
///
/// - Grouping: the job is `reqplan`; `plan` is the plan as the reports name it (its path as given on the
///   command line); `shard` is `K-of-N` for part K of a sharded load, absent for a whole load and a merge.
///   Nothing else: inputs, secrets and data rows are never labels. A value of other characters than
///   letters, digits, `.`, `_` and `-` is written base64url-encoded (`plan@base64/…`), as the Pushgateway
///   reads it, so a `/` in a path cannot change the group.
/// - Limits: the whole push (connection, request and answer) within `timeout`, no redirect followed, an
///   answer body kept to 64 KiB; an answer other than 2xx is a failure, with its status and the start of its
///   body shown safely.
public struct MetricsPush: Sendable {
    /// Why a push could not be made or was refused. Its message names the gateway without credentials.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        public var description: String { message }
        /// A failure saying `message`.
        public init(_ message: String) { self.message = message }
    }

    /// One grouping label: a name and its value.
    public struct Label: Sendable, Hashable {
        /// The label's name (`plan`).
        public var name: String
        /// Its value.
        public var value: String
    }

    /// The longest `--push` URL taken.
    public static let maxURLLength = 4096
    /// The job every push is grouped under.
    public static let job = "reqplan"
    /// The most bytes of a gateway's answer kept (the rest is counted, not held).
    public static let maxAnswerSize = 64 << 10

    /// The gateway's base URL, as given (without a trailing `/`).
    public let gateway: RequestURL
    /// The grouping labels after the job, in order.
    public var labels: [Label] = []
    /// How long the push may take in all.
    public var timeout: Duration = .seconds(30)

    /// A push to the Pushgateway at `text` (`http://pushgateway:9091`, or with a path prefix).
    /// - Throws: why `text` is not a gateway's base URL: not absolute http(s), too long, or with a query or
    ///   fragment.
    public init(gateway text: String) throws(Failure) {
        guard !text.isEmpty else { throw Failure("--push needs the Pushgateway's URL, such as http://localhost:9091") }
        guard text.utf8.count <= Self.maxURLLength else {
            throw Failure("--push: the URL is longer than \(Self.maxURLLength) bytes")
        }
        guard !text.contains("?"), !text.contains("#") else {
            throw Failure(
                "--push `\(Self.shown(text))` has a query or a fragment (not shown): give the gateway's base URL")
        }
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        do {
            gateway = try RequestURL(parsing: base)
        } catch {
            throw Failure("--push `\(Self.shown(text))` is not an http or https URL (such as http://localhost:9091)")
        }
    }

    /// `text` as a message shows it: without its query or fragment, a user and password before `@` as `***` (a
    /// CI job's `--push "$GATEWAY"` may carry a token in either).
    static func shown(_ text: String) -> String {
        var base = String(text.prefix { $0 != "?" && $0 != "#" })
        if let scheme = base.range(of: "://"), let at = base[scheme.upperBound...].firstIndex(of: "@"),
            !base[scheme.upperBound..<at].contains("/")
        {
            base.replaceSubrange(scheme.upperBound..<at, with: "***")
        }
        return VisibleText.line(base)
    }

    /// The grouping of a load's result: its plan, and its part when it is a shard.
    public mutating func group(_ result: LoadResult) {
        labels = [Label(name: "plan", value: result.plan)]
        if let shard = result.shard {
            labels.append(Label(name: "shard", value: "\(shard.index)-of-\(shard.count)"))
        }
    }

    /// The URL the figures are put to: the gateway's, then `/metrics/job/reqplan` and each label.
    public var url: String { gateway.text + groupPath }

    /// The URL as messages show it: `url`, which has no credentials (`RequestURL.text` leaves them out).
    public var shownURL: String { url }

    private var groupPath: String {
        "/metrics/job/\(Self.job)" + labels.map { "/" + Self.pathSegment($0) }.joined()
    }

    /// `name/value`, or `name@base64/…` when the value holds anything but letters, digits, `.`, `_`, `-`
    /// (or is empty, or is `.` or `..`).
    static func pathSegment(_ label: Label) -> String {
        let plain = label.value.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
        }
        if plain, !label.value.isEmpty, label.value != ".", label.value != ".." {
            return "\(label.name)/\(label.value)"
        }
        let encoded = Data(label.value.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "\(label.name)@base64/\(encoded.isEmpty ? "=" : encoded)"
    }

    /// The request that puts `text` (Prometheus text format 0.0.4).
    /// - Throws: when the gateway's URL with the group's path is not a URL (a label no encoding could write).
    public func request(putting text: String) throws(Failure) -> PreparedRequest {
        var request: PreparedRequest
        do {
            request = try PreparedRequest(
                method: .PUT, url: url,
                headers: [HeaderField("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: Array(text.utf8), followRedirects: false, usesCookies: false)
        } catch {
            throw Failure("cannot push the figures to \(shownURL): not a URL")
        }
        if let credentials = gateway.credentials {
            request.headers.append(
                HeaderField(
                    "Authorization",
                    RequestBuilder.basicAuthorization(
                        user: credentials.user, password: credentials.password, secrets: nil)))
        }
        request.keepsResponseBody = Self.maxAnswerSize
        return request
    }

    /// Puts `text` to the gateway over `transport`, within `timeout`.
    /// - Throws: the failure to reach the gateway, or its refusal (an answer other than 2xx).
    public func send(_ text: String, over transport: any Transport) async throws(Failure) {
        let request = try request(putting: text)
        let response: TransportResponse
        do {
            response = try await transport.send(request, timeout: timeout)
        } catch {
            let reason =
                switch error.kind {
                case .timeout: "no answer within \(PlanDuration(milliseconds: Int(timeout.milliseconds)))"
                case .cancelled: "the push was interrupted"
                default: error.message
                }
            throw Failure("cannot push the figures to \(shownURL): \(VisibleText.line(reason))")
        }
        guard (200..<300).contains(response.status) else {
            let body = String(decoding: response.body.prefix(300), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(
                "the Pushgateway at \(shownURL) refused the figures: status \(response.status)"
                    + (body.isEmpty ? "" : ": \(VisibleText.line(body))"))
        }
    }
}
