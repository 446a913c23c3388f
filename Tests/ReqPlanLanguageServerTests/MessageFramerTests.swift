import ReqPlanLanguageServer
import Testing

@Suite struct MessageFramerTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aMessageSplitAcrossReadsComesOutWholeOnce() {
        var framer = MessageFramer()
        let frame = MessageFramer.frame(bytes(#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#))
        framer.append(frame[..<10])
        #expect(framer.next() == nil)
        framer.append(frame[10..<(frame.count - 1)])
        #expect(framer.next() == nil)
        framer.append(frame[(frame.count - 1)...])
        #expect(framer.next() == .message(bytes(#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#)))
        #expect(framer.next() == nil)
        #expect(framer.pendingByteCount == 0)
    }

    @Test func twoMessagesInOneReadComeOutInOrder() {
        var framer = MessageFramer()
        framer.append(MessageFramer.frame(bytes("[1]")) + MessageFramer.frame(bytes("[2]")))
        #expect(framer.next() == .message(bytes("[1]")))
        #expect(framer.next() == .message(bytes("[2]")))
        #expect(framer.next() == nil)
    }

    @Test func theContentLengthCountsBytesNotCharacters() {
        var framer = MessageFramer()
        let content = bytes(#""Café ☕ 𝄞""#)
        framer.append(MessageFramer.frame(content) + MessageFramer.frame(bytes("1")))
        #expect(framer.next() == .message(content))
        #expect(framer.next() == .message(bytes("1")))
    }

    @Test func otherHeaderFieldsAndAnyCaseOfTheNameAreRead() {
        var framer = MessageFramer()
        framer.append(bytes("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"))
        #expect(framer.next() == .message(bytes("{}")))
    }

    @Test(arguments: [
        "Content-Type: x\r\n\r\n", "Content-Length: two\r\n\r\n", "garbage\r\n\r\n",
        "Content-Length: 1\r\nContent-Length: 2\r\n\r\n", "Content-Length: -3\r\n\r\n",
    ])
    func aHeaderWithoutAUsableLengthIsMalformedAndTheNextMessageIsRead(header: String) {
        var framer = MessageFramer()
        framer.append(bytes(header) + MessageFramer.frame(bytes("{}")))
        guard case .malformed? = framer.next() else {
            Issue.record("a header without a usable Content-Length was read as a message")
            return
        }
        #expect(framer.next() == .message(bytes("{}")))
    }

    @Test func aMessageLargerThanTheLimitIsSkippedAsItComes() {
        var framer = MessageFramer()
        framer.maxContentBytes = 10
        framer.append(bytes("Content-Length: 25\r\n\r\n0123456789"))
        guard case .malformed? = framer.next() else {
            Issue.record("an oversized message was not refused")
            return
        }
        framer.append(bytes("0123456789"))
        #expect(framer.next() == nil)
        framer.append(bytes("01234") + MessageFramer.frame(bytes("{}")))
        #expect(framer.next() == .message(bytes("{}")))
        #expect(framer.pendingByteCount == 0)
    }

    @Test func aHeaderThatNeverEndsIsDroppedNotKept() {
        var framer = MessageFramer()
        framer.maxHeaderBytes = 64
        framer.append(bytes(String(repeating: "x", count: 100) + "\n"))
        guard case .malformed? = framer.next() else {
            Issue.record("an endless header was kept")
            return
        }
        #expect(framer.pendingByteCount == 0)
        framer.append(MessageFramer.frame(bytes("{}")))
        #expect(framer.next() == .message(bytes("{}")))
    }
}
