#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import ReqPlanTransport

/// Why a request got no response, worded once for both clients: every error either client (or
/// SwiftNIO, AsyncHTTPClient, NIOSSL under them) throws is told apart by its type, never by its text,
/// and each cause has one sentence naming the host.
extension TransportError {
    /// What a failure is worded with.
    struct Context {
        /// The host as the URL names it (with its port, if the URL has one).
        var host: String
        /// The attempt's deadline, if any.
        var timeout: Duration?
        /// The time allowed to connect.
        var connectTimeout: Duration
        /// The largest response body accepted.
        var limit: Int
    }

    /// The failure `error` stands for; TLS failures are worded by `tls(_:_:)` once diagnosed.
    /// - Parameters:
    ///   - error: what `ReqPlanClient`, AsyncHTTPClient, SwiftNIO or NIOSSL threw.
    ///   - context: the request's host, deadline and limits.
    ///   - responseStarted: whether any of the response had arrived (a connection closed before
    ///     reads as reset, after it as closed early).
    static func classify(_ error: any Error, _ context: Context, responseStarted: Bool = false) -> TransportError {
        let host = context.host
        switch error {
        case let error as TransportError:
            return error
        case is CancellationError:
            return .cancelled
        case let failure as ReqPlanClient.ClientError:
            switch failure {
            case .connect(let cause): return connectFailure(cause, context)
            case .tls(let cause):
                // Diagnosed by the transport when it is TLS's own failure; else the connection's.
                return TLSDiagnosis.isTLSFailure(cause) ? .tls(host, .unknown) : classify(cause, context)
            case .tlsHandshakeTimeout: return .tls(host, .handshakeTimedOut)
            case .proxyRefused(let status):
                return TransportError(.connect, "the proxy refused CONNECT to \(host) with \(status)")
            case .proxyHandshakeFailed: return TransportError(.connect, "the proxy did not open a tunnel to \(host)")
            case .timeout: return .timedOut(host, after: context.timeout)
            case .cancelled: return .cancelled
            case .closed(let early): return early ? .reset(host) : .closedEarly(host)
            case .unprocessed: return .reset(host)
            case .tooLarge: return .tooLarge(host, limit: context.limit)
            case .invalid(let cause): return classify(cause, context, responseStarted: true)
            }
        case let error as HTTPClientError:
            switch error {
            case .cancelled: return .cancelled
            case .deadlineExceeded, .readTimeout, .writeTimeout: return .timedOut(host, after: context.timeout)
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return .connectTimedOut(host, after: context.connectTimeout)
            case .remoteConnectionClosed, .uncleanShutdown:
                return responseStarted ? .closedEarly(host) : .reset(host)
            case .tlsHandshakeTimeout: return .tls(host, .handshakeTimedOut)
            case .invalidURL, .emptyHost, .emptyScheme: return .invalidURL(host)
            case .traceRequestWithBody: return .traceWithBody
            case .identityCodingIncorrectlyPresent, .contentLengthMissing:
                return .invalidResponse(host)
            default: return .failed(host, "\(error)")
            }
        case is ResponseCollector.TooLarge, is NIOTooManyBytesError:
            return .tooLarge(host, limit: context.limit)
        case HTTPParserError.invalidEOFState:
            // The connection closed in the middle of the response.
            return responseStarted ? .closedEarly(host) : .reset(host)
        case is HTTPParserError:
            return .invalidResponse(host)
        case is NIOHTTP2Errors.StreamClosed, is NIOHTTP2Errors.IOOnClosedConnection:
            // The server reset the request's HTTP/2 stream, or the connection under it closed.
            return responseStarted ? .closedEarly(host) : .reset(host)
        case is any NIOHTTP2Error:
            return .invalidResponse(host)
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError:
            return TransportError(.other, "the response body from \(host) could not be decompressed")
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return .connectTimedOut(host, after: context.connectTimeout)
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return responseStarted ? .closedEarly(host) : .reset(host)
            default: return .failed(host, "\(error)")
            }
        case is NIOConnectionError:
            return connectFailure(error, context)
        case NIOSSLError.uncleanShutdown:
            // The server closed the connection without ending TLS first.
            return responseStarted ? .closedEarly(host) : .reset(host)
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, ETIMEDOUT, EMFILE: return connectFailure(error, context)
            case ECONNRESET, EPIPE: return responseStarted ? .closedEarly(host) : .reset(host)
            default: return .failed(host, Self.systemMessage(error.errnoCode))
            }
        default:
            return .failed(host, "\(error)")
        }
    }

    /// Why a connection could not be made: `error` is SwiftNIO's (`NIOConnectionError`, `IOError`,
    /// `ChannelError.connectTimeout`).
    static func connectFailure(_ error: any Error, _ context: Context) -> TransportError {
        let host = context.host
        switch error {
        case let error as NIOConnectionError:
            // Every address tried failed: the first one's error says why; none tried: DNS did.
            if let first = error.connectionErrors.first { return connectFailure(first.error, context) }
            return TransportError(.connect, "could not resolve \(error.host)")
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return TransportError(.connect, "connection to \(host) refused")
            case ENETUNREACH, EHOSTUNREACH: return TransportError(.connect, "\(host) is unreachable")
            case ETIMEDOUT: return .connectTimedOut(host, after: context.connectTimeout)
            case EMFILE: return .tooManyOpenFiles(host, limit: OpenFiles.limit)
            default:
                return TransportError(.connect, "could not connect to \(host): \(Self.systemMessage(error.errnoCode))")
            }
        case ChannelError.connectTimeout:
            return .connectTimedOut(host, after: context.connectTimeout)
        case let failure as ReqPlanClient.ClientError:
            return classify(failure, context)
        default:
            return TransportError(.connect, "could not connect to \(host)")
        }
    }

    /// The system's words for `errno` ("Network is unreachable").
    static func systemMessage(_ code: CInt) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

/// The causes both clients share, worded once.
extension TransportError {
    package static let cancelled = TransportError(.cancelled, "cancelled")

    package static func timedOut(_ host: String, after timeout: Duration?) -> TransportError {
        TransportError(.timeout, "request to \(host) timed out" + (timeout.map { " after \(format($0))" } ?? ""))
    }

    package static func connectTimedOut(_ host: String, after timeout: Duration) -> TransportError {
        TransportError(.connect, "connecting to \(host) timed out after \(format(timeout))")
    }

    /// A connection refused for want of files: the process holds as many as its limit allows (`OpenFiles`).
    package static func tooManyOpenFiles(_ host: String, limit: Int?) -> TransportError {
        TransportError(
            .connect,
            "could not connect to \(host): reqplan has as many files open as it may"
                + (limit.map { " (\($0), the limit `ulimit -n` shows)" } ?? "")
                + "; lower the concurrency, or raise the limit")
    }

    package static func tooLarge(_ host: String, limit: Int) -> TransportError {
        TransportError(.bodyTooLarge, "the response from \(host) is larger than \(limit) bytes")
    }

    package static func reset(_ host: String) -> TransportError {
        TransportError(.reset, "connection to \(host) was reset")
    }

    package static func closedEarly(_ host: String) -> TransportError {
        TransportError(.reset, "connection to \(host) was closed before the response ended")
    }

    package static func invalidResponse(_ host: String) -> TransportError {
        TransportError(.other, "the response from \(host) is not valid HTTP")
    }

    package static func invalidURL(_ host: String) -> TransportError {
        TransportError(.other, "invalid URL for \(host)")
    }

    package static func failed(_ host: String, _ detail: String) -> TransportError {
        TransportError(.other, "request to \(host) failed: \(detail)")
    }

    /// A TLS failure in plain words.
    /// - Parameter names: how the settings that fix a failure are named (`--cacert`, `--insecure`).
    package static func tls(
        _ host: String, _ cause: TLSDiagnosis.Cause,
        names: ConnectionOptions.SettingNames = ConnectionOptions.SettingNames()
    ) -> TransportError {
        let message =
            switch cause {
            case .untrusted:
                "the TLS certificate of \(host) is not trusted: its issuer is unknown (a private CA or a self-signed certificate)"
            case .expired(let date):
                "the TLS certificate of \(host) expired on \(format(date))"
            case .notYetValid(let date):
                "the TLS certificate of \(host) is not valid until \(format(date))"
            case .hostMismatch:
                "the TLS certificate of \(host) is for another host name (host name mismatch)"
            case .noSubjectAlternativeName(let name, let isAddress):
                "the TLS certificate of \(host) has no subjectAltName, and its subject CN "
                    + (isAddress ? "is never matched against an IP address" : "is another host name")
                    + ": reissue it with `\(isAddress ? "IP" : "DNS"):\(name)` in a subjectAltName (its issuer "
                    + "trusted with \(names.caFile)), or turn certificate verification off (\(names.insecure))"
            case .clientCertificateWanted:
                "\(host) wants a TLS client certificate, and none was given"
            case .clientCertificateRefused:
                "\(host) did not accept the TLS client certificate"
            case .handshakeFailed:
                "the TLS handshake with \(host) failed: no TLS version or cipher suite in common"
            case .notTLS(plainHTTP: true):
                "\(host) answered in plain HTTP, not TLS: the URL may want `http://`, or the port of the server's TLS "
                    + "listener"
            case .notTLS(plainHTTP: false):
                "\(host) did not answer in TLS: is the port another protocol's?"
            case .handshakeTimedOut:
                "the TLS handshake with \(host) timed out"
            case .unknown:
                "TLS with \(host) failed"
            }
        return TransportError(.tls, message)
    }

    /// `10s`, `250ms`.
    package static func format(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }

    /// `2026-01-31 12:00:00 UTC`.
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }
}
