import Testing

@testable import ReqPlanTransport

/// Which proxy a request uses: proxy URLs, the environment's precedence, and `NO_PROXY` matched
/// as curl matches it (lib/noproxy.c), without a network.
@Suite struct ProxySettingsTests {
    @Test func proxyURLsAreReadAsCurlReadsThem() throws {
        let full = try ProxyServer(parsing: "http://us%40er:p%3Ass@Proxy.Example:3128/")
        #expect(full.host == "proxy.example" && full.port == 3128)
        #expect(full.username == "us@er" && full.password == "p:ss")
        #expect(full.authorization == "Basic dXNAZXI6cDpzcw==")
        #expect(full.hostPort == "proxy.example:3128")

        let bare = try ProxyServer(parsing: "127.0.0.1")
        #expect(bare.port == 1080, "curl's default proxy port")
        #expect(bare.authorization == nil)
        let v6 = try ProxyServer(parsing: "[::1]:8080")
        #expect(v6.host == "::1" && v6.hostPort == "[::1]:8080")
        #expect(try ProxyServer(parsing: "http://user@h:1").authorization == "Basic dXNlcjo=")
    }

    @Test(arguments: [
        ("socks5://h:1080", "`socks5://` proxies are not supported"),
        ("https://h:443", "`https://` proxies are not supported"),
        ("http://:3128", "no host"), ("h:99999", "is not a port"), ("h:x", "is not a port"),
        ("[::1:80", "no closing"),
    ])
    func unusableProxyURLsAreRefused(text: String, reason: String) {
        #expect {
            try ProxyServer(parsing: text)
        } throws: { error in
            (error as? ProxySettings.ConfigurationError)?.message.contains(reason) == true
        }
    }

    @Test func aFailureNamesTheVariableAndHidesThePassword() {
        #expect {
            try ProxySettings(environment: ["HTTPS_PROXY": "socks5://u:secret@h:1"], proxy: nil, noProxy: nil)
        } throws: { error in
            let message = (error as? ProxySettings.ConfigurationError)?.message ?? ""
            return message.hasPrefix("HTTPS_PROXY `socks5://u:***@h:1` is not a usable proxy")
                && !message.contains("secret")
        }
    }

    private func settings(_ environment: [String: String], proxy: String? = nil, noProxy: String? = nil) throws
        -> ProxySettings
    {
        try ProxySettings(environment: environment, proxy: proxy, noProxy: noProxy)
    }

    private func proxy(_ settings: ProxySettings, for url: String) throws -> String? {
        settings.server(for: try RequestURL(parsing: url))?.hostPort
    }

    @Test func lowerCaseVariablesComeFirstAndUpperCaseHTTPProxyIsHonoured() throws {
        let both = try settings(["http_proxy": "lower:1", "HTTP_PROXY": "upper:2", "HTTPS_PROXY": "secure:3"])
        #expect(try proxy(both, for: "http://a/") == "lower:1")
        #expect(try proxy(both, for: "https://a/") == "secure:3")
        let upper = try settings(["HTTP_PROXY": "upper:2"])
        #expect(try proxy(upper, for: "http://a/") == "upper:2", "curl ignores HTTP_PROXY; reqplan does not")
        #expect(try proxy(upper, for: "https://a/") == nil)
    }

    @Test func allProxyIsTheFallbackAndAnEmptyVariableMeansNone() throws {
        let all = try settings(["ALL_PROXY": "every:1", "https_proxy": "secure:2"])
        #expect(try proxy(all, for: "http://a/") == "every:1")
        #expect(try proxy(all, for: "https://a/") == "secure:2")
        let off = try settings(["http_proxy": "", "HTTP_PROXY": "upper:2", "all_proxy": "every:1"])
        #expect(try proxy(off, for: "http://a/") == nil)
        #expect(try proxy(off, for: "https://a/") == "every:1")
        #expect(!(try settings([:])).isEnabled)
    }

    @Test func theOptionsWinOverTheEnvironment() throws {
        let environment = ["http_proxy": "env:1", "https_proxy": "env:2", "no_proxy": "a"]
        let option = try settings(environment, proxy: "option:3", noProxy: "b")
        #expect(try proxy(option, for: "http://a/") == "option:3")
        #expect(try proxy(option, for: "https://a/") == "option:3")
        #expect(try proxy(option, for: "http://b/") == nil)
        let none = try settings(environment, proxy: "")
        #expect(!none.isEnabled)
        let everything = try settings(environment, noProxy: "")
        #expect(try proxy(everything, for: "http://a/") == "env:1", "--noproxy '' overrides NO_PROXY")
        #expect(try proxy(try settings(environment), for: "http://a/") == nil)
        #expect(try proxy(try settings(["http_proxy": "p:1", "NO_PROXY": "a"]), for: "http://a/") == nil)
    }

    @Test(arguments: [
        // (list, host, matches)
        ("*", "anything.example", true),
        ("example.com", "example.com", true),
        ("example.com", "www.example.com", true),
        ("example.com", "notexample.com", false),
        (".example.com", "example.com", true),
        (".example.com", "a.b.example.com", true),
        ("example.com.", "www.example.com", true),
        ("example.com", "www.example.com.", true),
        ("EXAMPLE.com", "www.Example.COM", true),
        ("a.example, example.org ,, other", "example.org", true),
        ("a.example,other", "other", true),
        ("a.example other", "other", false),  // curl: a blank not followed by a comma ends the list
        ("*,x", "y", false),  // `*` counts only alone
        ("localhost", "127.0.0.1", false),  // names never match addresses
        ("127.0.0.1", "127.0.0.1", true),
        ("127.0.0.0/8", "127.1.2.3", true),
        ("10.0.0.0/8", "127.0.0.1", false),
        ("192.168.0.0/16", "192.168.200.1", true),
        ("192.168.1.0/33", "192.168.1.1", false),
        ("127.0.0.1", "localhost", false),
        ("::1", "::1", true),
        ("fd00::/8", "fd12::1", true),
        ("fd00::/8", "fe80::1", false),
        ("2001:db8::/33", "2001:db8:7fff::1", true),
        ("2001:db8::/33", "2001:db8:8000::1", false),
        ("", "example.com", false),
    ])
    func noProxyMatchesAsCurlDoes(list: String, host: String, matches: Bool) {
        #expect(NoProxyList(list).matches(host) == matches, "\(list) ~ \(host)")
    }
}
