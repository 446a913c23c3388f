import Testing

@testable import ReqPlanTransport

/// `RequestURL`: a request's URL, parsed once and read by every hop, and the references a redirect's
/// `Location` gives, resolved as RFC 3986 §5.2 says (its own examples, §5.4).
@Suite struct RequestURLTests {
    @Test func aURLIsSplitIntoWhatTheWireCookiesAndProxiesRead() throws {
        let plain = try RequestURL(parsing: "http://Example.com/a/b?x=1#frag")
        #expect(!plain.isHTTPS && plain.host == "example.com" && plain.port == 80)
        #expect(plain.authority == "Example.com" && plain.path == "/a/b" && plain.target == "/a/b?x=1")
        #expect(plain.text == "http://Example.com/a/b?x=1#frag")

        let port = try RequestURL(parsing: "http://127.0.0.1:8080")
        #expect(port.port == 8080 && port.authority == "127.0.0.1:8080" && port.target == "/" && port.path == "/")
        #expect(port.hostIsAddress && port.isLoopback)

        #expect(try RequestURL(parsing: "http://h:1?q=2").target == "/?q=2")

        let v6 = try RequestURL(parsing: "http://[::1]:9000/x")
        #expect(v6.host == "::1" && v6.port == 9000 && v6.authority == "[::1]:9000" && v6.hostPort == "[::1]:9000")
        #expect(v6.isLoopback)

        let credentials = try RequestURL(parsing: "http://us%40er:p@ss@host:81/p")
        #expect(credentials.credentials == .init(user: "us@er", password: "p@ss"))
        #expect(credentials.authority == "host:81" && credentials.text == "http://host:81/p")

        let encoded = try RequestURL(parsing: "http://h/caf\u{e9}?q=a|b&r=%20")
        #expect(encoded.target == "/caf%C3%A9?q=a%7Cb&r=%20")

        let secure = try RequestURL(parsing: "HTTPS://example.com/x")
        #expect(secure.isHTTPS && secure.port == 443 && secure.text == "https://example.com/x")

        let bad: [(String, RequestURL.Problem)] = [
            ("ftp://h/", .notHTTP), ("h/x", .notHTTP), ("http://", .noHost), ("http://:80/", .noHost),
            ("http://h:0/", .badAuthority), ("http://h:65536/", .badAuthority), ("http://h:8x/", .badAuthority),
            ("http://[::1/", .badAuthority), ("http://[::1]x/", .badAuthority), ("http://h/a b", .invalidCharacter),
            ("http://h/a\r\nX: 1", .invalidCharacter),
        ]
        for (text, problem) in bad {
            #expect(throws: problem, "\(text)") { try RequestURL(parsing: text) }
        }
    }

    /// RFC 3986 §5.4.1 and §5.4.2, against `http://a/b/c/d;p?q` (fragments are not kept: never sent).
    @Test(arguments: [
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"),
        ("g#s", "http://a/b/c/g"), ("g?y#s", "http://a/b/c/g?y"), (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"),
        ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"),
        ("../../", "http://a/"), ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("https://other:8443/z", "https://other:8443/z"),
    ])
    func referencesResolveAsRFC3986Says(reference: String, expected: String) throws {
        let base = try RequestURL(parsing: "http://a/b/c/d;p?q")
        #expect(base.resolving(reference)?.text == expected)
    }

    @Test func referencesToOtherSchemesAreNotFollowed() throws {
        let base = try RequestURL(parsing: "http://a/b/c/d;p?q")
        for reference in ["g:h", "ftp://a/b", "mailto:x@y", "javascript:alert(1)"] {
            #expect(base.resolving(reference) == nil, "\(reference)")
        }
    }
}
