import ReqPlanSyntax

/// One curl command's arguments, read as curl reads them (combined short flags `-sSL`, values attached
/// `-XPOST` or apart), then turned into one step per URL.
struct CurlCommand {
    private let words: [ShellWord]
    private let start: SourceRange?
    private var method: (String, SourceRange)?
    private var urls: [ShellWord] = []
    private var headers: [Pair] = []
    private var data: [(CurlOption.DataKind, ShellWord)] = []
    private var json: [ShellWord] = []
    private var parts: [MultipartPart] = []
    private var get = false
    private var head = false
    private var follow = false
    private var globoff = false
    private var auth: ImportedAuth?
    private var user: ShellWord?
    private var digest = false
    private var timeout: String?
    private var upload: ShellWord?
    private var comments: [String] = []

    init(words: [ShellWord], at start: SourceRange?) {
        self.words = words
        self.start = start
    }

    mutating func read(into reader: inout CurlReader) {
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            let shown = word.shown
            guard !optionsEnded, shown.hasPrefix("-"), shown.count > 1, !word.quoted || word.text != nil else {
                urls.append(word)
                continue
            }
            if shown == "--" {
                optionsEnded = true
                continue
            }
            if shown == "--next" || shown == "-:" {
                // curl's separator of requests in one command: what came before is one, and the options start
                // again (`-L`, `-k` and the like are per request too in curl).
                finish(&reader)
                self = CurlCommand(words: words, at: word.range)
                continue
            }
            var options: [(CurlOption, String, attached: ShellWord?)] = []
            if shown.hasPrefix("--") {
                let name = String(shown.dropFirst(2))
                guard let (option, takesValue) = CurlOption.long(name) ?? CurlOption.long(Self.withoutNo(name)) else {
                    reader.warn(
                        .importOptionNotConverted, "curl option `\(shown)` is not known to the importer; left out",
                        at: word.range, hint: "if it takes a value, that value is read as a URL")
                    continue
                }
                if takesValue {
                    guard index < words.count else {
                        reader.warn(.importOptionNotConverted, "`\(shown)` has no value; left out", at: word.range)
                        continue
                    }
                    options.append((option, shown, words[index]))
                    index += 1
                } else {
                    options.append((option, Self.withoutNo(name) == name ? shown : "--no-", nil))
                }
            } else {
                // `-sSL`, `-XPOST`, `-H'X: y'`: letters until one that takes a value, which takes the rest.
                var letters = Substring(word.text ?? String(shown))
                letters = letters.dropFirst()
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    guard let (option, takesValue) = CurlOption.short(letter) else {
                        reader.warn(
                            .importOptionNotConverted,
                            "curl option `-\(letter)` is not known to the importer; left out",
                            at: word.range)
                        continue
                    }
                    if takesValue {
                        if !letters.isEmpty {
                            let rest = ShellWord(
                                pieces: Self.rest(of: word, after: shown.count - letters.count), range: word.range)
                            options.append((option, "-\(letter)", rest))
                        } else if index < words.count {
                            options.append((option, "-\(letter)", words[index]))
                            index += 1
                        } else {
                            reader.warn(
                                .importOptionNotConverted, "`-\(letter)` has no value; left out", at: word.range)
                        }
                        break
                    }
                    options.append((option, "-\(letter)", nil))
                }
            }
            for (option, name, value) in options { apply(option, name: name, value: value, at: word.range, &reader) }
        }
        finish(&reader)
    }

    /// `--no-location` → `location`.
    private static func withoutNo(_ name: String) -> String {
        name.hasPrefix("no-") ? String(name.dropFirst(3)) : name
    }

    /// The pieces of `word` after its first `count` characters (the `-X` of `-XPOST`).
    private static func rest(of word: ShellWord, after count: Int) -> [ShellWord.Piece] {
        var skip = count
        var pieces: [ShellWord.Piece] = []
        for piece in word.pieces {
            switch piece {
            case .text(let text):
                if skip >= text.count {
                    skip -= text.count
                } else {
                    pieces.append(.text(String(text.dropFirst(skip))))
                    skip = 0
                }
            case .variable:
                if skip == 0 { pieces.append(piece) } else { skip -= 1 }
            }
        }
        return pieces
    }

    // MARK: - Options

    private mutating func apply(
        _ option: CurlOption, name: String, value: ShellWord?, at range: SourceRange, _ reader: inout CurlReader
    ) {
        let valueRange = value?.range ?? range
        switch option {
        case .request:
            guard let method = value?.text?.uppercased(), !method.isEmpty else {
                reader.warn(
                    .importOptionNotConverted, "the method must be written out, not a variable; left out",
                    at: valueRange)
                return
            }
            self.method = (method, valueRange)
        case .header:
            guard let value else { return }
            header(value, &reader)
        case .data(let kind):
            if let value { data.append((kind, value)) }
        case .json:
            if let value { json.append(value) }
        case .form, .formString:
            if let value { form(value, literal: option == .formString, &reader) }
        case .user:
            user = value
        case .digest:
            digest = name != "--no-"
        case .basicAuth:
            digest = false
        case .unsupportedAuth:
            reader.warn(
                .importSettingNotConverted,
                "`\(name)` authentication has no form in a plan; the request goes without it",
                at: range, hint: "a plan has basic, digest, bearer, OAuth 2.0, API keys and AWS SigV4 (docs/auth.md)")
            comments.append("not converted: curl \(name)")
        case .oauth2Bearer:
            guard let value else { return }
            let token: PlanText
            if let text = value.text {
                token = reader.secret(text, named: "token", at: valueRange)
            } else {
                token = reader.text(value)
            }
            auth = .bearer(token)
        case .cookie:
            guard let value else { return }
            if let text = value.text, !text.contains("=") {
                notConverted(
                    "`\(name) \(text)` reads cookies from a file", run: "reqplan run --cookie-jar \(text)", at: range,
                    &reader)
            } else {
                headers.append(Pair("Cookie", reader.text(value)))
            }
        case .cookieJar:
            notConverted(
                "`\(name)` saves the cookies to a file", run: "reqplan run --cookie-jar FILE", at: range, &reader)
        case .location:
            follow = name != "--no-"
        case .insecure:
            notConverted("`\(name)` turns off certificate checks", run: "reqplan run --insecure", at: range, &reader)
        case .cacert:
            notConverted(
                "`\(name)` names the certificate authorities", run: "reqplan run --cacert FILE", at: range, &reader)
        case .cert, .key:
            notConverted(
                "`\(name)` gives a client certificate", run: "reqplan run --cert FILE --key FILE", at: range, &reader)
        case .proxy:
            notConverted("`\(name)` sends through a proxy", run: "reqplan run --proxy URL", at: range, &reader)
        case .compressed, .output:
            break
        case .get:
            get = true
        case .head:
            head = true
        case .userAgent:
            if let value { headers.append(Pair("User-Agent", reader.text(value))) }
        case .referer:
            guard let value else { return }
            var text = reader.text(value)
            if case .literal(let last)? = text.pieces.last, last.hasSuffix(";auto") {
                text.pieces[text.pieces.count - 1] = .literal(String(last.dropLast(5)))
            }
            if !text.pieces.isEmpty { headers.append(Pair("Referer", text)) }
        case .url:
            if let value { urls.append(value) }
        case .globoff:
            globoff = true
        case .maxTime:
            guard let text = value?.text, let seconds = Double(text), seconds > 0, seconds <= 604_800 else {
                reader.warn(.importOptionNotConverted, "`\(name)` needs a number of seconds; left out", at: valueRange)
                return
            }
            let milliseconds = Int((seconds * 1000).rounded())
            timeout = milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(max(1, milliseconds))ms"
        case .uploadFile:
            upload = value
        case .notConverted:
            reader.warn(.importOptionNotConverted, "curl option `\(name)` has no form in a plan; left out", at: range)
            comments.append("not converted: curl \(name)")
        }
    }

    private mutating func notConverted(
        _ what: String, run: String, at range: SourceRange, _ reader: inout CurlReader
    ) {
        reader.warn(
            .importSettingNotConverted, "\(what), which a plan cannot say", at: range,
            hint: "give it to the run instead: `\(run)`")
        comments.append("not converted: \(what); run it with `\(run)`")
    }

    private mutating func header(_ value: ShellWord, _ reader: inout CurlReader) {
        let text = reader.text(value)
        if let problem = HeaderCheck.problem(in: text) {
            reader.warn(.importOptionNotConverted, "the header `\(value.shown)` \(problem); left out", at: value.range)
            comments.append("not converted: a header that \(problem)")
            return
        }
        guard case .literal(let first)? = text.pieces.first,
            let colon = first.firstIndex(where: { $0 == ":" || $0 == ";" })
        else {
            if value.text?.hasPrefix("@") == true {
                reader.warn(
                    .importOptionNotConverted, "headers read from a file (`-H @file`) are not read; left out",
                    at: value.range)
            } else {
                reader.warn(
                    .importOptionNotConverted, "`\(value.shown)` is not a header (`Name: value`); left out",
                    at: value.range)
            }
            return
        }
        let name = String(first[..<colon]).trimmingCharacters(in: .whitespaces)
        var rest = String(first[first.index(after: colon)...])
        while rest.first == " " || rest.first == "\t" { rest.removeFirst() }
        let valueText = PlanText(pieces: [.literal(rest)] + text.pieces.dropFirst()).trimmed
        if first[colon] == ";" {
            // `-H 'X-Empty;'` sends the header with no value.
            headers.append(Pair(name, PlanText("")))
        } else if valueText.pieces.isEmpty {
            // `-H 'Accept:'` removes a header curl would send: there is none to remove in a plan.
            return
        } else {
            headers.append(Pair(name, valueText))
        }
    }

    private mutating func form(_ value: ShellWord, literal: Bool, _ reader: inout CurlReader) {
        let text = reader.text(value)
        guard case .literal(let first)? = text.pieces.first, let equals = first.firstIndex(of: "=") else {
            reader.warn(.importOptionNotConverted, "`-F \(value.shown)` is not `name=value`; left out", at: value.range)
            return
        }
        let name = String(first[..<equals])
        let content = PlanText(
            pieces: [.literal(String(first[first.index(after: equals)...]))] + text.pieces.dropFirst())
        guard !literal, let raw = content.literal, raw.hasPrefix("@") || raw.hasPrefix("<") else {
            parts.append(MultipartPart(name: name, value: content.trimmedEmpty))
            return
        }
        // `name=@path;type=image/png;filename=x.png`: the file is named through an input, never read here.
        let fields = raw.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let path = fields.first ?? ""
        var part = MultipartPart(name: name)
        for field in fields.dropFirst() {
            if field.hasPrefix("type=") { part.contentType = String(field.dropFirst(5)) }
            if field.hasPrefix("filename=") { part.filename = String(field.dropFirst(9)) }
        }
        let input = reader.plain(path, named: "file_" + name)
        part.file = input
        if raw.hasPrefix("<") {
            reader.warn(
                .importOptionNotConverted,
                "`-F \(name)=<\(path)` sends the file's text as a field; it is written as a file part", at: value.range)
            comments.append("`-F \(name)=<\(path)` sent the file's text as a field: it is a file part here")
        }
        parts.append(part)
    }

    // MARK: - Steps

    private mutating func finish(_ reader: inout CurlReader) {
        guard !urls.isEmpty else {
            reader.warn(.importNothing, "this curl command has no URL; left out", at: start)
            return
        }
        let body = self.body(&reader)
        for word in urls {
            let raw = word.shown
            if !globoff, let glob = raw.firstIndex(where: { "{}[]".contains($0) }),
                !raw.hasPrefix("http://[") && !raw.hasPrefix("https://[") || raw[glob] != "["
            {
                reader.error(
                    .importURLGlob, "curl would expand `\(raw)` into several URLs (`{a,b}`, `[1-3]`)",
                    at: word.range, hint: "write one command per URL, or add `--globoff` if the brackets are part of it"
                )
                continue
            }
            var url = reader.text(word)
            if case .literal(let first)? = url.pieces.first, !first.lowercased().hasPrefix("http://"),
                !first.lowercased().hasPrefix("https://")
            {
                if first.contains("://") {
                    reader.warn(
                        .importOptionNotConverted, "`\(raw)` is not an http or https URL; left out", at: word.range)
                    continue
                }
                url.pieces[0] = .literal("http://" + first)
            }
            var step = ImportedStep(method: "GET", url: url)
            let userInfo = takeUserInfo(&step.url)
            step.headers = headers
            if !json.isEmpty, step.header("accept") == nil {
                // `--json` asks for JSON too, as curl does.
                step.headers.append(Pair("Accept", PlanText("application/json")))
            }
            step.comments = ["curl at \(reader.sourcePath):\(word.range.start.line)"] + comments
            step.followRedirects = follow ? nil : false
            step.timeout = timeout
            step.auth = auth
            if let user, let credentials = user.text {
                step.auth = credentialsAuth(credentials, &reader, at: user.range)
            } else if let user {
                reader.warn(
                    .importOptionNotConverted,
                    "`-u` with a shell variable is not split into user and password; left out", at: user.range)
            } else if let userInfo {
                step.auth = credentialsAuth(userInfo, &reader, at: word.range)
            }
            switch body {
            case .query(let pairs):
                step.query = pairs
            case .body(let body, let contentType):
                step.body = body
                if case .json = body {
                    step.headers.removeAll {
                        $0.name.lowercased() == "content-type" && $0.value.literal == "application/json"
                    }
                }
                if let contentType, step.header("content-type") == nil {
                    step.headers.append(Pair("Content-Type", PlanText(contentType)))
                }
            case nil: break
            }
            step.method = method?.0 ?? (head ? "HEAD" : (upload != nil ? "PUT" : (step.body != nil ? "POST" : "GET")))
            if let upload, upload.text == "-" || upload.text == "." {
                reader.warn(
                    .importOptionNotConverted, "`-T \(upload.shown)` uploads standard input, which a plan cannot read",
                    at: upload.range, hint: "save it to a file: the plan sends a file with `body_file:`")
                step.comments.append("not converted: `-T \(upload.shown)` uploaded standard input")
            } else if let upload {
                let input = reader.plain(upload.text ?? upload.shown, named: "upload_file")
                step.body = .file(input)
                step.comments.append("`-T` uploads a file: its path is the input `\(input.templateText)`")
            }
            guard Self.methods.contains(step.method) else {
                reader.warn(
                    .importOptionNotConverted,
                    "the method `\(step.method)` is not one a plan sends; the request is left out",
                    at: method?.1 ?? word.range,
                    hint: "a plan sends GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS and TRACE")
                continue
            }
            reader.add(step)
        }
    }

    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]

    private func credentialsAuth(_ credentials: String, _ reader: inout CurlReader, at range: SourceRange)
        -> ImportedAuth
    {
        let colon = credentials.firstIndex(of: ":")
        let user = String(credentials[..<(colon ?? credentials.endIndex)])
        let password = colon.map { String(credentials[credentials.index(after: $0)...]) } ?? ""
        if colon == nil {
            reader.warn(
                .importSettingNotConverted, "curl would ask for the password of `\(user)`", at: range,
                hint: "the plan reads it from the secret input `password`")
        }
        return reader.basic(user: user, password: password, digest: digest)
    }

    /// Takes `user:password@` out of a literal URL.
    private func takeUserInfo(_ url: inout PlanText) -> String? {
        guard case .literal(let text)? = url.pieces.first, let scheme = text.range(of: "://") else { return nil }
        let authorityEnd =
            text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") else { return nil }
        let info = String(text[scheme.upperBound..<at]).removingPercentEncodingSafely
        url.pieces[0] = .literal(String(text[..<scheme.upperBound]) + String(text[text.index(after: at)...]))
        return info
    }

    private enum Body {
        case query([Pair])
        case body(ImportedBody, contentType: String?)
    }

    /// The body the `-d` family, `--json` and `-F` give (or the query, with `-G`).
    private func body(_ reader: inout CurlReader) -> Body? {
        if !parts.isEmpty {
            if !data.isEmpty || !json.isEmpty {
                reader.warn(
                    .importOptionNotConverted, "`-F` and `-d` together: curl refuses that; the `-d` data is left out",
                    at: start)
            }
            return .body(.multipart(parts), contentType: nil)
        }
        var pieces: [PlanText.Piece] = []
        let isJSON = !json.isEmpty
        for (index, word) in (isJSON ? json.map { (CurlOption.DataKind.binary, $0) } : data).enumerated() {
            let kind = word.0
            if index > 0 && !isJSON { pieces.append(.literal("&")) }
            if kind != .raw, let text = word.1.text, text.hasPrefix("@") {
                let input = reader.plain(String(text.dropFirst()), named: "data_file")
                reader.warn(
                    .importOptionNotConverted, "`\(text)` sends a file's content, which the importer does not read",
                    at: word.1.range,
                    hint: "the plan sends the file named by the input `\(input.templateText)` as the body")
                return .body(.file(input), contentType: nil)
            }
            var text = reader.text(word.1)
            if kind == .urlencode { text = Self.urlencoded(text) }
            pieces += text.pieces
        }
        guard !pieces.isEmpty || !data.isEmpty || !json.isEmpty else { return nil }
        let all = PlanText(pieces: pieces)
        if get {
            return .query(FormFields.pairs(of: all))
        }
        let declared = headers.last { $0.name.lowercased() == "content-type" }?.value.literal?.lowercased()
        let type = declared ?? (isJSON ? "application/json" : "application/x-www-form-urlencoded")
        if type.hasPrefix("application/json") || type.contains("+json"), let value = JSONBody.value(of: all) {
            return .body(.json(value), contentType: nil)
        }
        if type.hasPrefix("application/x-www-form-urlencoded"), FormFields.isForm(all) {
            return .body(.form(FormFields.pairs(of: all)), contentType: nil)
        }
        return .body(.raw(all), contentType: declared == nil ? type : nil)
    }

    /// `--data-urlencode` content: `name=text` keeps `name=` and encodes the text; `=text` and `text` encode it.
    private static func urlencoded(_ text: PlanText) -> PlanText {
        guard case .literal(let first)? = text.pieces.first else { return text }
        var pieces = text.pieces
        if let equals = first.firstIndex(of: "=") {
            let name = String(first[..<equals])
            pieces[0] = .literal(String(first[first.index(after: equals)...]))
            let encoded = pieces.map { piece -> PlanText.Piece in
                if case .literal(let part) = piece { return .literal(FormFields.encode(part)) }
                return piece
            }
            return PlanText(pieces: (name.isEmpty ? [] : [.literal(name + "=")]) + encoded)
        }
        return PlanText(
            pieces: pieces.map { piece in
                if case .literal(let part) = piece { return .literal(FormFields.encode(part)) }
                return piece
            })
    }
}

extension PlanText {
    /// The text without leading and trailing blanks in its literal ends.
    var trimmed: PlanText {
        var pieces = self.pieces
        if case .literal(let first)? = pieces.first {
            pieces[0] = .literal(String(first.drop { $0 == " " || $0 == "\t" }))
        }
        if case .literal(let last)? = pieces.last {
            var text = last
            while text.last == " " || text.last == "\t" { text.removeLast() }
            pieces[pieces.count - 1] = .literal(text)
        }
        return PlanText(pieces: pieces.filter { $0 != .literal("") })
    }

    /// The text with empty literal pieces dropped.
    var trimmedEmpty: PlanText {
        PlanText(pieces: pieces.filter { $0 != .literal("") })
    }
}

extension String {
    /// The text percent-decoded, or as it is when it is not valid percent-encoding.
    var removingPercentEncodingSafely: String {
        FormFields.decode(self, plusIsSpace: false)
    }
}
