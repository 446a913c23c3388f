import Foundation
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanRuntime
import ReqPlanSyntax
import Testing

@testable import ReqPlanPresentation

/// The HAR builder on exchanges made by hand: one that got no response, and bodies larger than the limit.
@Suite struct HARLogTests {
    static let secret = "Sx-Kestrel-5521"

    static func page(_ exchanges: [RecordedExchange]) -> HARLog.Page {
        HARLog.Page(
            title: "plan.yaml", startedAt: Date(timeIntervalSince1970: 1_700_000_000), exchanges: exchanges,
            redactor: Redactor(secrets: [secret]), hiddenHeaders: SecretFlow.alwaysSecretHeaders)
    }

    static func exchange(request body: HARBody? = nil, response: RecordedExchange.Response?, error: String? = nil)
        -> RecordedExchange
    {
        RecordedExchange(
            step: "fetch", item: 2, attempt: 1, started: Date(timeIntervalSince1970: 1_700_000_000.25),
            time: .milliseconds(12), phases: nil,
            request: RecordedExchange.Request(
                method: "POST", url: "http://127.0.0.1:1/x?a=1&b=two",
                headers: [HeaderField("Authorization", "Bearer \(secret)")], body: body),
            response: response, error: error)
    }

    static func entry(_ exchange: RecordedExchange) throws -> Value {
        let log = HARLog(pages: [page([exchange])]).jsonValue
        guard case .list(let entries)? = log["log"]?["entries"], let entry = entries.first else {
            throw HARTestError()
        }
        return entry
    }

    struct HARTestError: Error {}

    @Test func anExchangeWithNoResponseIsAnEntryWithStatusZeroAndItsError() throws {
        let entry = try Self.entry(
            Self.exchange(response: nil, error: "connection to 127.0.0.1:1 refused (\(Self.secret))"))
        #expect(entry["_step"] == .string("fetch"))
        #expect(entry["_item"] == .int(2))
        #expect(entry["pageref"] == .string("page_1"))
        #expect(entry["startedDateTime"] == .string("2023-11-14T22:13:20.250Z"))
        #expect(entry["response"]?["status"] == .int(0))
        #expect(entry["_error"] == .string("connection to 127.0.0.1:1 refused (***)"))
        // No split of the time: all of it is `wait`, the phases not measured are -1.
        #expect(entry["time"] == .int(12))
        #expect(entry["timings"]?["wait"] == .int(12))
        #expect(entry["timings"]?["connect"] == .int(-1))
        #expect(
            entry["request"]?["queryString"]
                == .list([
                    .object([.init("name", .string("a")), .init("value", .string("1"))]),
                    .object([.init("name", .string("b")), .init("value", .string("two"))]),
                ]))
        #expect(
            !HARLog(pages: [Self.page([Self.exchange(response: nil, error: "x")])]).jsonText().contains(Self.secret))
    }

    @Test func aBodyLargerThanTheLimitIsCutAndSaysSoWithTheSecretAtTheCutHidden() throws {
        // The secret straddles the limit: the net sees it whole before the text is cut.
        let text =
            String(repeating: "a", count: HARBody.limit - 5) + Self.secret + String(repeating: "b", count: 100_000)
        let bytes = Array(text.utf8)
        let response = RecordedExchange.Response(
            status: 200, httpVersion: "HTTP/1.1", headers: [HeaderField("Content-Type", "text/plain")],
            body: HARBody(bytes, mimeType: "text/plain"))
        let entry = try Self.entry(Self.exchange(request: HARBody(bytes, mimeType: "text/plain"), response: response))
        let content = try #require(entry["response"]?["content"])
        #expect(content["_truncated"] == .bool(true))
        #expect(content["size"] == .int(bytes.count))
        guard case .string(let shown)? = content["text"] else { throw HARTestError() }
        // The secret redacted leaves room for two bytes of what follows it: the limit exactly.
        let ending = String(shown.suffix(8))
        #expect(shown.utf8.count == HARBody.limit)
        #expect(ending == "aaa***bb")
        #expect(entry["request"]?["postData"]?["_truncated"] == .bool(true))
        #expect(entry["request"]?["bodySize"] == .int(bytes.count))
        // A body that is not UTF-8 is base64, its secret hidden byte for byte.
        let binary: [UInt8] = [0xff, 0xfe] + Array(Self.secret.utf8) + [0x00]
        let binaryEntry = try Self.entry(
            Self.exchange(
                response: RecordedExchange.Response(
                    status: 200, httpVersion: nil, headers: [], body: HARBody(binary, mimeType: nil))))
        #expect(binaryEntry["response"]?["content"]?["encoding"] == .string("base64"))
        #expect(
            binaryEntry["response"]?["content"]?["text"]
                == .string(Data([0xff, 0xfe] + Array("***".utf8) + [0x00]).base64EncodedString()))
        #expect(binaryEntry["response"]?["content"]?["_truncated"] == nil)
    }
}
