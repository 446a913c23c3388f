import Foundation
import ReqPlanTestSupport
import Testing

/// Numbers on the command line at their limits (HOSTILE.md, "Numbers"): each option that takes one refuses a
/// number out of its range as a usage error (64), or runs with it; none crashes.
@Suite(.timeSensitive) struct CommandLineNumbersTests {
    static let options: [[String]] = [
        ["--max-plan-size"], ["--max-response-size"], ["--concurrency"], ["--jobs"], ["--connect-timeout"],
        ["--shard"],
    ]
    static let values = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615", "0", "1e300",
        "inf", "nan", "99999999999999999999999h", "4000000000/4000000001",
    ]

    @Test(arguments: options)
    func aNumberAtItsLimitsIsRefusedOrTakenNeverACrash(_ option: [String]) async throws {
        let plan = try CommandRunner.temporaryPlan(
            "reqplan: 1\nsteps:\n  a: { request: { url: \"http://127.0.0.1:1/x\" } }\n")
        for value in Self.values {
            let result = try await CommandRunner.run(
                ["run", plan.path, "--progress", "none"] + option + [value], within: .seconds(60))
            #expect(!result.uncaughtSignal && !result.killedAfterTimeout, "\(option) \(value): \(result)")
            #expect([1, 2, 64].contains(result.status), "\(option) \(value): \(result.status) \(result.stderr)")
        }
    }

    /// A load's durations are the language's, at most 7 days: past that the message says so, where it once asked
    /// for "a duration such as 30s" of `999999s`.
    @Test func aLoadLongerThanSevenDaysIsRefusedSayingSo() async throws {
        let plan = try CommandRunner.temporaryPlan(
            "reqplan: 1\nsteps:\n  a: { request: { url: \"http://127.0.0.1:1/x\" } }\n")
        for (option, value) in [("--duration", "999999s"), ("--duration", "169h"), ("--warm-up", "10081m")] {
            let result = try await CommandRunner.run(
                ["load", plan.path, "--users", "1", "--duration", "1s", option, value], within: .seconds(30))
            #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("\(option) is at most 7 days (168h), not `\(value)`"), "\(result.stderr)")
        }
    }

    @Test func aPortPastSixteenBitsIsRefused() async throws {
        let result = try await CommandRunner.run(["demo", "--serve", "99999"], within: .seconds(30))
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("--serve is a port from 0"), "\(result.stderr)")
    }
}
