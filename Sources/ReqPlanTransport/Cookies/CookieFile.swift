#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import ReqPlanSyntax

/// The Netscape cookie-file format curl (`-b`, `-c`) and Hurl (`--cookie-jar`) read and write
/// (https://curl.se/docs/http-cookies.html): `--cookie-jar FILE` loads a run's cookies from it
/// and saves them to it.
///
/// One cookie per line, seven fields separated by tabs: domain, whether subdomains match
/// (`TRUE`/`FALSE`), path, secure (`TRUE`/`FALSE`), expiry (seconds since 1970; `0` for a
/// session cookie), name, value. A domain cookie's domain starts with a dot. `#HttpOnly_` before
/// the domain marks an HttpOnly cookie; other lines starting with `#`, and blank lines, are
/// comments. As in curl, a line of six fields is a cookie with an empty value, and expired
/// cookies are dropped when read.
public enum CookieFile {
    /// Why a cookie file cannot be read.
    public struct ReadError: Error, Sendable {
        /// The reason, as a sentence.
        public var message: String
        /// The line at fault (1-based), for a malformed line.
        public var line: Int?
        /// The field at fault's first column (1-based), for a malformed line.
        public var column: Int?
        /// The file's text, for the excerpt of a malformed line.
        public var source: SourceFile? = nil
        /// How to fix it, when the line is not the matter (a file too large).
        public var hint: String? = nil
        /// The diagnostic code, when it is not that of a run setting (a control character: RP0517).
        public var code: DiagnosticCode? = nil
    }

    /// The first line of a file reqplan writes, as curl writes it.
    static let header = "# Netscape HTTP Cookie File"

    /// The cookies in `text` that have not expired at `now`.
    /// - Throws: a `ReadError` naming the first malformed line.
    public static func parse(_ text: String, now: Int64 = Int64(Date().timeIntervalSince1970)) throws(ReadError)
        -> [Cookie]
    {
        var cookies: [Cookie] = []
        // "\r\n" is one Character in Swift: files written on Windows split on it too.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            var line = rawLine
            var httpOnly = false
            if line.hasPrefix("#HttpOnly_") {
                httpOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                continue
            }
            let lineNumber = index + 1
            let prefixLength = httpOnly ? "#HttpOnly_".count : 0
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count == 6 { fields.append("") }
            guard fields.count == 7 else {
                throw ReadError(
                    message: "expected 7 fields separated by tabs (domain, subdomains, path, secure, "
                        + "expiry, name, value), found \(fields.count)", line: lineNumber, column: 1)
            }
            /// The 1-based column where field `number` starts.
            func column(_ number: Int) -> Int {
                prefixLength + fields[..<number].reduce(0) { $0 + $1.count + 1 } + 1
            }
            func flag(_ number: Int, _ what: String) throws(ReadError) -> Bool {
                switch fields[number].uppercased() {
                case "TRUE": return true
                case "FALSE": return false
                default:
                    throw ReadError(
                        message: "the \(what) field must be TRUE or FALSE, not `\(fields[number])`",
                        line: lineNumber, column: column(number))
                }
            }
            var domain = fields[0]
            if domain.first == "." { domain = domain.dropFirst() }
            guard !domain.isEmpty else {
                throw ReadError(message: "the domain field is empty", line: lineNumber, column: column(0))
            }
            let subdomains = try flag(1, "subdomains")
            guard fields[2].first == "/" else {
                throw ReadError(
                    message: "the path field must start with `/`, not `\(fields[2])`",
                    line: lineNumber, column: column(2))
            }
            let secure = try flag(3, "secure")
            guard let expires = Int64(fields[4]), expires >= 0 else {
                throw ReadError(
                    message: "the expiry field must be seconds since 1970 (0 for a session cookie), "
                        + "not `\(fields[4])`", line: lineNumber, column: column(4))
            }
            guard !fields[5].isEmpty else {
                throw ReadError(message: "the name field is empty", line: lineNumber, column: column(5))
            }
            // The name and value go into `Cookie` header lines.
            for (number, what) in [(5, "the name of a cookie"), (6, "the value of cookie `\(fields[5])`")] {
                guard let scalar = HeaderLine.forbiddenCharacter(in: fields[number]) else { continue }
                throw ReadError(
                    message: HeaderLine.problem(HeaderLine.escaped(what), scalar), line: lineNumber,
                    column: column(number), hint: HeaderLine.hint, code: .controlCharacterInHeader)
            }
            if expires != 0 && expires <= now { continue }
            cookies.append(
                Cookie(
                    name: String(fields[5]), value: String(fields[6]), domain: domain.lowercased(),
                    hostOnly: !subdomains, path: String(fields[2]), secure: secure, httpOnly: httpOnly,
                    expires: expires == 0 ? nil : expires))
        }
        return cookies
    }

    /// The file's text for `cookies`: curl's header, then a line per cookie (session cookies
    /// with expiry 0, as curl writes them).
    public static func render(_ cookies: [Cookie]) -> String {
        var text =
            header + "\n# https://curl.se/docs/http-cookies.html\n# Written by reqplan: edit at your own risk.\n\n"
        for cookie in cookies {
            let fields = [
                (cookie.httpOnly ? "#HttpOnly_" : "") + (cookie.hostOnly ? "" : ".") + cookie.domain,
                cookie.hostOnly ? "FALSE" : "TRUE",
                cookie.path,
                cookie.secure ? "TRUE" : "FALSE",
                String(cookie.expires ?? 0),
                cookie.name,
                cookie.value,
            ]
            text += fields.joined(separator: "\t") + "\n"
        }
        return text
    }

    /// Loads the cookies of the file at `path` into `jar`; a file that does not exist loads nothing.
    /// - Parameter limits: the limits every file reqplan reads is held to: a file larger than
    ///   `maxFileSize` is refused without being read whole (a cookie file is no place for a YAML alias bomb
    ///   or a runaway log either).
    /// - Throws: a `ReadError` when the file cannot be read, is too large or has a malformed line.
    public static func load(_ path: String, into jar: CookieJar, limits: ParseLimits = ParseLimits()) throws(ReadError)
    {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return }
        guard !isFolder.boolValue else { throw ReadError(message: "it is a folder, not a file") }
        let text: String
        switch FileReader.text(atPath: path, origin: .user, limit: limits.maxFileSize, what: "the cookie file") {
        case .failure(let failure):
            throw ReadError(
                message: failure.text, line: nil, column: nil,
                hint: failure.isTooLarge ? limits.tooLargeHint(splitting: "the cookie file") : nil)
        case .success(let read):
            text = read
        }
        do {
            for cookie in try parse(text) { jar.insert(cookie) }
        } catch {
            var failure = error
            failure.source = SourceFile(path: path, text: text)
            throw failure
        }
    }

    /// Writes the jar's cookies to `path`, readable by its owner only (the values are
    /// credentials), replacing the file at once (a reader never sees half of it, `OutputFile`).
    /// - Throws: an `OutputFile.WriteError` naming the reason when the file cannot be written.
    public static func save(_ jar: CookieJar, to path: String) throws(OutputFile.WriteError) {
        try OutputFile.write(render(jar.cookies), toPath: path, permissions: 0o600, creatingFolders: false)
    }
}
