import Foundation
import ReqPlanSyntax

/// One entry of a HAR log: the step its request becomes, and what its response gave, for the data-flow finder.
struct HAREntry: Sendable {
    /// The request as a step, literal values only.
    var step: ImportedStep
    /// The response's status (0 when none came).
    var status: Int
    /// The response's headers, in order.
    var responseHeaders: [(name: String, value: String)]
    /// The response's body as text, when it may be JSON: parsed by the data-flow finder one entry at a time,
    /// so a long session's bodies are never all held parsed at once.
    var responseText: String?
    /// The response's body, when it is JSON (parsed now).
    var responseBody: Value? { responseText.flatMap { try? Value.parseJSON($0) } }
    /// Where the entry is in the file, for warnings.
    var range: SourceRange?
}

/// Reads a HAR 1.2 log (`log.entries`, each `request` and `response`) into entries, in the file's order.
///
/// Left out: static assets (images, fonts, style sheets, scripts, media: by the response's MIME type or
/// the URL's extension) unless `--include-static`; URLs that are not http or https (`data:`, `blob:`,
/// `ws:`); methods a plan does not send (`CONNECT`); the hops of a redirect the previous entry's request
/// follows; and the repeated attempts reqplan's own HAR records for a retried step (`_step`, `_attempt`).
/// Headers a client adds on its own are not copied: `Host`, `Content-Length`, `Connection`,
/// `Accept-Encoding`, HTTP/2 pseudo-headers, a browser's `Sec-Fetch-*`, `Sec-CH-*` and `Priority`.
struct HARReader {
    private let source: SourceFile
    private let options: ImportOptions
    private(set) var diagnostics: DiagnosticCollector
    private(set) var entries: [HAREntry] = []
    private var leftOut: [String: Int] = [:]
    /// The plan's inputs, with those this file adds (the files its multipart parts send).
    private(set) var inputs: InputTable

    /// A reader of `source`, adding to the inputs of the files read before it.
    init(_ source: SourceFile, options: ImportOptions, inputs: InputTable) {
        self.source = source
        self.options = options
        self.inputs = inputs
        diagnostics = DiagnosticCollector(file: source.path)
    }

    mutating func read() {
        let root: Value
        do {
            root = try Value.parseJSON(source.text)
        } catch {
            diagnostics.error(
                .importSourceMalformed, "`\(source.path)` is not JSON: \(error.message)",
                at: SourceRange(at: Self.location(ofByte: error.offset, in: source.text)),
                hint: "a HAR file is the JSON a browser's network panel saves (Save all as HAR)")
            return
        }
        guard let list = Self.entries(of: root) else {
            diagnostics.error(
                .importSourceMalformed, "`\(source.path)` is not a HAR log: it has no `log.entries` list",
                at: SourceRange(at: SourceLocation(line: 1, column: 1)),
                hint: "a HAR log, a list of its entries, one entry or one request are read")
            return
        }
        var searchFrom = source.start
        var lastAttempt: (step: String, item: Value?)?
        var previous: (status: Int, location: String?)?
        for (number, entry) in list.enumerated() {
            guard let request = entry["request"], let method = request["method"]?.stringValue,
                let url = request["url"]?.stringValue
            else {
                diagnostics.warning(
                    .importOptionNotConverted,
                    "entry \(number) of the HAR has no request method and URL; left out",
                    at: nil)
                continue
            }
            let range = locate(url, from: &searchFrom)
            let response = entry["response"]
            let status = response?["status"]?.intValue ?? 0
            let responseHeaders = Self.pairs(response?["headers"])
            defer {
                previous = (status, responseHeaders.last { $0.name.lowercased() == "location" }?.value)
            }
            // reqplan's own HAR: a retried step's attempts after the first.
            if let step = entry["_step"]?.stringValue {
                let item = entry["_item"]
                if let last = lastAttempt, last.step == step, last.item == item, (entry["_attempt"]?.intValue ?? 1) > 1
                {
                    continue
                }
                lastAttempt = (step, item)
            }
            let lower = url.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                leftOut["not over http or https", default: 0] += 1
                continue
            }
            guard CurlCommand.methods.contains(method.uppercased()) else {
                diagnostics.warning(
                    .importOptionNotConverted,
                    "the method `\(method)` is not one a plan sends; the request is left out",
                    at: range)
                continue
            }
            if let previous, (300..<400).contains(previous.status), let location = previous.location,
                url == location || url.hasSuffix(location),
                method.uppercased() == "GET" || method.uppercased() == "HEAD"
            {
                leftOut["a redirect the previous request follows", default: 0] += 1
                continue
            }
            let mimeType = response?["content"]?["mimeType"]?.stringValue ?? ""
            if !options.includeStatic && Self.isStatic(url: url, mimeType: mimeType) {
                leftOut[Self.staticAssets, default: 0] += 1
                continue
            }
            var step = ImportedStep(method: method.uppercased(), url: PlanText(""))
            step.name = entry["_step"]?.stringValue
            let parts = URLParts(url)
            step.url = PlanText(parts.origin + parts.path)
            if let query = parts.query, !query.isEmpty { step.query = FormFields.pairs(of: PlanText(query)) }
            step.headers = Self.pairs(request["headers"]).filter { !Self.isClientHeader($0.name) }.map {
                Pair($0.name, PlanText($0.value))
            }
            step.comments = ["\(method.uppercased()) \(url.prefix(200)) (entry \(number) of `\(source.path)`)"]
            body(of: request["postData"], into: &step, at: range)
            entries.append(
                HAREntry(
                    step: step, status: status, responseHeaders: responseHeaders,
                    responseText: Self.jsonText(response?["content"]), range: range))
        }
    }

    /// The entries of `root`: a HAR log's `log.entries`, or what tools copy of one (a browser's "Copy as HAR"
    /// of one request, Insomnia's and haralyzer's inputs): a list of entries, one entry (`request`,
    /// `response`), or one request (`method`, `url`) with no response. Nil when `root` is none of them.
    static func entries(of root: Value) -> [Value]? {
        if case .list(let list)? = root["log"]?["entries"] { return list }
        if root["log"] != nil { return nil }
        if case .list(let list) = root, list.allSatisfy({ $0["request"] != nil }) { return list }
        if root["request"] != nil { return [root] }
        if root["method"]?.stringValue != nil, root["url"]?.stringValue != nil {
            return [.object([.init("request", root)])]
        }
        return nil
    }

    private static let staticAssets = "static assets (--include-static keeps them)"

    /// How many requests for static assets were left out.
    var staticAssetsLeftOut: Int { leftOut[Self.staticAssets] ?? 0 }

    /// What was left out, for the plan's first comments: `3 entries left out: static assets …`.
    var notes: [String] {
        leftOut.sorted(by: { $0.key < $1.key }).map { reason, count in
            "\(count) entr\(count == 1 ? "y" : "ies") of `\(source.path)` left out: \(reason)"
        }
    }

    /// The request's body as a step's: JSON as `json:`, a urlencoded form as `form:`, multipart `params` as
    /// `multipart:` (files through inputs), other text as `body:`; bytes (`encoding: base64`) are not converted.
    private mutating func body(of postData: Value?, into step: inout ImportedStep, at range: SourceRange?) {
        guard let postData else { return }
        let mimeType = (postData["mimeType"]?.stringValue ?? step.header("content-type")?.literal ?? "").lowercased()
        let text = postData["text"]?.stringValue ?? ""
        if postData["_encoding"]?.stringValue != nil || postData["encoding"]?.stringValue != nil {
            diagnostics.warning(
                .importSettingNotConverted,
                "the body of `\(step.method)` is bytes, which a plan cannot write; left out",
                at: range, hint: "save the bytes to a file and send it with `body_file:`")
            step.comments.append("not converted: a binary body")
            return
        }
        // `params` without `text` (HAR 1.2 allows either): multipart when the MIME type says so or a part is
        // a file, else a form; Insomnia's and some browsers' HARs give only `params`.
        let params: [Value] = if case .list(let list)? = postData["params"] { list } else { [] }
        let hasFile = params.contains { $0["fileName"]?.stringValue != nil }
        if !params.isEmpty, text.isEmpty, !mimeType.hasPrefix("multipart/form-data"), !hasFile {
            step.body = .form(
                params.compactMap { param in
                    param["name"]?.stringValue.map { Pair($0, PlanText(param["value"]?.stringValue ?? "")) }
                })
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
            return
        }
        if mimeType.hasPrefix("multipart/form-data") || (hasFile && text.isEmpty), !params.isEmpty {
            step.body = .multipart(
                params.compactMap { param in
                    guard let name = param["name"]?.stringValue else { return nil }
                    if let file = param["fileName"]?.stringValue {
                        // The file is named by an input whose default is the path the HAR gives (as curl's
                        // `-F name=@file`): the run checks where it may read, the importer reads nothing.
                        let input = inputs.input(for: file, named: "file", secret: false, description: nil)
                        return MultipartPart(
                            name: name, file: .reference(.input(input)),
                            contentType: param["contentType"]?.stringValue,
                            filename: String(file.split(separator: "/").last ?? Substring(file)))
                    }
                    return MultipartPart(name: name, value: PlanText(param["value"]?.stringValue ?? ""))
                })
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
            return
        }
        guard !text.isEmpty else { return }
        if mimeType.contains("json"), let value = JSONBody.value(of: PlanText(text)) {
            step.body = .json(value)
            if mimeType.hasPrefix("application/json") {
                step.headers.removeAll { $0.name.lowercased() == "content-type" }
            }
        } else if mimeType.hasPrefix("application/x-www-form-urlencoded"), FormFields.isForm(PlanText(text)) {
            step.body = .form(FormFields.pairs(of: PlanText(text)))
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
        } else {
            step.body = .raw(PlanText(text))
            if step.header("content-type") == nil, !mimeType.isEmpty {
                step.headers.append(Pair("Content-Type", PlanText(mimeType)))
            }
        }
    }

    // MARK: - Reading values

    private static func pairs(_ value: Value?) -> [(name: String, value: String)] {
        guard case .list(let items)? = value else { return [] }
        return items.compactMap { item in
            guard let name = item["name"]?.stringValue else { return nil }
            return (name, item["value"]?.stringValue ?? "")
        }
    }

    /// The response body's text, when it may be JSON (by its MIME type, or text that starts as a JSON object or
    /// list).
    private static func jsonText(_ content: Value?) -> String? {
        guard let content, var text = content["text"]?.stringValue, !text.isEmpty else { return nil }
        if content["encoding"]?.stringValue == "base64" {
            guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8) else {
                return nil
            }
            text = decoded
        }
        let mimeType = content["mimeType"]?.stringValue?.lowercased() ?? ""
        guard mimeType.contains("json") || text.hasPrefix("{") || text.hasPrefix("[") else { return nil }
        return text
    }

    private static let clientHeaders: Set<String> = [
        "host", "content-length", "connection", "accept-encoding", "priority", "keep-alive", "transfer-encoding",
        "te", "upgrade", "proxy-connection",
    ]

    private static func isClientHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix(":") || clientHeaders.contains(lower) || lower.hasPrefix("sec-fetch-")
            || lower.hasPrefix("sec-ch-")
    }

    private static let staticExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "avif", "bmp", "woff", "woff2", "ttf", "otf", "eot",
        "css", "js", "mjs", "map", "mp4", "webm", "mp3", "ogg", "wav",
    ]

    static func isStatic(url: String, mimeType: String) -> Bool {
        let type = mimeType.lowercased()
        if type.hasPrefix("image/") || type.hasPrefix("font/") || type.hasPrefix("video/") || type.hasPrefix("audio/")
            || type.hasPrefix("text/css") || type.contains("javascript") || type.contains("font-")
        {
            return true
        }
        let path = URLParts(url).path
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return staticExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    // MARK: - Places

    /// Where the entry's URL is written, searching on from the previous entry's.
    private func locate(_ url: String, from start: inout SourceFile.Mark) -> SourceRange? {
        // Searched on from the previous entry's URL (linear in the file, minified or not); past a few megabytes
        // the places are not worth the time.
        guard source.text.utf8.count <= 4 * 1024 * 1024 else { return nil }
        let needle = Value.string(url).jsonText()
        guard let found = source.find(needle, after: start) else { return nil }
        start = source.mark(after: found)
        return SourceRange(start: found.location, length: needle.unicodeScalars.count)
    }

    /// The line and column of the byte at `offset` of `text` (columns in Unicode scalars).
    static func location(ofByte offset: Int, in text: String) -> SourceLocation {
        var line = 1
        var column = 1
        var bytes = 0
        for scalar in text.unicodeScalars {
            if bytes >= offset { break }
            bytes += String(scalar).utf8.count
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return SourceLocation(line: line, column: column)
    }
}

extension Value {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var intValue: Int? {
        if case .int(let number) = self { return number }
        return nil
    }
}
