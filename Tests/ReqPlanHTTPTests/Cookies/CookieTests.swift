import Foundation
import Synchronization
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// `Set-Cookie` parsing (RFC 6265 §5.2), the jar's storage and retrieval rules (§5.3–5.4) and
/// the Netscape cookie file, without a network. Where swift-corelibs-foundation's `HTTPCookie`
/// is wrong (see `SetCookie`), a test here pins the right behaviour.
@Suite struct CookieTests {
    /// 2026-01-01T00:00:00Z
    static let now: Int64 = 1_767_225_600

    private func jar() -> CookieJar { CookieJar(clock: { Self.now }) }

    private func url(_ text: String) throws -> RequestURL { try RequestURL(parsing: text) }

    @discardableResult
    private func set(_ header: String, from address: String, in jar: CookieJar) throws -> Bool {
        let parsed = try #require(SetCookie(header), "\(header)")
        return jar.store(parsed, from: try url(address))
    }

    // MARK: Parsing

    @Test func setCookieKeepsNameValueAndAttributes() throws {
        let cookie = try #require(
            SetCookie(#" sid = "a b=c" ; Path=/app; Domain=.Example.COM; Secure; HttpOnly; SameSite=Lax"#))
        #expect(cookie.name == "sid")
        #expect(cookie.value == #""a b=c""#, "quotes are part of the value (RFC 6265 §4.1.1)")
        #expect(cookie.path == "/app")
        #expect(cookie.domain == "example.com")
        #expect(cookie.secure && cookie.httpOnly)
    }

    @Test(arguments: ["novalue", "=value", "a=1\u{1}", "a=\n1", ""])
    func setCookieWithoutANameOrWithControlCharactersSetsNothing(header: String) {
        #expect(SetCookie(header) == nil)
    }

    @Test func theLastAttributeOfAKindWinsAndBadOnesAreIgnored() throws {
        let cookie = try #require(SetCookie("a=1; Path=/x; Path=/y; Max-Age=abc; Domain=; Path=relative"))
        #expect(cookie.path == nil, "a path not starting with / means the default path")
        #expect(cookie.maxAge == nil && cookie.domain == nil)
        #expect(try #require(SetCookie("a=1; Max-Age=5; Max-Age=-3")).maxAge == -3)
    }

    @Test(
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),  // HTTPCookie on Linux reads 94 as the year 94
            ("Sun Nov  6 08:49:37 1994", 784_111_777),
            ("06 nov 1994 08:49:37", 784_111_777),
            ("Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894),
            ("Thu, 01 Jan 70 00:00:00 GMT", 0),
            ("Mon, 31 Dec 49 23:59:59 GMT", 2_524_607_999),  // a wrong weekday is ignored; 49 is 2049
        ] as [(String, Int64)])
    func cookieDatesReadEveryFormatServersSend(text: String, expected: Int64) {
        #expect(CookieDate.parse(text) == expected, "\(text)")
    }

    @Test(arguments: [
        "Mon, 30 Feb 2026 00:00:00 GMT", "Mon, 01 Jan 1600 00:00:00 GMT", "01 Jan 2026", "tomorrow",
        "Mon, 01 Foo 2026 00:00:00 GMT", "Mon, 01 Jan 2026 24:00:00 GMT",
    ])
    func impossibleCookieDatesAreIgnored(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    // MARK: Storage and retrieval

    @Test func aHostOnlyCookieGoesBackToItsHostOnly() throws {
        let jar = jar()
        try set("a=1", from: "http://www.example.com/", in: jar)
        #expect(jar.header(for: try url("http://www.example.com/x")) == "a=1")
        #expect(jar.header(for: try url("http://sub.www.example.com/")) == nil)
        #expect(jar.header(for: try url("http://example.com/")) == nil)
        #expect(jar.cookies.first?.hostOnly == true)
    }

    @Test func aDomainCookieGoesToTheDomainAndItsSubdomains() throws {
        let jar = jar()
        try set("a=1; Domain=example.com", from: "http://www.example.com/", in: jar)
        #expect(jar.header(for: try url("http://example.com/")) == "a=1")
        #expect(jar.header(for: try url("http://deep.sub.example.com/")) == "a=1")
        #expect(jar.header(for: try url("http://notexample.com/")) == nil)
    }

    /// Foundation's HTTPCookie on Linux keeps both of these.
    @Test(arguments: [
        ("a=1; Domain=other.com", "http://www.example.com/"),
        ("a=1; Domain=com", "http://www.example.com/"),
        ("a=1; Domain=www.example.com", "http://example.com/"),
        ("a=1; Domain=0.0.1", "http://127.0.0.1/"),
    ])
    func aDomainThatDoesNotMatchTheHostOrIsAPublicSuffixIsRefused(header: String, from: String) throws {
        let jar = jar()
        #expect(try !set(header, from: from, in: jar))
        #expect(jar.isEmpty)
    }

    @Test func aSingleLabelDomainEqualToTheHostMakesAHostOnlyCookie() throws {
        let jar = jar()
        try set("a=1; Domain=localhost", from: "http://localhost:8080/", in: jar)
        #expect(jar.cookies.first?.hostOnly == true)
        #expect(jar.header(for: try url("http://localhost:9/")) == "a=1")
    }

    /// Foundation's HTTPCookie on Linux uses `/` for every cookie without a Path.
    @Test func theDefaultPathIsTheDirectoryOfTheRequestPath() throws {
        let jar = jar()
        try set("a=1", from: "http://h.example/app/login?next=/", in: jar)
        #expect(jar.cookies.first?.path == "/app")
        #expect(jar.header(for: try url("http://h.example/app")) == "a=1")
        #expect(jar.header(for: try url("http://h.example/app/x")) == "a=1")
        #expect(jar.header(for: try url("http://h.example/application")) == nil)
        #expect(jar.header(for: try url("http://h.example/")) == nil)
        #expect(CookieJar.defaultPath("/login") == "/")
        #expect(CookieJar.defaultPath("") == "/")
    }

    @Test func pathsMatchWholeSegments() {
        #expect(CookieJar.pathMatches("/a/b", "/a"))
        #expect(CookieJar.pathMatches("/a/", "/a/"))
        #expect(CookieJar.pathMatches("/a/b", "/a/"))
        #expect(!CookieJar.pathMatches("/ab", "/a"))
        #expect(!CookieJar.pathMatches("/", "/a"))
    }

    /// Foundation's HTTPCookie on Linux ignores Max-Age.
    @Test func maxAgeWinsOverExpiresAndZeroDeletes() throws {
        let jar = jar()
        try set("a=1; Max-Age=60; Expires=Thu, 01 Jan 2015 00:00:00 GMT", from: "http://h.example/", in: jar)
        #expect(jar.cookies.first?.expires == Self.now + 60)
        try set("b=2; Expires=Thu, 01 Jan 2099 00:00:00 GMT; Max-Age=0", from: "http://h.example/", in: jar)
        #expect(jar.cookies.map(\.name) == ["a"])
        try set("a=gone; Max-Age=0", from: "http://h.example/", in: jar)
        #expect(jar.isEmpty)
    }

    @Test func anExpiryInThePastDeletesAndExpiredCookiesAreNotSent() throws {
        let clock = ClockBox(Self.now)
        let jar = CookieJar(clock: { clock.value })
        try set("a=1; Max-Age=10", from: "http://h.example/", in: jar)
        try set("b=2", from: "http://h.example/", in: jar)
        #expect(jar.header(for: try url("http://h.example/")) == "a=1; b=2")
        clock.value = Self.now + 11
        #expect(jar.header(for: try url("http://h.example/")) == "b=2")
        try set("b=2; Expires=Thu, 01 Jan 2015 00:00:00 GMT", from: "http://h.example/", in: jar)
        #expect(jar.header(for: try url("http://h.example/")) == nil)
    }

    @Test func secureCookiesGoOverHTTPSAndToLoopbackOnly() throws {
        let jar = jar()
        #expect(try !set("s=1; Secure", from: "http://www.example.com/", in: jar), "set over plain HTTP: refused")
        try set("s=1; Secure; Domain=example.com", from: "https://www.example.com/", in: jar)
        #expect(jar.header(for: try url("https://www.example.com/")) == "s=1")
        #expect(jar.header(for: try url("http://www.example.com/")) == nil)
        #expect(try !set("s=plain", from: "http://www.example.com/", in: jar), "plain HTTP cannot overwrite it")
        #expect(jar.header(for: try url("https://www.example.com/")) == "s=1")

        try set("l=1; Secure", from: "http://127.0.0.1:8080/", in: jar)
        #expect(jar.header(for: try url("http://127.0.0.1:8080/")) == "l=1")
        try set("l=2; Secure", from: "http://localhost/", in: jar)
        #expect(jar.header(for: try url("http://localhost/")) == "l=2")
    }

    @Test func cookieNamePrefixesAreEnforced() throws {
        let jar = jar()
        #expect(try !set("__Secure-a=1", from: "https://h.example/", in: jar))
        #expect(try set("__Secure-a=1; Secure", from: "https://h.example/", in: jar))
        #expect(try !set("__Host-b=1; Secure; Domain=h.example; Path=/", from: "https://h.example/", in: jar))
        #expect(try !set("__Host-b=1; Secure; Path=/x", from: "https://h.example/x/y", in: jar))
        #expect(try set("__Host-b=1; Secure; Path=/", from: "https://h.example/", in: jar))
    }

    @Test func theCookieHeaderListsLongerPathsFirstThenOlderCookies() throws {
        let jar = jar()
        try set("old=1; Path=/", from: "http://h.example/", in: jar)
        try set("deep=2; Path=/a/b", from: "http://h.example/", in: jar)
        try set("new=3; Path=/", from: "http://h.example/", in: jar)
        try set("mid=4; Path=/a", from: "http://h.example/", in: jar)
        #expect(jar.header(for: try url("http://h.example/a/b/c")) == "deep=2; mid=4; old=1; new=3")
        // Replacing a cookie keeps its place.
        try set("old=5; Path=/", from: "http://h.example/", in: jar)
        #expect(jar.header(for: try url("http://h.example/")) == "old=5; new=3")
    }

    @Test func cookiesWithTheSameNameOnOtherPathsOrDomainsAreDistinct() throws {
        let jar = jar()
        try set("a=root; Path=/", from: "http://www.example.com/", in: jar)
        try set("a=app; Path=/app", from: "http://www.example.com/", in: jar)
        try set("a=domain; Domain=example.com; Path=/", from: "http://www.example.com/", in: jar)
        #expect(jar.cookies.count == 3)
        #expect(jar.header(for: try url("http://www.example.com/app")) == "a=app; a=root; a=domain")
    }

    @Test func addressesMatchThemselvesOnly() throws {
        let jar = jar()
        try set("a=1", from: "http://127.0.0.1:8080/", in: jar)
        try set("v6=1", from: "http://[::1]:8080/", in: jar)
        #expect(jar.header(for: try url("http://127.0.0.1:9/")) == "a=1", "cookies do not depend on the port")
        #expect(jar.header(for: try url("http://127.0.0.2/")) == nil)
        #expect(jar.header(for: try url("http://[::1]/")) == "v6=1")
    }

    // MARK: The cookie file

    @Test func aCookieFileRoundTrips() throws {
        let cookies = [
            Cookie(
                name: "sid", value: "abc", domain: "example.com", hostOnly: false, path: "/", secure: true,
                httpOnly: true, expires: Self.now + 3600),
            Cookie(name: "s", value: "", domain: "127.0.0.1", path: "/app"),
        ]
        let text = CookieFile.render(cookies)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
        #expect(text.contains("#HttpOnly_.example.com\tTRUE\t/\tTRUE\t\(Self.now + 3600)\tsid\tabc\n"))
        #expect(text.contains("127.0.0.1\tFALSE\t/app\tFALSE\t0\ts\t\n"))
        #expect(try CookieFile.parse(text, now: Self.now) == cookies)
    }

    @Test func readingACookieFileDropsExpiredCookiesAndAcceptsSixFields() throws {
        let text = "# comment\n\nold.example\tFALSE\t/\tFALSE\t100\tgone\tx\r\nh.example\tFALSE\t/\tFALSE\t0\tempty\n"
        let cookies = try CookieFile.parse(text, now: Self.now)
        #expect(cookies == [Cookie(name: "empty", value: "", domain: "h.example")])
    }

    @Test(
        arguments: [
            ("h.example\tFALSE\t/\tFALSE\t0\n", 1, 1, "expected 7 fields"),
            ("# ok\nh.example\tMAYBE\t/\tFALSE\t0\ta\t1\n", 2, 11, "subdomains field must be TRUE or FALSE"),
            ("h.example\tFALSE\tpath\tFALSE\t0\ta\t1\n", 1, 17, "path field must start with `/`"),
            ("#HttpOnly_h.example\tFALSE\t/\tno\t0\ta\t1\n", 1, 29, "secure field must be TRUE or FALSE"),
            ("h.example\tFALSE\t/\tFALSE\tsoon\ta\t1\n", 1, 25, "expiry field"),
            ("h.example\tFALSE\t/\tFALSE\t0\t\t1\n", 1, 27, "name field is empty"),
            ("\tFALSE\t/\tFALSE\t0\ta\t1\n", 1, 1, "domain field is empty"),
            (
                "h.example\tFALSE\t/\tFALSE\t0\tsid\tx\ry\n", 1, 31,
                "the value of cookie `sid` contains a control character (U+000D carriage return), which cannot be sent in a header line"
            ),
            (
                "h.example\tFALSE\t/\tFALSE\t0\ts\u{1}d\tx\n", 1, 27,
                "the name of a cookie contains a control character (U+0001)"
            ),
        ] as [(String, Int, Int, String)])
    func aMalformedCookieFileLineIsNamedWithItsLineAndColumn(text: String, line: Int, column: Int, message: String) {
        #expect {
            try CookieFile.parse(text, now: Self.now)
        } throws: { error in
            guard let failure = error as? CookieFile.ReadError else { return false }
            return failure.line == line && failure.column == column && failure.message.contains(message)
        }
    }
}

/// A settable clock for a jar.
private final class ClockBox: Sendable {
    private let time: Mutex<Int64>
    init(_ value: Int64) { time = Mutex(value) }
    var value: Int64 {
        get { time.withLock { $0 } }
        set { time.withLock { $0 = newValue } }
    }
}
