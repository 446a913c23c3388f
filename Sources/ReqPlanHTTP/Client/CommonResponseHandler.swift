import NIOCore
import NIOHTTP1

/// The handler that runs an HTTP/1.1 connection's `CommonResponseDecoder`: NIO's `ByteToMessageHandler`, written
/// out for this one decoder.
///
/// NIO's handler is generic and not inlinable, so each time it calls the decoder it looks up the decoder's type
/// metadata and copies the decoder through its value witnesses at run time. A load reads one small response per
/// read, and that was a tenth of the client's CPU per request (BENCHMARKS.md, "Load"). This one keeps NIO's
/// handler's contract with the decoder, step by step (`ByteToMessageHandler` and `B2MDBuffer` in NIOCore's
/// `Codec.swift`):
/// - the bytes read are gathered, and the decoder is called on them for as long as it says `.continue`; bytes it has
///   read are let go when it needs more and NIO's rule says they are worth reclaiming;
/// - a decoder's error is passed on once, and a read after it passes on
///   `ByteToMessageDecoderError.dataReceivedInErrorState`;
/// - at the connection's end, or its input's, the decoder's `decodeLast` is called with `seenEOF`, even with no
///   bytes left. When that end comes while a read is being decoded (a handler after this one closed the
///   connection), the last decoding waits for the read's to end;
/// - a read that comes while one is being decoded is gathered, and decoded by the loop already running;
/// - `decoderAdded` and `decoderRemoved` are called as the handler joins and leaves the pipeline.
///
/// Left out, as reqplan's connections never use them: the observation of writes (the decoder learns each request's
/// method from `RequestsInFlight`), a bound on the bytes gathered, and removal from a pipeline still in use.
/// `CommonResponseDecoderTests` and the `http1-response` fuzz target hold this handler and its decoder to NIO's
/// handler running NIO's decoder, byte for byte and error for error.
final class CommonResponseHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = HTTPClientResponsePart

    private enum State {
        case active
        /// The connection ended while a read was being decoded: its last decoding is still to come.
        case leftoversNeedProcessing
        case done
        case error(any Error)

        var isActive: Bool {
            if case .active = self { return true }
            return false
        }
    }

    /// What a call of the decoder did.
    private enum Decoded {
        /// Nothing: the decoder is already running, further up the stack.
        case reentered
        case decoded(DecodingState)
    }

    /// Nil while the decoder runs, as in NIO's handler: it is taken out of the handler for the run, so a call that
    /// comes back here meanwhile (a read, or the connection's end, passed in by a handler after this one) finds it
    /// gone and leaves it alone, and no access to the handler's own property spans the run.
    private var decoder: CommonResponseDecoder?
    private var state = State.active
    /// The bytes read and not decoded yet, with any read while the decoder runs.
    private var gathered: ByteBuffer?
    private var seenEOF = false
    private var removed = false

    init(_ decoder: CommonResponseDecoder) {
        self.decoder = decoder
    }

    func handlerAdded(context: ChannelHandlerContext) {
        decoder?.decoderAdded(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        if case .active = state { state = .done }
        if case .leftoversNeedProcessing = state { state = .done }
        decoder?.decoderRemoved(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if case .error(let error) = state {
            context.fireErrorCaught(ByteToMessageDecoderError.dataReceivedInErrorState(error, bytes))
            return
        }
        gather(bytes)
        do {
            guard case .decoded = try decodeLoop(context: context, last: false),
                case .leftoversNeedProcessing = state
            else { return }
            // The connection ended during that read's decoding: now its last decoding runs.
            _ = try decodeLoop(context: context, last: true)
            state = .done
        } catch {
            state = .error(error)
            context.fireErrorCaught(error)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        seenEOF = true
        processLeftovers(context: context)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .some(.inputClosed) {
            seenEOF = true
            processLeftovers(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func gather(_ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0 else { return }
        if var waiting = gathered, waiting.readableBytes > 0 {
            gathered = nil
            var bytes = bytes
            waiting.writeBuffer(&bytes)
            gathered = waiting
        } else {
            gathered = bytes
        }
    }

    /// The decoding at the connection's end, unless it ran already or a read's decoding is under way.
    private func processLeftovers(context: ChannelHandlerContext) {
        guard state.isActive else { return }
        do {
            switch try decodeLoop(context: context, last: true) {
            case .decoded: state = .done
            case .reentered: state = .leftoversNeedProcessing
            }
        } catch {
            state = .error(error)
            context.fireErrorCaught(error)
        }
    }

    /// Calls the decoder for as long as it says `.continue` (`decodeLast` when `last`, at least once).
    private func decodeLoop(context: ChannelHandlerContext, last: Bool) throws -> Decoded {
        var allowEmpty = last
        while (state.isActive && !removed) || last {
            let decoded = try decodeOnce(context: context, last: last, allowEmpty: allowEmpty)
            allowEmpty = false
            switch decoded {
            case .decoded(.continue): continue
            case .decoded(.needMoreData), .reentered: return decoded
            }
        }
        return .decoded(.continue)
    }

    /// One call of the decoder on the bytes gathered (on none only when `allowEmpty`).
    private func decodeOnce(context: ChannelHandlerContext, last: Bool, allowEmpty: Bool) throws -> Decoded {
        guard decoder != nil else { return .reentered }
        var buffer: ByteBuffer
        if let waiting = gathered, waiting.readableBytes > 0 || allowEmpty {
            buffer = waiting
        } else if allowEmpty {
            buffer = context.channel.allocator.buffer(capacity: 0)
        } else {
            return .decoded(.needMoreData)
        }
        gathered = nil
        var running: CommonResponseDecoder? = nil
        swap(&running, &decoder)
        // Whether the decoder asked for more (not when it threw): then the bytes it read may be let go.
        var needsMore = false
        defer {
            swap(&running, &decoder)
            if needsMore, buffer.readableBytes > 0, decoder?.shouldReclaimBytes(buffer: buffer) == true {
                buffer.discardReadBytes()
            }
            // What came while the decoder ran goes after what it left.
            if let later = gathered {
                gathered = buffer
                gather(later)
            } else {
                gathered = buffer
            }
        }
        // `running` is the decoder, checked above: mutated where it is, not copied.
        let result =
            (last
                ? try running?.decodeLast(context: context, buffer: &buffer, seenEOF: seenEOF)
                : try running?.decode(context: context, buffer: &buffer)) ?? .needMoreData
        needsMore = result == .needMoreData
        return .decoded(result)
    }
}
