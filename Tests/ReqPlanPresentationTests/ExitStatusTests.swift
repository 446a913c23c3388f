import ReqPlanRuntime
import Testing

@testable import ReqPlanPresentation

/// The one mapping from how a run ended to the numbers the command line and the reports show.
struct ExitStatusTests {
    @Test func eachVerdictHasItsOwnCodeAndReadsBack() {
        #expect(RunVerdict.allCases.map(\.exitCode) == [0, 1, 2, 130])
        for verdict in RunVerdict.allCases { #expect(RunVerdict(exitCode: verdict.exitCode) == verdict) }
        // A report from elsewhere with a code reqplan does not give counts as failed.
        #expect(RunVerdict(exitCode: 7) == .failed)
    }

    @Test func theWorstVerdictWins() {
        #expect([RunVerdict.passed, .interrupted, .failed, .invalid].max() == .interrupted)
        #expect([RunVerdict.passed, .failed, .invalid].max() == .invalid)
        #expect([RunVerdict.passed, .failed].max() == .failed)
    }
}
