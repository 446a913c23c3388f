import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

@Suite struct JSONRPCMessageTests {
    private func parse(_ text: String) throws(ResponseError) -> JSONRPCMessage {
        try JSONRPCMessage.parse(Array(text.utf8))
    }

    @Test func requestsNotificationsAndResponsesAreToldApart() throws {
        #expect(
            try parse(#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#)
                == .request(id: .number(1), method: "shutdown", params: .null))
        #expect(
            try parse(#"{"jsonrpc":"2.0","id":"a","method":"x","params":[1]}"#)
                == .request(id: .string("a"), method: "x", params: .list([.int(1)])))
        #expect(
            try parse(#"{"jsonrpc":"2.0","method":"exit"}"#) == .notification(method: "exit", params: .null))
        #expect(try parse(#"{"jsonrpc":"2.0","id":3,"result":null}"#) == .response(id: .number(3)))
    }

    @Test func textThatIsNotJSONIsAParseError() {
        #expect(performing: { try parse("{}}") }, throws: { ($0 as? ResponseError)?.code == .parseError })
        #expect(performing: { try parse("{\"jsonrpc\":") }, throws: { ($0 as? ResponseError)?.code == .parseError })
    }

    @Test func jsonThatIsNotAMessageIsAnInvalidRequestNamingItsID() {
        #expect(
            performing: { try parse(#"{"id":7,"method":"x"}"#) },
            throws: { ($0 as? ResponseError).map { $0.code == .invalidRequest && $0.requestID == .number(7) } ?? false }
        )
        #expect(
            performing: { try parse(#"{"jsonrpc":"2.0","id":7,"method":3}"#) },
            throws: { ($0 as? ResponseError)?.code == .invalidRequest })
        #expect(
            performing: { try parse(#"{"jsonrpc":"2.0","id":{},"method":"x"}"#) },
            throws: { ($0 as? ResponseError)?.code == .invalidRequest })
        #expect(performing: { try parse("[]") }, throws: { ($0 as? ResponseError)?.code == .invalidRequest })
    }

    @Test func anErrorResponseCarriesItsCodeAndANullIDWhenTheIDIsUnknown() throws {
        let text = JSONRPCMessage.response(to: nil, error: ResponseError(.methodNotFound, "no"))
        let value = try Value.parseJSON(bytes: text)
        #expect(value["id"] == .null)
        #expect(value["error"]?["code"] == .int(-32601))
    }
}
