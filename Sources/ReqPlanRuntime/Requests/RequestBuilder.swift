import Foundation
import ReqPlanSyntax

/// Where request files (`multipart` file parts, `body_file`) may be read from: the plan's project, or its
/// folder (`FileBoundary`).
public struct FileAccess: Sendable {
    /// The plan's folder.
    public var planDirectory: URL
    /// Whether paths may leave the plan's project (`--allow-files-outside`).
    public var allowOutside: Bool
    /// How the host lets its user allow that (the command line's `--allow-files-outside`), named in the
    /// error of a file outside; nil: the error names no setting.
    public var outsideSetting: String?
    /// The folder relative paths resolve against: the plan's, or a sub-plan's for the requests it sends.
    public var baseDirectory: URL
    /// Where files may come from: the top plan's project, or its folder.
    let boundary: FileBoundary

    public init(planDirectory: URL, allowOutside: Bool = false, outsideSetting: String? = nil) {
        self.planDirectory = planDirectory.standardizedFileURL
        self.allowOutside = allowOutside
        self.outsideSetting = outsideSetting
        self.baseDirectory = self.planDirectory
        self.boundary = FileBoundary(planFolder: planDirectory, allowOutside: allowOutside)
    }

    /// The same access for the requests of a plan file in `directory` (a sub-plan): its relative paths
    /// resolve against its own folder, and must still stay inside the top plan's project.
    public func relative(to directory: URL) -> FileAccess {
        var access = self
        access.baseDirectory = directory.standardizedFileURL
        return access
    }

    /// Reads a file named in the plan.
    func read(_ path: String, at range: SourceRange?) throws(EvaluationError) -> (bytes: [UInt8], name: String) {
        let url = FileBoundary.resolve(path, relativeTo: baseDirectory)
        if !boundary.permits(url) {
            throw EvaluationError(
                "file `\(path)` is outside \(boundary.scope) (\(boundary.root))"
                    + (outsideSetting.map { "; pass \($0) to read it" } ?? ""),
                at: range)
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw EvaluationError("cannot read file `\(path)` (\(url.path))", at: range)
        }
        return ([UInt8](data), url.lastPathComponent)
    }
}

/// Builds the concrete request of a step: evaluates every template, applies
/// `defaults`, joins the URL to `base_url`, encodes the query and the body.
public struct RequestBuilder: Sendable {
    public let defaults: RequestDefaults
    public let files: FileAccess
    /// Sent unless the plan sets its own.
    public var userAgent = "reqplan/0.1"

    public init(defaults: RequestDefaults, files: FileAccess) {
        self.defaults = defaults
        self.files = files
    }

    /// The request for `spec` in `context`.
    /// - Parameters:
    ///   - spec: the request as written.
    ///   - context: what its expressions read.
    ///   - usesCookies: whether the run's cookie jar applies (`cookies:` of the plan and the enclosing steps).
    ///   - secrets: where the credentials it sends are recorded (`auth:`, a URL's user and password), so
    ///     that every output hides them.
    public func build(
        _ spec: RequestSpec, in context: EvaluationContext, usesCookies: Bool = true,
        secrets: SecretStore? = nil
    ) throws -> PreparedRequest {
        var url = try ExpressionEvaluator.text(spec.url, in: context)
        if url.urlScheme == nil {
            guard let base = defaults.baseURL else {
                throw EvaluationError("relative URL `\(url)` needs `base_url` in `defaults`", at: spec.url.range)
            }
            url = Self.join(try ExpressionEvaluator.text(base, in: context), url)
        }
        // Credentials in the URL (`http://user:pw@host/`) are sent as basic auth, as curl does; the URL
        // the request goes to, and every output, is without them.
        let urlCredentials = Self.removeCredentials(from: &url)
        if let urlCredentials {
            secrets?.add(urlCredentials.user)
            secrets?.add(urlCredentials.password)
        }
        // An http(s) URL (the scheme in lower case from here on), without spaces or control
        // characters: they cannot go on a request line (and a line break there would start another request).
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw EvaluationError("`\(url)` is not a valid http(s) URL", at: spec.url.range)
        }
        if !url.hasPrefix("http://") && !url.hasPrefix("https://") {
            guard let scheme = url.urlScheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw EvaluationError("`\(url)` is not a valid http(s) URL", at: spec.url.range)
            }
            url = scheme + url.dropFirst(scheme.utf8.count)
        }

        // Query: defaults first, the request's own values replace parameters of the same name.
        var query: [(String, String)] = []
        let ownNames = Set(spec.query.map(\.name.value))
        for parameter in defaults.query where !ownNames.contains(parameter.name.value) {
            query += try Self.pairs(parameter, in: context)
        }
        for parameter in spec.query { query += try Self.pairs(parameter, in: context) }
        if !query.isEmpty {
            let encoded = query.map { Self.percentEncode($0.0) + "=" + Self.percentEncode($0.1) }.joined(separator: "&")
            if let hash = url.firstIndex(of: "#") { url = String(url[..<hash]) }
            url += (url.contains("?") ? "&" : "?") + encoded
        }

        // Headers: defaults, then the request's (case-insensitive names; the request wins). The request's
        // own choice of credentials wins too: its `auth` over a default `Authorization` header, its
        // `Authorization` header over the default `auth`.
        var headers: [HeaderField] = []
        var own = Set(spec.headers.map { $0.name.value.lowercased() })
        if spec.auth != nil { own.insert("authorization") }
        for header in defaults.headers where !own.contains(header.name.value.lowercased()) {
            headers.append(HeaderField(header.name.value, try ExpressionEvaluator.text(header.value, in: context)))
        }
        for header in spec.headers {
            headers.append(HeaderField(header.name.value, try ExpressionEvaluator.text(header.value, in: context)))
        }
        if let auth = spec.auth ?? (spec.authorizationHeader == nil ? defaults.auth : nil) {
            headers.append(HeaderField("Authorization", try authorization(auth.value, in: context, secrets: secrets)))
        } else if let urlCredentials, !headers.contains(where: { $0.name.equalsIgnoringCase("authorization") }) {
            headers.append(
                HeaderField(
                    "Authorization",
                    Self.basicAuthorization(
                        user: urlCredentials.user, password: urlCredentials.password, secrets: secrets)))
        }
        for header in headers where header.value.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw EvaluationError("header `\(header.name)` contains a line break", at: spec.range)
        }

        var body: [UInt8]?
        var contentType: String?
        switch spec.body {
        case nil: break
        case .json(let template):
            body = Array(try ExpressionEvaluator.evaluate(template, in: context).jsonText().utf8)
            contentType = "application/json"
        case .form(let fields):
            var pairs: [(String, String)] = []
            for field in fields { pairs += try Self.pairs(field, in: context) }
            body = Array(pairs.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
            contentType = "application/x-www-form-urlencoded"
        case .multipart(let parts):
            let boundary = "reqplan-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            body = try multipart(parts, boundary: boundary, in: context)
            contentType = "multipart/form-data; boundary=\(boundary)"
        case .text(let template):
            body = Array(try ExpressionEvaluator.text(template, in: context).utf8)
            contentType = "text/plain; charset=utf-8"
        case .file(let template):
            let path = try ExpressionEvaluator.text(template, in: context)
            body = try files.read(path, at: template.range).bytes
            contentType = "application/octet-stream"
        }
        if let contentType, !headers.contains(where: { $0.name.equalsIgnoringCase("content-type") }) {
            headers.append(HeaderField("Content-Type", contentType))
        }
        if !headers.contains(where: { $0.name.equalsIgnoringCase("user-agent") }) {
            headers.append(HeaderField("User-Agent", userAgent))
        }
        return PreparedRequest(
            method: spec.effectiveMethod, url: url, headers: headers, body: body,
            followRedirects: spec.followRedirects?.value ?? defaults.followRedirects?.value, usesCookies: usesCookies)
    }

    // MARK: Credentials

    /// The `Authorization` value of `auth:`; every secret part of it goes into `secrets`.
    private func authorization(_ auth: RequestAuth, in context: EvaluationContext, secrets: SecretStore?) throws
        -> String
    {
        switch auth {
        case .basic(let username, let password):
            return Self.basicAuthorization(
                user: try ExpressionEvaluator.text(username, in: context),
                password: try ExpressionEvaluator.text(password, in: context), secrets: secrets)
        case .bearer(let template):
            let token = try ExpressionEvaluator.text(template, in: context)
            let value = "Bearer " + token
            secrets?.add(token)
            secrets?.add(value)
            return value
        }
    }

    /// `Basic base64(user:password)` (RFC 7617, UTF-8); the password, the `user:password` text, its
    /// base64 form and the whole value go into `secrets`.
    static func basicAuthorization(user: String, password: String, secrets: SecretStore?) -> String {
        let pair = user + ":" + password
        let encoded = Data(pair.utf8).base64EncodedString()
        let value = "Basic " + encoded
        for secret in [password, pair, encoded, value] { secrets?.add(secret) }
        return value
    }

    /// Removes the user information from an absolute URL (`http://user:pw@host/` → `http://host/`).
    /// - Returns: the user and password, percent-decoded (the password empty when the URL gives none),
    ///   or nil when the URL has none.
    static func removeCredentials(from url: inout String) -> (user: String, password: String)? {
        guard let separator = url.range(of: "://") else { return nil }
        let authorityStart = separator.upperBound
        let authorityEnd =
            url[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        // The last `@` of the authority ends the user information (an `@` in a password is often left unencoded).
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") else { return nil }
        let userInfo = url[authorityStart..<at]
        url.removeSubrange(authorityStart...at)
        let colon = userInfo.firstIndex(of: ":")
        let user = String(userInfo[..<(colon ?? userInfo.endIndex)])
        let password = colon.map { String(userInfo[userInfo.index(after: $0)...]) } ?? ""
        return (user.removingPercentEncoding ?? user, password.removingPercentEncoding ?? password)
    }

    private func multipart(_ parts: [MultipartPart], boundary: String, in context: EvaluationContext) throws
        -> [UInt8]
    {
        var out: [UInt8] = []
        func append(_ text: String) { out += Array(text.utf8) }
        for part in parts {
            append("--\(boundary)\r\n")
            let name = Self.quoteParameter(part.name.value)
            let type = try part.contentType.map { try ExpressionEvaluator.text($0, in: context) }
            switch part.content {
            case .value(let template):
                append("Content-Disposition: form-data; name=\"\(name)\"\r\n")
                if let type { append("Content-Type: \(type)\r\n") }
                append("\r\n")
                append(try ExpressionEvaluator.text(template, in: context))
            case .file(let template):
                let path = try ExpressionEvaluator.text(template, in: context)
                let file = try files.read(path, at: template.range)
                let filename = try part.filename.map { try ExpressionEvaluator.text($0, in: context) } ?? file.name
                append(
                    "Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(Self.quoteParameter(filename))\"\r\n"
                )
                append("Content-Type: \(type ?? "application/octet-stream")\r\n\r\n")
                out += file.bytes
            }
            append("\r\n")
        }
        append("--\(boundary)--\r\n")
        return out
    }

    // MARK: Encoding

    /// `base` and `path` joined by exactly one `/`.
    static func join(_ base: String, _ path: String) -> String {
        if path.isEmpty { return base }
        if path.hasPrefix("?") { return base + path }
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmedBase + (path.hasPrefix("/") ? path : "/" + path)
    }

    private static func pairs(_ parameter: QueryParameter, in context: EvaluationContext) throws -> [(String, String)] {
        let value = try ExpressionEvaluator.evaluate(parameter.value, in: context)
        switch value {
        case .list(let items): return items.map { (parameter.name.value, $0.interpolated) }
        case .null: return []
        default: return [(parameter.name.value, value.interpolated)]
        }
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// RFC 3986 percent-encoding of everything but unreserved characters.
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// `application/x-www-form-urlencoded`: like percent-encoding, with spaces as `+`.
    static func formEncode(_ text: String) -> String {
        percentEncode(text).replacingOccurrences(of: "%20", with: "+")
    }

    private static func quoteParameter(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
