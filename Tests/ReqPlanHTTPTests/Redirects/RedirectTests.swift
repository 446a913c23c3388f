import ReqPlanSyntax
import Testing

@testable import ReqPlanTransport

/// The redirect rules on their own (`Redirect`): which method and body the next hop gets, where a relative
/// `Location` leads, and which headers go to another origin. Over the network, through every client, they are
/// in `WireTests`.
@Suite struct RedirectTests {
    private func request(_ method: HTTPMethodName, _ url: String, headers: [HeaderField] = [], body: [UInt8]? = nil)
        throws -> PreparedRequest
    {
        try PreparedRequest(method: method, url: url, headers: headers, body: body)
    }

    private func redirect(_ status: Int, to location: String?) -> TransportResponse {
        TransportResponse(status: status, headers: location.map { [HeaderField("Location", $0)] } ?? [], body: [])
    }

    @Test func redirectsChangeMethodsAsBrowsersDo() throws {
        let post = try request(
            .POST, "http://a/form",
            headers: [
                HeaderField("Content-Type", "application/json"),
                HeaderField("Content-Length", "2"),
            ], body: Array("{}".utf8))
        for status in [301, 302, 303] {
            let next = try #require(Redirect.request(following: redirect(status, to: "/done"), of: post))
            #expect(next.method == .GET && next.body == nil && next.url.text == "http://a/done", "\(status)")
            #expect(next.header("content-type") == nil && next.header("content-length") == nil)
        }
        for status in [307, 308] {
            let next = try #require(Redirect.request(following: redirect(status, to: "/done"), of: post))
            #expect(next.method == .POST && next.body == Array("{}".utf8), "\(status)")
        }
        let put = try request(.PUT, "http://a/x", body: [1])
        #expect(Redirect.request(following: redirect(302, to: "/y"), of: put)?.method == .PUT)
        #expect(Redirect.request(following: redirect(303, to: "/y"), of: put)?.method == .GET)
        let head = try request(.HEAD, "http://a/x")
        #expect(Redirect.request(following: redirect(303, to: "/y"), of: head)?.method == .HEAD)
    }

    @Test func redirectsResolveRelativeLocationsAndKeepCredentialsToTheSameOrigin() throws {
        let get = try request(
            .GET, "http://a:8080/dir/page?x=1",
            headers: [
                HeaderField("Authorization", "Bearer t"), HeaderField("Cookie", "c=1"),
                HeaderField("Accept", "application/json"),
            ])
        let sibling = try #require(Redirect.request(following: redirect(302, to: "other"), of: get))
        #expect(sibling.url.text == "http://a:8080/dir/other")
        #expect(sibling.header("authorization") == "Bearer t" && sibling.header("cookie") == "c=1")

        let elsewhere = try #require(Redirect.request(following: redirect(302, to: "https://b/login"), of: get))
        #expect(elsewhere.url.text == "https://b/login")
        #expect(elsewhere.header("authorization") == nil && elsewhere.header("cookie") == nil)
        #expect(elsewhere.header("accept") == "application/json")
        let otherPort = try #require(Redirect.request(following: redirect(302, to: "//a:9090/x"), of: get))
        #expect(otherPort.url.text == "http://a:9090/x" && otherPort.header("authorization") == nil)

        #expect(Redirect.request(following: redirect(302, to: nil), of: get) == nil)
        #expect(Redirect.request(following: redirect(302, to: "ftp://a/file"), of: get) == nil)
        #expect(Redirect.request(following: redirect(304, to: "/x"), of: get) == nil)
        #expect(Redirect.request(following: redirect(200, to: "/x"), of: get) == nil)
    }
}
