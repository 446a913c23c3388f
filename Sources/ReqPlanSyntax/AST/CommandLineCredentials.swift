/// Credentials for the security schemes of bound API descriptions, given on the command line:
/// `--credential SCHEME=VALUE` (an API key or a bearer token) and `--credential SCHEME.FIELD=VALUE` (a field
/// of `credentials:`, grammar.md §6.9: `username`, `client_id`, `client_secret`, …). Each binding of a plan
/// whose description declares the scheme takes them, in place of its own `credentials:` for that scheme.
/// The values are texts as written (the shell expands `$VARIABLE`s); none is read as `${{ }}`.
public struct CommandLineCredentials: Sendable, Hashable {
    /// What one scheme is given.
    public struct Entry: Sendable, Hashable {
        /// The key or token (`SCHEME=VALUE`).
        public var text: String?
        /// The fields (`SCHEME.FIELD=VALUE`), by name.
        public var fields: [String: String] = [:]
    }

    /// By scheme name.
    public private(set) var schemes: [String: Entry] = [:]

    /// None.
    public init() {}

    public var isEmpty: Bool { schemes.isEmpty }

    /// Why an option's value cannot be read, as a sentence that quotes no value.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// The credentials `written` gives, each `SCHEME=VALUE` or `SCHEME.FIELD=VALUE` (`--credential`, in order:
    /// a later one for the same scheme and field wins).
    public init(parsing written: [String]) throws(Problem) {
        for option in written {
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex else {
                throw Problem(description: "--credential is written SCHEME=VALUE or SCHEME.FIELD=VALUE")
            }
            var scheme = String(option[..<equals])
            let value = String(option[option.index(after: equals)...])
            var field: String?
            // A scheme's name may hold dots (OpenAPI's component names do): only a known field's name after
            // the last one is a field.
            if let dot = scheme.lastIndex(of: "."),
                PlanReader.schemeCredentialKeys.contains(String(scheme[scheme.index(after: dot)...]))
            {
                field = String(scheme[scheme.index(after: dot)...])
                scheme = String(scheme[..<dot])
            }
            guard !scheme.isEmpty else {
                throw Problem(description: "--credential names no security scheme before `=`")
            }
            // Every value may go into a header line: a line break would write headers of its own.
            if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw Problem(
                    description:
                        "--credential \(option[..<equals]) has a control character (a line break?) in its value")
            }
            if field == "client_auth", OAuth2Auth.ClientAuthentication(rawValue: value) == nil {
                let words = OAuth2Auth.ClientAuthentication.allCases.map { "`\($0.rawValue)`" }
                throw Problem(
                    description: "--credential \(scheme).client_auth is one of " + words.joined(separator: ", "))
            }
            var entry = schemes[scheme] ?? Entry()
            if let field { entry.fields[field] = value } else { entry.text = value }
            schemes[scheme] = entry
        }
    }

    /// `binding` with the credentials of the schemes in `declared` (its description's), replacing its own for
    /// those schemes; each is located at the binding's name, as written nowhere in the file.
    public func applied(to binding: APIBinding, declared: Set<String>) -> APIBinding {
        guard !schemes.isEmpty else { return binding }
        var result = binding
        result.commandLineSchemes = schemes.keys.sorted()
        let range = binding.name.range
        for (scheme, entry) in schemes.sorted(by: { $0.key < $1.key }) where declared.contains(scheme) {
            func text(_ value: String) -> Template { Template(parts: [.text(value)], range: range) }
            var given = SchemeCredentials(
                scheme: Located(scheme, at: range), text: entry.text.map(text),
                fields: entry.fields.filter { $0.key != "client_auth" }.mapValues(text),
                clientAuthentication: entry.fields["client_auth"].flatMap {
                    OAuth2Auth.ClientAuthentication(rawValue: $0)
                }.map { Located($0, at: range) })
            given.fromCommandLine = true
            result.credentials.removeAll { $0.scheme.value == scheme }
            result.credentials.append(given)
        }
        return result
    }
}
