/// One `Set-Cookie` header value, parsed by RFC 6265 §5.2 (the algorithm user agents follow,
/// not the stricter grammar servers should write).
///
/// Why not Foundation's `HTTPCookie`: on Linux it lives in FoundationNetworking, which links
/// libcurl into the binary (the `--static-swift-stdlib` build in README then fails to link, and
/// the binary needs libcurl on the machine it runs on), and swift-corelibs-foundation's parser
/// is wrong on points that matter here: it ignores `Max-Age` (so `Max-Age=0` deletes nothing,
/// and `Max-Age` does not win over `Expires`), keeps a `Domain` that does not domain-match the
/// request host or is a bare public suffix (`Domain=com`), uses `/` instead of the directory of
/// the request path as the default path, and reads the two-digit year `94` as the year 94.
/// AsyncHTTPClient's `HTTPClient.Cookie` keeps the `Expires` time internal and strips quotes
/// from values. `CookieTests` pins each of these points.
struct SetCookie: Equatable {
    var name: String
    var value: String
    /// The `Domain` attribute, lower case, without a leading dot; nil when absent or empty.
    var domain: String?
    /// The `Path` attribute when it starts with `/`; nil means the default path.
    var path: String?
    /// `Expires`, in seconds since 1970, when it parsed.
    var expires: Int64?
    /// `Max-Age`, in seconds, when it parsed (it wins over `Expires`).
    var maxAge: Int64?
    var secure = false
    var httpOnly = false

    /// Nil when the header sets no cookie: a control character anywhere, no `=` in the first
    /// part, or an empty name.
    init?(_ header: String) {
        // RFC 6265bis §5.6 step 1: a control character (but a tab) drops the whole header.
        guard !header.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        name = Self.trimmed(pair[..<equals])
        value = Self.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return nil }
        // Each attribute: the last of a kind wins (§5.3 step 3 uses "the last attribute").
        for part in parts {
            let attributeName: String
            let attributeValue: String
            if let equals = part.firstIndex(of: "=") {
                attributeName = Self.trimmed(part[..<equals]).lowercased()
                attributeValue = Self.trimmed(part[part.index(after: equals)...])
            } else {
                attributeName = Self.trimmed(part).lowercased()
                attributeValue = ""
            }
            switch attributeName {
            case "expires":
                if let time = CookieDate.parse(attributeValue) { expires = time }
            case "max-age":
                if let seconds = Self.maxAge(attributeValue) { maxAge = seconds }
            case "domain":
                // An empty Domain is ignored (§5.2.3 says the behaviour is undefined; browsers ignore it).
                var domain = Substring(attributeValue)
                if domain.first == "." { domain = domain.dropFirst() }
                self.domain = domain.isEmpty ? nil : domain.lowercased()
            case "path":
                path = attributeValue.first == "/" ? attributeValue : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            default:
                continue  // SameSite, Priority, Partitioned…: nothing for a client outside a browser
            }
        }
    }

    /// `Max-Age`: an optional `-` and digits (§5.2.2), else nil; huge values are clamped.
    private static func maxAge(_ text: String) -> Int64? {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let magnitude = Int64(digits) ?? Int64.max / 2
        return negative ? -magnitude : min(magnitude, Int64.max / 2)
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// The cookie-date algorithm of RFC 6265 §5.1.1, which reads every date format servers send
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`…).
enum CookieDate {
    /// Seconds since 1970 (UTC), or nil when `text` is not a cookie date.
    static func parse(_ text: String) -> Int64? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let parsed = leadingNumber(token, digits: 1...2) {
                day = parsed
            } else if month == nil, let parsed = parseMonth(token) {
                month = parsed
            } else if year == nil, let parsed = leadingNumber(token, digits: 2...4) {
                year = parsed
            }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59,
            day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT, then anything not a digit.
    private static func parseTime(_ token: Substring.UTF8View) -> (Int, Int, Int)? {
        var fields: [Int] = []
        var rest = token[...]
        for index in 0..<3 {
            let digits = rest.prefix(while: isDigit)
            guard (1...2).contains(digits.count) else { return nil }
            fields.append(digits.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            rest = rest.dropFirst(digits.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            } else if let next = rest.first, isDigit(next) {
                return nil
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    /// `digits` digits, then anything not a digit.
    private static func leadingNumber(_ token: Substring.UTF8View, digits range: ClosedRange<Int>) -> Int? {
        let digits = token.prefix(while: isDigit)
        guard range.contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func parseMonth(_ token: Substring.UTF8View) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return months.firstIndex { $0.utf8.elementsEqual(prefix) }.map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's days_from_civil).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
