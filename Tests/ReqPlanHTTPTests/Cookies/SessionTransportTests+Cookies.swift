import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// Cookies of the transport: the jars, a `Cookie` header written in the plan, cookies off.
extension SessionTransportTests {
    @Test(ExternalServers.needed(.nginx, .openssl), arguments: wires)
    func aSessionCookieFromALoginIsSentBackWithoutACookieHeaderWritten(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let configuration = try configuration(nginx, wire)
        try await HTTPClientTransport.with(configuration) { transport in
            let before = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(60))
            #expect(before.status == 401)
            let login = try await transport.send(request(.POST, "\(base(nginx, wire))/login"), timeout: .seconds(60))
            #expect(login.status == 200)
            #expect(login.setCookies == [HeaderField("session", nginx.sessionToken)])
            let me = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(60))
            #expect(me.status == 200 && String(decoding: me.body, as: UTF8.self) == #"{"user":"alice"}"#)
            let logout = try await transport.send(request(.GET, "\(base(nginx, wire))/logout"), timeout: .seconds(60))
            #expect(logout.setCookies == [HeaderField("session", "")])
            let after = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(60))
            #expect(after.status == 401, "Max-Age=0 deleted the session")
        }
        #expect(configuration.secrets.all.contains(nginx.sessionToken))
    }

    @Test(ExternalServers.needed(.nginx, .openssl), arguments: wires)
    func aCookieSetByARedirectIsSentOnTheNextHop(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            let response = try await transport.send(
                request(.POST, "\(base(nginx, wire))/login-and-go"),
                timeout: .seconds(60))
            #expect(response.status == 200, "303 to /me, which saw the cookie the 303 set")
            #expect(response.setCookies == [HeaderField("session", nginx.sessionToken)])
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl), arguments: wires)
    func withCookiesOffNothingIsStoredButTheCookiesSetAreStillReported(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let configuration = try configuration(nginx, wire)
        try await HTTPClientTransport.with(configuration) { transport in
            let login = try await transport.send(
                request(.POST, "\(base(nginx, wire))/login", cookies: false),
                timeout: .seconds(60))
            #expect(login.setCookies == [HeaderField("session", nginx.sessionToken)])
            let me = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(60))
            #expect(me.status == 401)
        }
        #expect(configuration.cookies.isEmpty)
    }

    @Test(ExternalServers.needed(.nginx, .openssl), arguments: wires)
    func aRequestWithCookiesOffDoesNotSendTheJars(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            _ = try await transport.send(request(.POST, "\(base(nginx, wire))/login"), timeout: .seconds(60))
            let me = try await transport.send(
                request(.GET, "\(base(nginx, wire))/me", cookies: false),
                timeout: .seconds(60))
            #expect(me.status == 401)
        }
    }

    @Test(ExternalServers.needed(.httpbin), arguments: clients)
    func anExplicitCookieHeaderIsSentFirstAndMergedWithTheJarsIntoOneHeader(client: HTTPClientTransport.Client)
        async throws
    {
        let httpbin = try await Httpbin.shared()
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = client
        try await HTTPClientTransport.with(configuration) { transport in
            // /cookies/set answers 302 to /cookies: the cookies it set go on the next hop.
            let set = try await transport.send(
                request(.GET, "\(httpbin.url)/cookies/set?jar=1&both=jar"),
                timeout: .seconds(60))
            #expect(set.status == 200)
            #expect(set.setCookies.map(\.name).sorted() == ["both", "jar"])
            #expect(String(decoding: set.body, as: UTF8.self).contains(#""jar": "1""#))
            let echoed = try await transport.send(
                request(.GET, "\(httpbin.url)/headers", headers: [HeaderField("Cookie", "mine=2; both=plan")]),
                timeout: .seconds(60))
            let body = try JSONSerialization.jsonObject(with: Data(echoed.body)) as? [String: [String: String]]
            #expect(body?["headers"]?["Cookie"] == "mine=2; both=plan; jar=1")
        }
    }
}
