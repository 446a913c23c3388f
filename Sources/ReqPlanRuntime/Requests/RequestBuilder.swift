import Foundation
import ReqPlanTransport
import ReqPlanSyntax
import Synchronization

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
    /// The largest file a request may send (`body_file`, a multipart `file`), in bytes (default 256 MiB):
    /// the whole file is held in memory while it is sent.
    public var maxFileSize = 256 << 20

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

    /// Reads a file named in the plan, as every file an input names is read (`FileReader`): a regular file
    /// inside the boundary once its links are resolved, at most `maxFileSize` bytes.
    func read(_ path: String, at range: SourceRange?) throws(EvaluationError) -> (bytes: [UInt8], name: String) {
        let url = FileBoundary.resolve(path, relativeTo: baseDirectory)
        if !boundary.permits(url) {
            throw EvaluationError(
                "file `\(path)` is outside \(boundary.scope) (\(boundary.root))"
                    + (outsideSetting.map { "; pass \($0) to read it" } ?? ""),
                at: range)
        }
        let unjoined = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
        switch FileReader.bytes(
            atPath: unjoined.path, origin: .input(boundary), limit: maxFileSize, what: "file `\(path)`", shownAs: path)
        {
        case .success(let bytes): return (bytes, url.lastPathComponent)
        case .failure(let failure) where failure.kind == .outside:
            throw EvaluationError(
                failure.text + (outsideSetting.map { "; pass \($0) to read it" } ?? ""), at: range)
        case .failure(let failure):
            throw EvaluationError(
                failure.text
                    + (failure.isTooLarge ? " (a request sends at most \(maxFileSize >> 20) MiB from a file)" : ""),
                at: range)
        }
    }
}

/// Builds the concrete request of a step: evaluates every template, applies
/// `defaults`, joins the URL to `base_url`, encodes the query and the body.
public struct RequestBuilder: Sendable {
    public let defaults: RequestDefaults
    public let files: FileAccess
    /// Sent unless the plan sets its own.
    public var userAgent = ReqPlanVersion.userAgent
    /// The last URL this builder parsed: a load's iterations send the same URLs over and over.
    private let lastURL = LastParsedURL()

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
        // Each part is also rendered as every output shows it, when that differs (`shown…`, nil
        // otherwise): `***` exactly where a secret went in (`ExpressionEvaluator.render`).
        if let operation = spec.operation, spec.url.parts.isEmpty {
            throw EvaluationError(
                "operation `\(operation.written.value)` cannot be sent: its API description `\(operation.api)` was not "
                    + "read", at: operation.written.range)
        }
        var (text, shownURL) = try ExpressionEvaluator.render(spec.url, in: context)
        if text.urlScheme == nil {
            guard let base = defaults.baseURL else {
                throw EvaluationError(
                    "relative URL `\(shownURL ?? text)` needs `base_url` in `defaults`", at: spec.url.range)
            }
            let (baseText, shownBase) = try ExpressionEvaluator.render(base, in: context)
            if shownBase != nil || shownURL != nil { shownURL = Self.join(shownBase ?? baseText, shownURL ?? text) }
            text = Self.join(baseText, text)
        }
        // Query: defaults first, the request's own values replace parameters of the same name.
        let parameters: [QueryParameter]
        if defaults.query.isEmpty {
            parameters = spec.query
        } else {
            let ownNames = Set(spec.query.map(\.name.value))
            parameters = defaults.query.filter { !ownNames.contains($0.name.value) } + spec.query
        }
        if !parameters.isEmpty {
            let query = try Self.encodedPairs(parameters, in: context, encode: URLEncoding.percentEncode)
            let unqueried = text
            if !query.sent.isEmpty { text = Self.appending(query: query.sent, to: text) }
            if query.shown != nil || shownURL != nil {
                let shownQuery = query.shown ?? query.sent
                shownURL = shownQuery.isEmpty ? shownURL : Self.appending(query: shownQuery, to: shownURL ?? unqueried)
            }
        }
        if let queryString = spec.queryString {
            var (sent, shown) = try ExpressionEvaluator.render(queryString, in: context)
            if sent.hasPrefix("?") {
                sent.removeFirst()
                shown = shown.map { String($0.dropFirst()) }
            }
            if !sent.isEmpty {
                if shown != nil || shownURL != nil {
                    shownURL = Self.appending(query: shown ?? sent, to: shownURL ?? text)
                }
                text = Self.appending(query: sent, to: text)
            }
        }
        let auth = effectiveAuth(of: spec)
        // API keys: `auth`'s, and those sent beside it (an operation's requirement of several schemes).
        var keys = spec.additionalKeys
        if case .apiKey(let key)? = auth?.value { keys.insert(key, at: 0) }
        for key in keys where key.place.value == .query {
            let value = try ExpressionEvaluator.text(key.value, in: context)
            secrets?.add(value)
            let name = URLEncoding.percentEncode(key.name.value)
            shownURL = Self.appending(query: name + "=" + ExpressionEvaluator.secretMarker, to: shownURL ?? text)
            text = Self.appending(query: name + "=" + URLEncoding.percentEncode(value), to: text)
        }
        // The URL is parsed once, here; every hop reads it (`RequestURL`).
        let url: RequestURL
        do {
            url = try lastURL.parsing(text)
        } catch {
            throw EvaluationError(Self.problem(error, shownURL ?? text), at: spec.url.range)
        }
        // Credentials in the URL (`http://user:pw@host/`) are sent as basic auth, as curl does; the URL
        // the request goes to, and every output, is without them.
        if let shown = shownURL { shownURL = (try? RequestURL(parsing: shown))?.text ?? shown }
        if let credentials = url.credentials {
            secrets?.add(credentials.user)
            secrets?.add(credentials.password)
            // The URL may repeat the password it just gave (`/basic-auth/carol/PASSWORD`): net it now.
            let netted = context.secretNet.redact(shownURL ?? url.text)
            if netted != url.text { shownURL = netted }
        }

        // Headers: defaults, then the request's (case-insensitive names; the request wins). The request's
        // own choice of credentials wins too: its `auth` over a default `Authorization` header, its
        // `Authorization` header over the default `auth`.
        var headers: [HeaderField] = []
        var shownHeaders: [HeaderField] = []
        var headersShownDiffer = false
        let templates: [Header]
        if defaults.headers.isEmpty {
            templates = spec.headers
        } else {
            var own = Set(spec.headers.map { $0.name.value.lowercased() })
            if let written = spec.auth?.value.headerName { own.insert(written) }
            for key in spec.additionalKeys where key.place.value == .header {
                own.insert(key.name.value.lowercased())
            }
            templates = defaults.headers.filter { !own.contains($0.name.value.lowercased()) } + spec.headers
        }
        for header in templates {
            let (value, shown) = try ExpressionEvaluator.render(header.value, in: context)
            try Self.checkHeaderLine(value, "header `\(header.name.value)`", at: header.value.range)
            headers.append(HeaderField(header.name.value, value))
            if shown != nil { headersShownDiffer = true }
            shownHeaders.append(HeaderField(header.name.value, shown ?? value))
        }
        for key in spec.additionalKeys {
            guard let (name, value) = try authorization(.apiKey(key), in: context, secrets: secrets) else { continue }
            try Self.checkHeaderLine(value, "the `\(name)` header of an API key", at: key.value.range)
            headers.append(HeaderField(name, value))
            shownHeaders.append(HeaderField(name, Self.shownKey(name: name, value: value)))
            headersShownDiffer = true
        }
        if let auth, let (name, value) = try authorization(auth.value, in: context, secrets: secrets) {
            try Self.checkHeaderLine(value, "the `\(name)` header of `auth`", at: auth.range)
            headers.append(HeaderField(name, value))
            if name != "Authorization" {
                shownHeaders.append(HeaderField(name, Self.shownKey(name: name, value: value)))
                headersShownDiffer = true
            }
        } else if auth != nil {
            // An OAuth 2.0 grant, a signature, a digest: added as the request is sent (`SentCredentials`).
        } else if let credentials = url.credentials,
            !headers.contains(where: { $0.name.equalsIgnoringCase("authorization") })
        {
            headers.append(
                HeaderField(
                    "Authorization",
                    Self.basicAuthorization(user: credentials.user, password: credentials.password, secrets: secrets)))
        }
        if headers.count > shownHeaders.count {
            // Credentials: hidden by name in every output.
            shownHeaders.append(HeaderField("Authorization", ExpressionEvaluator.secretMarker))
        }

        var body: [UInt8]?
        var shownBody: [UInt8]?
        var bodyShownDiffers = false
        var contentType: String?
        switch spec.body {
        case nil: break
        case .json(let template):
            let (value, shownValue) = try ExpressionEvaluator.render(template, in: context)
            body = Array(value.jsonText().utf8)
            if let shown = shownValue {
                shownBody = Array(shown.jsonText().utf8)
                bodyShownDiffers = true
            }
            contentType = "application/json"
        case .form(let fields):
            let form = try Self.encodedPairs(fields, in: context, encode: URLEncoding.formEncode)
            body = Array(form.sent.utf8)
            if let shown = form.shown {
                shownBody = Array(shown.utf8)
                bodyShownDiffers = true
            }
            contentType = "application/x-www-form-urlencoded"
        case .multipart(let parts):
            let boundary = "reqplan-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let (sent, shown) = try multipart(parts, boundary: boundary, in: context)
            body = sent
            if let shown {
                shownBody = shown
                bodyShownDiffers = true
            }
            contentType = "multipart/form-data; boundary=\(boundary)"
        case .text(let template):
            let (text, shownText) = try ExpressionEvaluator.render(template, in: context)
            body = Array(text.utf8)
            if let shown = shownText {
                shownBody = Array(shown.utf8)
                bodyShownDiffers = true
            }
            contentType = "text/plain; charset=utf-8"
        case .file(let template):
            let path = try ExpressionEvaluator.text(template, in: context)
            body = try files.read(path, at: template.range).bytes
            contentType = "application/octet-stream"
        }
        if let contentType, !headers.contains(where: { $0.name.equalsIgnoringCase("content-type") }) {
            headers.append(HeaderField("Content-Type", contentType))
            shownHeaders.append(HeaderField("Content-Type", contentType))
        }
        if !headers.contains(where: { $0.name.equalsIgnoringCase("user-agent") }) {
            headers.append(HeaderField("User-Agent", userAgent))
            shownHeaders.append(HeaderField("User-Agent", userAgent))
        }
        var request = PreparedRequest(
            method: spec.effectiveMethod, url: url, headers: headers, body: body,
            followRedirects: spec.followRedirects?.value ?? defaults.followRedirects?.value, usesCookies: usesCookies)
        if shownURL != nil || headersShownDiffer || bodyShownDiffers {
            request.shown = ShownRequest(
                url: shownURL ?? url.text, headers: headersShownDiffer ? shownHeaders : headers,
                body: bodyShownDiffers ? shownBody : body, bodyCarriesSecret: bodyShownDiffers)
        }
        return request
    }

    // MARK: Credentials

    /// The `auth:` a request sends: its own, else `defaults.auth` unless the request writes the header that
    /// writes (its own `Authorization` header, or the API key's header).
    public func effectiveAuth(of spec: RequestSpec) -> Located<RequestAuth>? {
        if let own = spec.auth { return own }
        guard let auth = defaults.auth else { return nil }
        guard let written = auth.value.headerName else { return auth }
        return spec.headers.contains { $0.name.value.lowercased() == written } ? nil : auth
    }

    /// The header `auth:` writes, name and value (`Authorization`, or an API key's header or `Cookie`); nil
    /// for an OAuth 2.0 grant (its token is added when the request is sent) and a key in the query (in the
    /// URL already). Every secret part of it goes into `secrets`.
    private func authorization(_ auth: RequestAuth, in context: EvaluationContext, secrets: SecretStore?) throws
        -> (String, String)?
    {
        switch auth {
        case .basic(let username, let password):
            return (
                "Authorization",
                Self.basicAuthorization(
                    user: try ExpressionEvaluator.text(username, in: context),
                    password: try ExpressionEvaluator.text(password, in: context), secrets: secrets)
            )
        case .bearer(let template):
            return ("Authorization", Self.bearer(try ExpressionEvaluator.text(template, in: context), secrets: secrets))
        case .oauth2, .awsSigV4, .digest:
            // Given when the request is sent (`SentCredentials`).
            return nil
        case .apiKey(let key):
            let value = try ExpressionEvaluator.text(key.value, in: context)
            secrets?.add(value)
            switch key.place.value {
            case .header: return (key.name.value, value)
            case .cookie: return ("Cookie", key.name.value + "=" + value)
            case .query: return nil
            }
        }
    }

    /// An API key's header or cookie as every output shows it: under its name, the key hidden.
    static func shownKey(name: String, value: String) -> String {
        (name == "Cookie" ? String(value.prefix { $0 != "=" }) + "=" : "") + ExpressionEvaluator.secretMarker
    }

    /// `Bearer TOKEN` (RFC 6750); the token and the whole value go into `secrets`.
    static func bearer(_ token: String, secrets: SecretStore?) -> String {
        let value = "Bearer " + token
        secrets?.add(token)
        secrets?.add(value)
        return value
    }

    /// `request` with `Authorization: Bearer TOKEN` in place of any `Authorization` header it has, shown as
    /// `***` in every output; the token goes into `secrets`.
    public static func bearer(_ token: String, on request: PreparedRequest, secrets: SecretStore?) -> PreparedRequest {
        setting([HeaderField("Authorization", bearer(token, secrets: secrets))], on: request)
    }

    /// `request` with `fields` in place of its headers of the same names; those named in `hidden` (lowercased;
    /// by default `authorization`) are shown as `***` in every output.
    static func setting(
        _ fields: [HeaderField], hidden: Set<String> = ["authorization"], on request: PreparedRequest
    ) -> PreparedRequest {
        var request = request
        var shown = request.shown ?? ShownRequest(url: request.url.text, headers: request.headers, body: request.body)
        for field in fields {
            request.headers.removeAll { $0.name.equalsIgnoringCase(field.name) }
            shown.headers.removeAll { $0.name.equalsIgnoringCase(field.name) }
            request.headers.append(field)
            let hide = hidden.contains(field.name.lowercased())
            shown.headers.append(hide ? HeaderField(field.name, ExpressionEvaluator.secretMarker) : field)
        }
        request.shown = shown
        return request
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

    /// Why `text` cannot be a request's URL, for the step's failure.
    private static func problem(_ problem: RequestURL.Problem, _ text: String) -> String {
        switch problem {
        case .notHTTP: "`\(text)` is not an http(s) URL"
        case .noHost: "`\(text)` has no host"
        case .badAuthority: "`\(text)` has a port that is not a number from 1 to 65535, or an unclosed IPv6 address"
        case .invalidCharacter:
            "`\(text)` holds a space or a control character, which cannot go on a request line (encode it: `%20`)"
        default: "`\(text)` is not a URL a request can go to"
        }
    }

    /// The multipart body of `parts` as sent, and as every output shows it when that differs (else nil).
    private func multipart(_ parts: [MultipartPart], boundary: String, in context: EvaluationContext) throws
        -> (sent: [UInt8], shown: [UInt8]?)
    {
        var out: [UInt8] = []
        var shownOut: [UInt8] = []
        var differs = false
        func append(_ text: String, shown: String? = nil) {
            out += Array(text.utf8)
            shownOut += Array((shown ?? text).utf8)
            if shown != nil { differs = true }
        }
        func text(_ template: Template) throws -> (String, String?) {
            try ExpressionEvaluator.render(template, in: context)
        }
        for part in parts {
            let what = "multipart part `\(part.name.value)`"
            try Self.checkHeaderLine(part.name.value, "the name of \(what)", at: part.name.range)
            append("--\(boundary)\r\n")
            let name = Self.quoteParameter(part.name.value)
            let type = try part.contentType.map { try text($0) }
            if let type, let range = part.contentType?.range {
                try Self.checkHeaderLine(type.0, "the `content_type` of \(what)", at: range)
            }
            switch part.content {
            case .value(let template):
                append("Content-Disposition: form-data; name=\"\(name)\"\r\n")
                if let type { append("Content-Type: \(type.0)\r\n", shown: type.1.map { "Content-Type: \($0)\r\n" }) }
                append("\r\n")
                let (value, shown) = try text(template)
                append(value, shown: shown)
            case .file(let template):
                let path = try ExpressionEvaluator.text(template, in: context)
                let file = try files.read(path, at: template.range)
                let (filename, shownFilename) = try part.filename.map { try text($0) } ?? (file.name, nil)
                try Self.checkHeaderLine(
                    filename, "the file name of \(what)", at: part.filename?.range ?? template.range)
                let disposition = { (filename: String) in
                    "Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(Self.quoteParameter(filename))\"\r\n"
                }
                append(disposition(filename), shown: shownFilename.map(disposition))
                let contentType = { (type: String?) in "Content-Type: \(type ?? "application/octet-stream")\r\n\r\n" }
                append(contentType(type?.0), shown: type?.1.map(contentType))
                out += file.bytes
                shownOut += file.bytes
            }
            append("\r\n")
        }
        append("--\(boundary)--\r\n")
        return (out, differs ? shownOut : nil)
    }

    /// Refuses `value`, which goes into a header line, when it holds a control character (`HeaderLine`).
    static func checkHeaderLine(_ value: some StringProtocol, _ what: String, at range: SourceRange?)
        throws(EvaluationError)
    {
        guard let scalar = HeaderLine.forbiddenCharacter(in: value) else { return }
        throw EvaluationError(HeaderLine.problem(what, scalar), at: range, kind: .invalidHeader)
    }

    // MARK: Encoding

    /// `url` without its fragment, with `query` added after its own (`?` or `&`).
    static func appending(query: String, to url: String) -> String {
        var base = url
        if let hash = base.firstIndex(of: "#") { base = String(base[..<hash]) }
        return base + (base.contains("?") ? "&" : "?") + query
    }

    /// `base` and `path` joined by exactly one `/`.
    static func join(_ base: String, _ path: String) -> String {
        if path.isEmpty { return base }
        if path.hasPrefix("?") { return base + path }
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmedBase + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// The `name=value` pairs of `parameters`, encoded by `encode` and joined by `&`, as sent and, when a
    /// value reads a secret, as shown (`***` for that value).
    private static func encodedPairs(
        _ parameters: [QueryParameter], in context: EvaluationContext, encode: (String) -> String
    ) throws -> (sent: String, shown: String?) {
        var sent: [String] = []
        var shown: [String] = []
        var differs = false
        for parameter in parameters {
            let name = encode(parameter.name.value)
            let (value, shownValue) = try ExpressionEvaluator.render(parameter.value, in: context)
            let pairs = values(value).map { name + "=" + encode($0) }
            sent += pairs
            if let shownValue {
                differs = true
                // The marker stays readable: `*` may stand unencoded in a query (RFC 3986 sub-delims).
                shown += values(shownValue).map {
                    name + "="
                        + encode($0).replacingOccurrences(of: "%2A%2A%2A", with: ExpressionEvaluator.secretMarker)
                }
            } else {
                shown += pairs
            }
        }
        return (sent.joined(separator: "&"), differs ? shown.joined(separator: "&") : nil)
    }

    /// The texts a query or form value gives: one per item of a list, none for null.
    private static func values(_ value: Value) -> [String] {
        switch value {
        case .list(let items): items.map(\.interpolated)
        case .null: []
        default: [value.interpolated]
        }
    }

    /// A quoted-string parameter's content (`checkHeaderLine` has refused control characters).
    private static func quoteParameter(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// The last text parsed as a URL, with its parse, shared by every copy of one `RequestBuilder` (and so by
/// the runs of a load): a text is parsed again only when it differs from the last one.
private final class LastParsedURL: Sendable {
    private let last = Mutex<(text: String, url: RequestURL)?>(nil)

    /// `RequestURL(parsing: text)`, from the last parse when that was of the same text.
    /// - Throws: `RequestURL.Problem`, as `RequestURL(parsing:)` does.
    func parsing(_ text: String) throws(RequestURL.Problem) -> RequestURL {
        if let known = last.withLock({ $0 }), known.text == text { return known.url }
        let url = try RequestURL(parsing: text)
        last.withLock { $0 = (text, url) }
        return url
    }
}
