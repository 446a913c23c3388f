import Foundation
import NIOCore
import NIOHTTP1
import ReqPlanSyntax

/// The response decoder of an HTTP/1.1 connection that `reqplan load` sends on again and again: the common
/// response is decoded here with the least work, and the first response of any other shape is handed, from its
/// first byte, to NIO's own decoder, which then decodes everything else the connection brings.
///
/// The common response: a status line `HTTP/1.1 NNN reason` with a status from 200 to 599 other than 204 and 304,
/// answering a request other than HEAD or CONNECT; header lines of a token, a colon, optional blanks and a value
/// of visible characters and inner blanks; one `Content-Length` of at most 18 digits, no `Transfer-Encoding`, and
/// no `Connection` but `keep-alive` (a response that closes the connection is NIO's to read); within NIO's header
/// limits. Anything else (chunked bodies, a body to the connection's end, 1xx, obs-folds,
/// bare LFs, two lengths, a head over a limit, an unsolicited response) goes to NIO's decoder, which answers it as
/// it answers it on a connection of its own: what it emits, or the error it throws.
///
/// Both decoders need each request's method (a HEAD response has no body). NIO's learns it by observing the writes,
/// which puts its handler in the way of every write; this one reads the methods `ExchangeHandler` notes as it
/// writes each head (`RequestsInFlight`), and hands NIO's decoder those still in flight. (BENCHMARKS.md, "Load".)
struct CommonResponseDecoder: ByteToMessageDecoder {
    typealias InboundOut = HTTPClientResponsePart

    private enum State {
        /// Before a response's head, or inside it while it has not all come: the bytes already searched for the
        /// head's end, so that a head that comes a byte at a time is searched once.
        case head(searched: Int)
        /// Inside a common response's body, with this many bytes still to come.
        case body(left: Int)
        /// NIO's decoder has the connection.
        case handedOver(HTTPResponseDecoder)
    }

    private var state = State.head(searched: 0)
    /// The last common head read, and its bytes. The responses of a load repeat them (nginx's change once a second,
    /// with `Date`), and the same bytes read the same: a head equal to the last, byte for byte, is not read again.
    private var last: LastHead?
    /// How many heads were read (not taken from `last`): each one's number tells it apart from the others.
    private var heads: UInt64 = 0

    private struct LastHead {
        let bytes: [UInt8]
        let head: HTTPResponseHead
        /// Its body's length, number and encoding.
        let facts: CommonHeadFacts

        /// Whether `bytes` are this head's, byte for byte.
        func isRead(from other: ByteBufferView) -> Bool {
            guard other.count == bytes.count else { return false }
            return other.withUnsafeBytes { other in
                bytes.withUnsafeBytes { bytes in
                    guard let one = other.baseAddress, let two = bytes.baseAddress else { return other.isEmpty }
                    return memcmp(one, two, bytes.count) == 0
                }
            }
        }
    }
    /// The requests written whose responses have not ended.
    private let inFlight: RequestsInFlight
    private let limits: NIOHTTPDecoderLimitConfiguration

    init(inFlight: RequestsInFlight, limits: NIOHTTPDecoderLimitConfiguration = .init()) {
        self.inFlight = inFlight
        self.limits = limits
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        switch state {
        case .handedOver(let decoder):
            inFlight.handOver(to: decoder)
            return try decoder.decode(context: context, buffer: &buffer)
        case .body(let left):
            guard let body = buffer.readSlice(length: min(left, buffer.readableBytes)), body.readableBytes > 0 else {
                return .needMoreData
            }
            context.fireChannelRead(NIOAny(HTTPClientResponsePart.body(body)))
            endResponse(context, left: left - body.readableBytes)
            return .continue
        case .head(let searched):
            guard let method = inFlight.methods.first, method != .HEAD, method != .CONNECT else {
                return try handOver(context, &buffer)
            }
            let view = buffer.readableBytesView
            guard let size = CommonHead.end(of: view, searchedFrom: searched) else {
                // A head longer than NIO's limits allow is NIO's decoder's to refuse.
                guard view.count <= limits.maxHeaderListSize + CommonHead.statusLineAllowance else {
                    return try handOver(context, &buffer)
                }
                state = .head(searched: max(0, view.count - 3))
                return .needMoreData
            }
            let head: HTTPResponseHead
            let facts: CommonHeadFacts
            if let last, last.isRead(from: view.prefix(size)) {
                (head, facts) = (last.head, last.facts)
            } else {
                guard case .common(let read, let length) = CommonHead.read(view.prefix(size), limits: limits)
                else { return try handOver(context, &buffer) }
                heads &+= 1
                head = read
                facts = CommonHeadFacts(
                    id: heads, encoded: read.headers.contains(name: "content-encoding"), length: length)
                last = LastHead(bytes: Array(view.prefix(size)), head: head, facts: facts)
            }
            if let reader = inFlight.reader, reader.takesCommon(facts),
                let body = buffer.getSlice(at: buffer.readerIndex + size, length: facts.length)
            {
                // The whole response has come: the exchange's handler, next in the pipeline, takes it at once.
                buffer.moveReaderIndex(forwardBy: size + facts.length)
                nextResponse()
                reader.readCommon(head, body: body, facts: facts)
                return .continue
            }
            buffer.moveReaderIndex(forwardBy: size)
            inFlight.common = facts
            context.fireChannelRead(NIOAny(HTTPClientResponsePart.head(head)))
            endResponse(context, left: facts.length)
            return .continue
        }
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        switch state {
        case .handedOver(let decoder):
            inFlight.handOver(to: decoder)
            return try decoder.decodeLast(context: context, buffer: &buffer, seenEOF: seenEOF)
        case .head:
            while buffer.readableBytes > 0, case .continue = try decode(context: context, buffer: &buffer) {}
            guard seenEOF, buffer.readableBytes > 0 || isHandedOver else { return .needMoreData }
            // Part of a head, then the end: NIO's decoder says what that is.
            if !isHandedOver { _ = try handOver(context, &buffer) }
            return try decodeLast(context: context, buffer: &buffer, seenEOF: seenEOF)
        case .body:
            while buffer.readableBytes > 0, case .continue = try decode(context: context, buffer: &buffer) {}
            // The connection ended inside a body its length announced: NIO's decoder throws the same.
            if seenEOF, case .body = state { throw HTTPParserError.invalidEOFState }
            return .needMoreData
        }
    }

    mutating func decoderRemoved(context: ChannelHandlerContext) {
        if case .handedOver(let decoder) = state { decoder.decoderRemoved(context: context) }
    }

    private var isHandedOver: Bool {
        if case .handedOver = state { return true }
        return false
    }

    /// Ends the response once its body has all come.
    private mutating func endResponse(_ context: ChannelHandlerContext, left: Int) {
        guard left == 0 else {
            state = .body(left: left)
            return
        }
        nextResponse()
        context.fireChannelRead(NIOAny(HTTPClientResponsePart.end(nil)))
    }

    /// A response has all been read: the next one's head comes next, for the next request written.
    private mutating func nextResponse() {
        state = .head(searched: 0)
        inFlight.methods.removeFirst()
    }

    /// Gives NIO's decoder the connection, from the first byte of the response in `buffer`.
    private mutating func handOver(_ context: ChannelHandlerContext, _ buffer: inout ByteBuffer) throws
        -> DecodingState
    {
        let decoder = HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)
        // What a ByteToMessageHandler does when a decoder is added: NIO's starts its parser.
        decoder.decoderAdded(context: context)
        inFlight.handedOver = true
        inFlight.handOver(to: decoder)
        state = .handedOver(decoder)
        return try decoder.decode(context: context, buffer: &buffer)
    }
}

/// The methods of the requests written on an HTTP/1.1 connection whose responses have not ended, oldest first:
/// `ExchangeHandler` notes each one as it writes its head, and `CommonResponseDecoder` takes it when its response
/// ends, or hands it to NIO's decoder. One per connection, used on its event loop only.
final class RequestsInFlight {
    fileprivate var methods = CircularBuffer<HTTPMethod>(initialCapacity: 2)
    /// Whether NIO's decoder reads the connection's responses. Until then each response is a common one, read by
    /// `CommonResponseDecoder`: HTTP/1.1 with no `Connection` but `keep-alive`, so it keeps the connection open,
    /// which `ExchangeHandler` knows without looking at its headers again (NIO's `isKeepAlive` copies and
    /// lowercases every `Connection` value of a head its own parser did not read).
    fileprivate(set) var handedOver = false
    /// What the common head handed on last says, until `ExchangeHandler` takes it as it reads that head: what it
    /// would otherwise look for in the head's headers.
    fileprivate var common: CommonHeadFacts?
    /// The connection's `ExchangeHandler`, next to the decoder in the pipeline, while it is there: a common response
    /// that has all come is handed to it whole (`ExchangeHandler.readCommon`). It holds this object, and lets go of
    /// itself here when it leaves the pipeline.
    var reader: ExchangeHandler?

    /// Takes what the common head being read says; nil for a head NIO's decoder read.
    func takeCommon() -> CommonHeadFacts? {
        defer { common = nil }
        return common
    }

    init() {}

    /// A request's head is being written.
    func wrote(_ method: HTTPMethod) {
        methods.append(method)
    }

    /// Tells NIO's decoder of the requests in flight, as its handler would have told it of their writes.
    fileprivate func handOver(to decoder: HTTPResponseDecoder) {
        guard !methods.isEmpty else { return }
        for method in methods {
            decoder.write(data: .head(HTTPRequestHead(version: .http1_1, method: method, uri: "/")))
        }
        methods.removeAll(keepingCapacity: true)
    }
}

/// What `ExchangeHandler` reads of a common head, told by `CommonResponseDecoder` (`RequestsInFlight.takeCommon`).
struct CommonHeadFacts {
    /// The head's number on its connection: a head with the same number is the same head, byte for byte.
    let id: UInt64
    /// Whether it says `Content-Encoding`.
    let encoded: Bool
    /// Its `Content-Length`.
    let length: Int
}

/// The reading of a common response's head (`CommonResponseDecoder`).
enum CommonHead: Equatable {
    /// Not a common response: NIO's decoder reads it.
    case uncommon
    /// A common head, and its body's length.
    case common(HTTPResponseHead, bodyLength: Int)

    /// How much longer than NIO's header limit a head may be before the search for its end stops (its status
    /// line, and the line ends).
    static let statusLineAllowance = 8 * 1024

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let statusLinePrefix = Array("HTTP/1.1 ".utf8)

    /// The size of the head at the start of `bytes` with its blank line, once it has all come; the search starts
    /// at `searched`, where an earlier one stopped.
    static func end(of bytes: ByteBufferView, searchedFrom searched: Int) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            var at = max(searched, 3)
            while at < raw.count {
                if raw[at] == lf, raw[at - 1] == cr, raw[at - 2] == lf, raw[at - 3] == cr { return at + 1 }
                at += 1
            }
            return nil
        }
    }

    /// Reads a whole head, blank line included, for a response to a request other than HEAD and CONNECT.
    static func read(_ bytes: ByteBufferView, limits: NIOHTTPDecoderLimitConfiguration) -> CommonHead {
        bytes.withUnsafeBytes { raw in read(raw, limits: limits) }
    }

    private static func read(_ raw: UnsafeRawBufferPointer, limits: NIOHTTPDecoderLimitConfiguration) -> CommonHead {
        // The status line: HTTP/1.1, a status of three digits, then a blank and a reason, or nothing.
        let prefixLength = statusLinePrefix.count
        guard raw.count > prefixLength + 3 else { return .uncommon }
        for index in 0..<prefixLength where raw[index] != statusLinePrefix[index] { return .uncommon }
        var status = 0
        for index in prefixLength..<(prefixLength + 3) {
            let digit = raw[index] &- UInt8(ascii: "0")
            guard digit <= 9 else { return .uncommon }
            status = status * 10 + Int(digit)
        }
        guard (200...599).contains(status), status != 204, status != 304 else { return .uncommon }
        var at = prefixLength + 3
        if raw[at] == space {
            at += 1
            while at < raw.count, isFieldByte(raw[at]) { at += 1 }
        }
        guard var lineStart = lineEnd(raw, at) else { return .uncommon }
        // The header lines, up to the blank line.
        // The fields, made into `HTTPHeaders` at once: `HTTPHeaders.add` checks each name is ASCII again, and
        // every name here is a token.
        var fields: [(String, String)] = []
        fields.reserveCapacity(16)
        var length: Int?
        var total = 0
        while lineEnd(raw, lineStart) == nil {
            at = lineStart
            while at < raw.count, HeaderLine.isTokenByte(raw[at]) { at += 1 }
            guard at > lineStart, at < raw.count, raw[at] == UInt8(ascii: ":") else { return .uncommon }
            let name = UnsafeRawBufferPointer(rebasing: raw[lineStart..<at])
            at += 1
            while at < raw.count, raw[at] == space || raw[at] == tab { at += 1 }
            let valueStart = at
            while at < raw.count, isFieldByte(raw[at]) { at += 1 }
            guard let next = lineEnd(raw, at) else { return .uncommon }
            // Blanks at the end of a value stay in it, as NIO's decoder keeps them.
            let value = UnsafeRawBufferPointer(rebasing: raw[valueStart..<at])
            let size = name.count + value.count
            total += size
            guard size <= limits.maxHeaderFieldSize, total <= limits.maxHeaderListSize,
                fields.count < limits.maxHeaderFieldCount
            else { return .uncommon }
            switch name.count {
            case 17 where equalsIgnoringCase(name, transferEncoding):
                return .uncommon
            // `Connection: close` ends the connection after this response: NIO's decoder then refuses any byte
            // that follows, so such a response is its to read, as is any other `Connection` or `Proxy-Connection`
            // value its parser weighs. `keep-alive`, which every kept-alive answer of nginx carries, means nothing
            // in HTTP/1.1.
            case 16 where equalsIgnoringCase(name, proxyConnection):
                return .uncommon
            case 10 where equalsIgnoringCase(name, connection):
                guard equalsIgnoringCase(value, keepAlive) else { return .uncommon }
            case 14 where equalsIgnoringCase(name, contentLength):
                guard length == nil, (1...18).contains(value.count) else { return .uncommon }
                var parsed = 0
                for byte in value {
                    let digit = byte &- UInt8(ascii: "0")
                    guard digit <= 9 else { return .uncommon }
                    parsed = parsed * 10 + Int(digit)
                }
                length = parsed
            default:
                break
            }
            fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            lineStart = next
        }
        guard let length else { return .uncommon }
        return .common(
            HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: HTTPHeaders(fields)),
            bodyLength: length)
    }

    private static let transferEncoding = Array("transfer-encoding".utf8)
    private static let proxyConnection = Array("proxy-connection".utf8)
    private static let connection = Array("connection".utf8)
    private static let keepAlive = Array("keep-alive".utf8)
    private static let contentLength = Array("content-length".utf8)

    /// Whether `bytes` are `lowercase`, ASCII letters in any case.
    private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if lowered != lowercase[index] { return false }
        }
        return true
    }

    /// The index after the CRLF at `at`, when there is one there.
    private static func lineEnd(_ raw: UnsafeRawBufferPointer, _ at: Int) -> Int? {
        at + 1 < raw.count && raw[at] == cr && raw[at + 1] == lf ? at + 2 : nil
    }

    /// A byte of a field value or a reason: visible, a blank, or above ASCII.
    private static func isFieldByte(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || (byte >= 0x21 && byte != 0x7F)
    }
}
