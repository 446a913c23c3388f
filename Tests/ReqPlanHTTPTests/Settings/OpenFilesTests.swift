#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NIOCore
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// A connection refused for want of files (`EMFILE`) says so, with the limit, wherever SwiftNIO reports it:
/// opening the socket (a connect failure) or later. (`OpenFileLimitTests` runs reqplan under a real limit.)
@Suite(.timeSensitive) struct OpenFilesTests {
    let context = TransportError.Context(
        host: "api.example.com", timeout: nil, connectTimeout: .seconds(10), limit: 1 << 20)

    @Test func tooManyOpenFilesNamesTheLimitAndWhatToDo() throws {
        let limit = try #require(OpenFiles.limit, "this process has a limit on open files")
        let expected = TransportError(
            .connect,
            "could not connect to api.example.com: reqplan has as many files open as it may "
                + "(\(limit), the limit `ulimit -n` shows); lower the concurrency, or raise the limit")
        let error = IOError(errnoCode: EMFILE, reason: "socket")
        #expect(TransportError.connectFailure(error, context) == expected)
        #expect(TransportError.classify(error, context) == expected)
        #expect(OpenFiles.connectionBudget == max(1, limit - OpenFiles.reserved))
    }

    @Test func anotherSystemErrorKeepsTheSystemsWords() {
        let error = IOError(errnoCode: ENOBUFS, reason: "socket")
        #expect(
            TransportError.connectFailure(error, context).message
                == "could not connect to api.example.com: no buffer space available")
    }
}
