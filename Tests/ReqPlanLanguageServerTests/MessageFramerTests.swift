import Foundation
import ReqPlanLanguageServer
import Testing

@Suite struct MessageFramerTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// That the framer holds nothing unread: the next frame comes out whole, alone, in one read and in reads
    /// of a byte (a byte held would come out before it, or make it malformed).
    private func expectDrained(_ framer: inout MessageFramer, sourceLocation: Testing.SourceLocation = #_sourceLocation)
    {
        #expect(framer.next() == nil, sourceLocation: sourceLocation)
        var whole = framer
        whole.append(MessageFramer.frame(bytes("[9]")))
        #expect(whole.next() == .message(bytes("[9]")), sourceLocation: sourceLocation)
        #expect(whole.next() == nil, sourceLocation: sourceLocation)
        var read: [MessageFramer.Frame] = []
        for byte in MessageFramer.frame(bytes("[9]")) {
            framer.append([byte])
            while let frame = framer.next() { read.append(frame) }
        }
        #expect(read == [.message(bytes("[9]"))], sourceLocation: sourceLocation)
    }

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
        expectDrained(&framer)
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
        expectDrained(&framer)
    }

    @Test func aHeaderThatNeverEndsIsDroppedNotKept() {
        var framer = MessageFramer()
        framer.maxHeaderBytes = 64
        framer.append(bytes(String(repeating: "x", count: 100) + "\n"))
        guard case .malformed? = framer.next() else {
            Issue.record("an endless header was kept")
            return
        }
        expectDrained(&framer)
    }
}

/// After a frame that cannot be read, the framer finds the next `Content-Length:` header: one bad frame loses
/// that message, never the ones after it (issue 37).
extension MessageFramerTests {
    /// Every frame the bytes hold, until the framer wants more.
    private func frames(_ bytes: [UInt8], framer: inout MessageFramer) -> [MessageFramer.Frame] {
        framer.append(bytes)
        var frames: [MessageFramer.Frame] = []
        while let frame = framer.next() { frames.append(frame) }
        return frames
    }

    private func messages(_ frames: [MessageFramer.Frame]) -> [[UInt8]] {
        frames.compactMap { if case .message(let content) = $0 { content } else { nil } }
    }

    private func malformedCount(_ frames: [MessageFramer.Frame]) -> Int {
        frames.count { if case .malformed = $0 { true } else { false } }
    }

    @Test func aHeaderWithoutALengthLosesItsOwnContentOnly() {
        var framer = MessageFramer()
        let read = frames(
            bytes("Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}")
                + MessageFramer.frame(bytes("[2]")) + MessageFramer.frame(bytes("[3]")),
            framer: &framer)
        #expect(messages(read) == [bytes("[2]"), bytes("[3]")])
        #expect(malformedCount(read) == 1)
        expectDrained(&framer)
    }

    @Test func aLengthCountedInCharactersLosesThatMessageOnly() {
        var framer = MessageFramer()
        let content = bytes(#"{"text":"café"}"#)
        // `é` is two bytes: a client counting characters gives one byte too few.
        let short = bytes("Content-Length: \(#"{"text":"café"}"#.count)\r\n\r\n") + content
        let read = frames(
            short + MessageFramer.frame(bytes("[2]")) + MessageFramer.frame(bytes("[3]")), framer: &framer)
        // The short message comes out cut (the server answers it with a parse error), then the byte left of it
        // is skipped and the next two come out whole.
        #expect(messages(read) == [Array(content.dropLast()), bytes("[2]"), bytes("[3]")])
        #expect(malformedCount(read) == 1)
    }

    @Test func aLengthCountedInCharactersResynchronisesAcrossReads() {
        var framer = MessageFramer()
        let text = #"{"text":"☕ café 𝄞"}"#
        let stream =
            bytes("Content-Length: \(text.count)\r\n\r\n") + bytes(text) + MessageFramer.frame(bytes("[2]"))
            + MessageFramer.frame(bytes("[3]"))
        var read: [MessageFramer.Frame] = []
        for byte in stream { read += frames([byte], framer: &framer) }
        #expect(messages(read).suffix(2) == [bytes("[2]"), bytes("[3]")])
    }

    @Test(arguments: [
        "9223372036854775807", "18446744073709551615", "99999999999999999999999", "-1", "-9223372036854775808",
        "1e9", "0x10", " ", "",
    ])
    func anUnusableLengthLosesItsMessageOnly(length: String) {
        var framer = MessageFramer()
        let read = frames(
            bytes("Content-Length: \(length)\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}")
                + MessageFramer.frame(bytes("[2]")),
            framer: &framer)
        #expect(messages(read) == [bytes("[2]")])
        #expect(malformedCount(read) == 1)
    }

    @Test func aLengthOverTheLimitIsRefusedAndWhatFollowsIsRead() {
        var framer = MessageFramer()
        framer.maxContentBytes = 10
        // The declared length is not waited for: the next header is.
        let read = frames(
            bytes("Content-Length: 1000000\r\n\r\n{\"a\":1}") + MessageFramer.frame(bytes("[2]")), framer: &framer)
        #expect(messages(read) == [bytes("[2]")])
        guard case .malformed(let reason)? = read.first else {
            Issue.record("the oversized message was not refused")
            return
        }
        #expect(reason == "a message of 1000000 bytes, more than the 10 accepted")
    }

    @Test func garbageWithoutAHeaderIsOneErrorAndIsNotKept() {
        var framer = MessageFramer()
        var read: [MessageFramer.Frame] = []
        // 1 MB of JSON with no header, in reads of 10 KB: one error, and never more than a header's worth held.
        let chunk = bytes("{\"jsonrpc\":\"2.0\"," + String(repeating: "\"a\":1,", count: 1700) + "\"b\":2}")
        for _ in 0..<100 {
            read += frames(chunk, framer: &framer)
        }
        read += frames(MessageFramer.frame(bytes("[2]")), framer: &framer)
        #expect(malformedCount(read) == 1)
        #expect(messages(read) == [bytes("[2]")])
    }

    /// Memory stays bounded whatever comes in: 64 MB with no header, in reads of 1 MB, and the framer never
    /// holds more than one read. What it holds is counted in its own stored byte arrays, read through `Mirror`
    /// (not the process's resident memory, which the tests running beside this one move by tens of MB).
    @Test func garbageIsNotBuffered() throws {
        var framer = MessageFramer()
        var chunk = bytes(String(repeating: "x", count: 1 << 20))
        chunk[chunk.count - 1] = UInt8(ascii: "\n")
        var read: [MessageFramer.Frame] = []
        var most = 0
        for _ in 0..<64 {
            read += frames(chunk, framer: &framer)
            most = max(most, Self.bytesHeld(by: framer))
        }
        #expect(most <= chunk.count, "the framer held \(most >> 20) MB after reads of 1 MB")
        read += frames(MessageFramer.frame(bytes("[2]")), framer: &framer)
        #expect(malformedCount(read) == 1)
        #expect(messages(read) == [bytes("[2]")])
    }

    /// The bytes in the byte arrays a value stores, at any depth of its stored properties.
    static func bytesHeld(by value: Any) -> Int {
        if let bytes = value as? [UInt8] { return bytes.count }
        return Mirror(reflecting: value).children.reduce(0) { $0 + bytesHeld(by: $1.value) }
    }

    @Test func contentLengthInsideTheSkippedTextIsNotTakenForAHeader() {
        var framer = MessageFramer()
        // A document whose text mentions a header, in a message whose own header has no length.
        let lost = bytes(#"{"text":"Content-Length: 5\r\n\r\nabcde Content-Length: 2"}"#)
        let read = frames(
            bytes("Content-Type: x\r\n\r\n") + lost + MessageFramer.frame(bytes("[2]")), framer: &framer)
        #expect(messages(read) == [bytes("[2]")])
        #expect(malformedCount(read) == 1)
    }

    @Test func aHeaderFieldEndingInContentLengthIsNotOne() {
        var framer = MessageFramer()
        let read = frames(
            bytes("X-Content-Length: 3\r\n\r\n[1]") + MessageFramer.frame(bytes("[2]")), framer: &framer)
        #expect(messages(read) == [bytes("[2]")])
    }
}
