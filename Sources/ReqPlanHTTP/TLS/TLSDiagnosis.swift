import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import ReqPlanTransport

/// Why a TLS connection failed, in words a person knows: unknown issuer, expired, not yet valid,
/// host name mismatch (and a certificate without subject alternative names), a client certificate
/// wanted or refused, no TLS version or cipher in common, not a TLS server (plain HTTP, or another protocol).
///
/// NIOSSL tells only the host name mismatch apart by type (`NIOSSLExtraError.failedToValidateHostname`).
/// Every certificate BoringSSL rejects (untrusted, expired, not yet valid) fails the handshake with the
/// same error, BoringSSL's reason code is only in an error's text, and a client certificate the server
/// wants fails like a cipher mismatch over TLS 1.2. So after a TLS failure reqplan connects again, at
/// most twice, and tells the causes apart by what each handshake does, never by error text:
///
/// 1. a handshake that accepts any server certificate and keeps it: one that fails before the server
///    sent a certificate means not a TLS server, when the server's first bytes are not a TLS record (plain
///    HTTP told apart: an `https://` URL for an `http://` server), else no TLS version or cipher in common
///    when the server refused with a TLS alert, else nothing known (it closed the connection); a certificate
///    out of its validity dates is expired or not yet valid;
/// 2. a handshake with the run's own verification, offering a certificate whose key only records that
///    the server asked for it (the key signs nothing, so the handshake stops there). A client verifies
///    the server's certificate before it sends its own, so the server asking means the certificate
///    passed and the server wants a client certificate (or, when the run gives one, did not accept
///    it); failing without being asked, when the first handshake got through, means the certificate
///    is not trusted.
package enum TLSDiagnosis {
    /// A cause of a TLS failure.
    package enum Cause: Equatable, Sendable {
        /// The server's certificate was issued by an authority not trusted here.
        case untrusted
        /// The server's certificate (or one of its chain) expired on that date.
        case expired(Date)
        /// The server's certificate (or one of its chain) is valid only from that date.
        case notYetValid(Date)
        /// The certificate does not name the host.
        case hostMismatch
        /// The certificate has no subject alternative name: its subject CN names the host only
        /// (never matched against an IP address; RFC 6125 deprecates it for names too), or another
        /// host. `host` is the host the request was for, `isAddress` whether it is an IP address.
        case noSubjectAlternativeName(host: String, isAddress: Bool)
        /// The server wants a client certificate and none was given.
        case clientCertificateWanted
        /// The server did not accept the client certificate given.
        case clientCertificateRefused
        /// The handshake failed before any certificate: no TLS version or cipher in common.
        case handshakeFailed
        /// The server answered the handshake with something other than TLS: plain HTTP (`plainHTTP`; an
        /// `https://` URL for an `http://` server, or the port of its plain listener), or another protocol.
        case notTLS(plainHTTP: Bool)
        /// The TLS handshake did not end in time.
        case handshakeTimedOut
        /// A TLS failure whose cause the probes could not tell.
        case unknown
    }

    /// Whether `error` is a failure of TLS itself (as opposed to the connection or HTTP).
    static func isTLSFailure(_ error: any Error) -> Bool {
        switch error {
        case NIOSSLError.uncleanShutdown: false  // a connection closed, worded as such
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError: true
        default: false
        }
    }

    /// The cause of `error`, a TLS failure connecting to `host`:`port` with `configuration`.
    /// - Parameters:
    ///   - error: the error the TLS connection failed with (`isTLSFailure`).
    ///   - host: the host as in the URL (a name or an IP address).
    ///   - port: the port.
    ///   - configuration: the run's TLS configuration.
    ///   - connectTimeout: the longest each probe may take to connect and shake hands.
    ///   - deadline: the attempt's deadline, which the probes keep to.
    ///   - group: the event loops to probe on.
    /// - Returns: the cause; `.unknown` when the probes cannot tell (the host went away, the attempt's
    ///   time ran out, the task was cancelled).
    static func cause(
        of error: any Error, host: String, port: Int, configuration: TLSConfiguration, connectTimeout: TimeAmount,
        deadline: NIODeadline? = nil, group: any EventLoopGroup
    ) async -> Cause {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return await hostMismatch(
                host: host, port: port, configuration: configuration, timeout: connectTimeout, deadline: deadline,
                group: group)
        }
        let clientCertificateGiven = !configuration.certificateChain.isEmpty
        // 1. Any certificate accepted, and kept (the callback is called only when verification is on).
        var anyCertificate = configuration
        anyCertificate.certificateVerification = .noHostnameVerification
        let lenient = await probe(
            host: host, port: port, configuration: anyCertificate, acceptingAnyCertificate: true,
            timeout: connectTimeout, deadline: deadline, group: group)
        guard let lenient else { return .unknown }
        // No certificate: the server answered in another protocol, refused the handshake (a TLS alert), or closed
        // the connection, which says nothing of TLS (a server shedding load closes connections too).
        guard let chain = lenient.serverCertificates else {
            switch lenient.answer {
            case .plainHTTP: return .notTLS(plainHTTP: true)
            case .other: return .notTLS(plainHTTP: false)
            case .tls, .nothing: return lenient.ending == .refused ? .handshakeFailed : .unknown
            }
        }
        let now = time(nil)
        for certificate in chain {
            if now > certificate.notValidAfter {
                return .expired(Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter)))
            }
            if now < certificate.notValidBefore {
                return .notYetValid(Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore)))
            }
        }
        // Without verification, the certificate cannot be the cause.
        guard configuration.certificateVerification != .none else {
            guard lenient.askedForCertificate else { return .unknown }
            return clientCertificateGiven ? .clientCertificateRefused : .clientCertificateWanted
        }
        // 2. The run's verification, and a certificate that records being asked for.
        let strict = await probe(
            host: host, port: port, configuration: configuration, acceptingAnyCertificate: false,
            timeout: connectTimeout, deadline: deadline, group: group)
        guard let strict else { return .unknown }
        if strict.askedForCertificate {
            return clientCertificateGiven ? .clientCertificateRefused : .clientCertificateWanted
        }
        if strict.ending == .refused { return .untrusted }
        return .unknown
    }

    /// Why the certificate of `host`:`port` does not name the host: it has no subject alternative
    /// name at all (a certificate naming its host in the subject CN only), or it names others.
    private static func hostMismatch(
        host: String, port: Int, configuration: TLSConfiguration, timeout: TimeAmount, deadline: NIODeadline?,
        group: any EventLoopGroup
    ) async -> Cause {
        var anyCertificate = configuration
        anyCertificate.certificateVerification = .noHostnameVerification
        let lenient = await probe(
            host: host, port: port, configuration: anyCertificate, acceptingAnyCertificate: true,
            timeout: timeout, deadline: deadline, group: group)
        // NIOSSL reads the names as its own host name check does (`_subjectAlternativeNames`, its one
        // way to them); `description` would give them only as text.
        guard let leaf = lenient?.serverCertificates?.first, leaf._subjectAlternativeNames().isEmpty else {
            return .hostMismatch
        }
        return .noSubjectAlternativeName(
            host: host, isAddress: (try? SocketAddress(ipAddress: host, port: port)) != nil)
    }

    // MARK: - Probes

    /// What one probing handshake saw.
    struct Outcome {
        /// The certificates the server presented, when the handshake got that far (only when
        /// accepting any certificate).
        var serverCertificates: [NIOSSLCertificate]?
        /// Whether the server asked for a client certificate.
        var askedForCertificate: Bool
        /// How the handshake ended.
        var ending: Ending
        /// What the server's first bytes were.
        var answer: FirstAnswer
    }

    /// What a server's first bytes on a connection are: a TLS record (its content type, 20 to 23, first), the
    /// start of an HTTP response, something else, or nothing at all.
    enum FirstAnswer: Sendable {
        case nothing, tls, plainHTTP, other

        init(_ bytes: ByteBuffer) {
            let view = bytes.readableBytesView
            guard let first = view.first else {
                self = .nothing
                return
            }
            if (20...23).contains(first) {
                self = .tls
            } else {
                self = view.starts(with: "HTTP/".utf8) ? .plainHTTP : .other
            }
        }
    }

    /// How a probe's handshake ended.
    enum Ending {
        case completed
        /// With a TLS failure: an alert from the server, or the client's own refusal (its verification).
        case refused
        /// The connection closed or failed before the handshake ended, with no TLS failure.
        case closed
    }

    /// Shakes hands with `host`:`port` and closes the connection; nil when it cannot connect or
    /// finish in time, or the task is cancelled.
    private static func probe(
        host: String, port: Int, configuration: TLSConfiguration, acceptingAnyCertificate: Bool, timeout: TimeAmount,
        deadline: NIODeadline?, group: any EventLoopGroup
    ) async -> Outcome? {
        let timeout = deadline.map { min(timeout, $0 - .now()) } ?? timeout
        guard timeout > .zero, !Task.isCancelled else { return nil }
        let record = ProbeRecord()
        var configuration = configuration
        // A client certificate whose key records the server asking for it and refuses to sign.
        configuration.certificateChain = ProbeIdentity.certificate.map { [.certificate($0)] } ?? []
        configuration.privateKey = .privateKey(NIOSSLPrivateKey(customPrivateKey: ProbeIdentity.Key(record: record)))
        let isAddress = (try? SocketAddress(ipAddress: host, port: port)) != nil
        let serverName = isAddress ? nil : host
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            return nil
        }
        let loop = group.next()
        let finished = loop.makePromise(of: Ending.self)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler: NIOSSLClientHandler
                    if acceptingAnyCertificate {
                        handler = try NIOSSLClientHandler(
                            context: context, serverHostname: serverName,
                            customVerificationCallback: { certificates, promise in
                                record.serverCertificates = certificates
                                promise.succeed(.certificateVerified)
                            })
                    } else {
                        handler = try NIOSSLClientHandler(context: context, serverHostname: serverName)
                    }
                    try channel.pipeline.syncOperations.addHandler(FirstBytesWatcher(record: record))
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(finished: finished))
                }
            }
        // The probe ends at its first outcome, at its time limit, or when the task is cancelled; a
        // connection made after that is closed.
        let timer = loop.scheduleTask(in: timeout) { finished.fail(ChannelError.connectTimeout(timeout)) }
        let connected = bootstrap.connect(host: host, port: port)
        connected.whenFailure { finished.fail($0) }
        finished.futureResult.whenComplete { _ in
            timer.cancel()
            connected.whenSuccess { $0.close(promise: nil) }
        }
        do {
            let ending = try await withTaskCancellationHandler {
                try await finished.futureResult.get()
            } onCancel: {
                finished.fail(CancellationError())
            }
            return Outcome(
                serverCertificates: record.serverCertificates, askedForCertificate: record.asked, ending: ending,
                answer: record.answer)
        } catch {
            return nil
        }
    }

    /// Answers `finished` with how the handshake ended, at its first outcome.
    private final class HandshakeWatcher: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let finished: EventLoopPromise<Ending>

        init(finished: EventLoopPromise<Ending>) {
            self.finished = finished
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted = event as? TLSUserEvent { finished.succeed(.completed) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // NIOSSL words a close before the handshake ended as a handshake failure (`eofDuringHandshake`).
            if case NIOSSLError.handshakeFailed(.sslError(let stack)) = error, !stack.contains(.eofDuringHandshake) {
                finished.succeed(.refused)
            } else {
                finished.succeed(.closed)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            finished.succeed(.closed)
            context.fireChannelInactive()
        }
    }

    /// Records what the server's first bytes are (`FirstAnswer`), before TLS reads them.
    /// Passes every read on: a handler removed in the middle of a read would drop what it passes after.
    private final class FirstBytesWatcher: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let record: ProbeRecord
        private var seen = false

        init(record: ProbeRecord) {
            self.record = record
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if !seen {
                let bytes = unwrapInboundIn(data)
                if bytes.readableBytes > 0 {
                    seen = true
                    record.answer = FirstAnswer(bytes)
                }
            }
            context.fireChannelRead(data)
        }
    }

    /// What the probe's callbacks learn; written on the connection's event loop, read after it closed.
    final class ProbeRecord: Sendable {
        private let state = NIOLockedValueBox<(certificates: [NIOSSLCertificate]?, asked: Bool, answer: FirstAnswer)>(
            (nil, false, .nothing))

        var answer: FirstAnswer {
            get { state.withLockedValue { $0.answer } }
            set { state.withLockedValue { $0.answer = newValue } }
        }

        var serverCertificates: [NIOSSLCertificate]? {
            get { state.withLockedValue { $0.certificates } }
            set { state.withLockedValue { $0.certificates = newValue } }
        }

        var asked: Bool {
            get { state.withLockedValue { $0.asked } }
            set { state.withLockedValue { $0.asked = newValue } }
        }
    }
}

/// The client certificate a probe offers to learn whether the server asks for one. It proves
/// nothing and nobody trusts it; its key refuses to sign, so the handshake stops when it is used.
enum ProbeIdentity {
    static let certificate = try? NIOSSLCertificate(
        bytes: Array(
            """
            -----BEGIN CERTIFICATE-----
            MIIBjzCCATWgAwIBAgIUd02orUoqi0M8L9+A85HT45dIpi4wCgYIKoZIzj0EAwIw
            HDEaMBgGA1UEAwwRcmVxcGxhbiBUTFMgcHJvYmUwIBcNMjYxMTIyMjEwODA5WhgP
            MjEyNjEwMjkyMTA4MDlaMBwxGjAYBgNVBAMMEXJlcXBsYW4gVExTIHByb2JlMFkw
            EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEd2uUSRFb809vpjtWJmWiimSCF+ufXdFM
            U0qn1au11T9PPfTCkhazLpiNSktC4OGeq0SQCRVpONmCk1PxJbRHnaNTMFEwHQYD
            VR0OBBYEFKOVPASEGufPHeLviN6mRKOVPkgbMB8GA1UdIwQYMBaAFKOVPASEGufP
            HeLviN6mRKOVPkgbMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIh
            AOX7H+eydkZcSW40MU5rvN3hXoqeb2uvrwA96ke/k0OvAiA43W5s5t5KinsH9Jn7
            CpKYyZYXaIgnq7PZ6S/MJJ4KGw==
            -----END CERTIFICATE-----
            """.utf8), format: .pem)

    /// Why the probe's key signs nothing.
    struct Refused: Error {}

    /// A P-256 key that records being asked to sign and refuses.
    struct Key: NIOSSLCustomPrivateKey, Hashable {
        let record: TLSDiagnosis.ProbeRecord

        var signatureAlgorithms: [SignatureAlgorithm] { [.ecdsaSecp256R1Sha256] }

        func sign(channel: any Channel, algorithm: SignatureAlgorithm, data: ByteBuffer) -> EventLoopFuture<ByteBuffer>
        {
            record.asked = true
            return channel.eventLoop.makeFailedFuture(Refused())
        }

        func decrypt(channel: any Channel, data: ByteBuffer) -> EventLoopFuture<ByteBuffer> {
            channel.eventLoop.makeFailedFuture(Refused())
        }

        static func == (a: Key, b: Key) -> Bool { a.record === b.record }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(record)) }
    }
}
