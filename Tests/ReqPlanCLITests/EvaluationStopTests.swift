import Foundation
import ReqPlanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Work a server chooses (HOSTILE.md, "Work that a server chooses"): a regular expression that backtracks
/// without end, a JSONPath filter that runs an absolute query per item, an XPath predicate with `//*` inside
/// `//*`, each on a body nginx serves. Whatever is being evaluated, a step's `timeout` and SIGINT end the run
/// within a second (the bounds below leave room for a loaded machine and the debug build), with the usual
/// state, reason and exit code.
@Suite("Evaluations a server's body makes long end with the run", .serialized, .timeSensitive)
struct EvaluationStopTests {
    /// An evaluator kept busy by a body: where it is written, and the body it reads.
    struct Busy: CustomTestStringConvertible, Sendable {
        var testDescription: String
        /// The plan's steps, `BASE` standing for nginx's address; its step `t` is the one kept busy.
        var steps: String
        var file: String
        /// Whether its steps are counted: it then stops at its budget (50,000,000 steps, well under a second),
        /// which may come before an interrupt (its cancellation is tested in process, `JSONPathTests`).
        var counted = false

        /// The plan, with `t`'s timeout when given.
        func plan(base: String, timeout: String?) -> String {
            "reqplan: 1\nsteps:\n"
                + steps.replacingOccurrences(of: "BASE", with: base).replacingOccurrences(
                    of: "TIMEOUT", with: timeout.map { "timeout: \($0), " } ?? "")
        }
    }

    /// `reqplan arguments…` at the lowest priority (`nice` replaces itself with it, so its pid is reqplan's):
    /// it keeps a core busy on purpose, and the suite's other tests, run beside it, must not starve.
    /// What an evaluation that ran to its own time limit (10 s) says, instead of the stop under test.
    static let ranToItsBudget = "the longest one evaluation may take"

    static func niced(_ arguments: [String]) -> (executable: URL, arguments: [String]) {
        (URL(fileURLWithPath: "/usr/bin/nice"), ["-n", "19", CommandRunner.binary.path] + arguments)
    }

    static let evaluators: [Busy] = [
        Busy(
            testDescription: "a `matches` matcher (ICU)",
            steps: """
                  t: { TIMEOUT request: { url: "BASE/files/aaa.txt" }, expect: { body: { $: { matches: "(a*)*b" } } } }

                """, file: "aaa.txt"),
        Busy(
            testDescription: "`match()` in a request (ICU)",
            steps: """
                  s: { request: { url: "BASE/files/aaa.txt" } }
                  t: { TIMEOUT request: { url: "BASE/json?m=${{ match(steps.s.body, '(a*)*b') }}" } }

                """, file: "aaa.txt"),
        Busy(
            testDescription: "a JSONPath filter with an absolute query per item",
            steps: """
                  s: { request: { url: "BASE/files/numbers.json" } }
                  t: { TIMEOUT request: { url: "BASE/json?n=${{ jsonpath(from_json(steps.s.body), '$[?count($[*]) > 1]') }}" } }

                """, file: "numbers.json", counted: true),
        Busy(
            testDescription: "a JSONPath `search()` (I-Regexp through ICU)",
            steps: """
                  s: { request: { url: "BASE/files/aaa.txt" } }
                  t: { TIMEOUT request: { url: "BASE/json?n=${{ jsonpath(steps.s, '$[?search(@, \\"(a*)*b\\")]') }}" } }

                """, file: "aaa.txt"),
        Busy(
            testDescription: "an XPath predicate with `//*` inside `//*`",
            steps: """
                  s: { request: { url: "BASE/files/elements.xml" } }
                  t: { TIMEOUT request: { url: "BASE/json?n=${{ xpath(steps.s.body, 'count(//*[count(//*) > 1])') }}" } }

                """, file: "elements.xml", counted: true),
    ]

    /// The bodies, written once into nginx's files folder.
    static func serve(_ nginx: Nginx) throws {
        let folder = nginx.filesFolder
        try Data(String(repeating: "a", count: 30_000).utf8).write(to: folder.appendingPathComponent("aaa.txt"))
        let numbers = "[" + (0..<100_000).map(String.init).joined(separator: ",") + "]"
        try Data(numbers.utf8).write(to: folder.appendingPathComponent("numbers.json"))
        let elements = "<r>" + String(repeating: "<e/>", count: 20_000) + "</r>"
        try Data(elements.utf8).write(to: folder.appendingPathComponent("elements.xml"))
    }

    @Test(arguments: evaluators)
    func aStepsTimeoutEndsTheRun(_ busy: Busy) async throws {
        let nginx = try await Nginx.shared()
        try Self.serve(nginx)
        let plan = try CommandRunner.temporaryPlan(busy.plan(base: nginx.plainURL, timeout: "1s"))
        let (executable, arguments) = Self.niced(["run", plan.path, "--progress", "none"])
        let result = try await CommandRunner.run(
            arguments, environment: ["no_proxy": "*"], executable: executable, within: .seconds(60))
        // Not a speed check (the process is niced, and the machine may be busy): what ended the evaluation is
        // read from its message, the step's 1 s timeout and not the 10 s an evaluation may take at most.
        #expect(!result.killedAfterTimeout, "\(busy.testDescription) held the run")
        #expect(
            !(result.stdout + result.stderr).contains(Self.ranToItsBudget),
            "\(busy.testDescription): \(result.stdout)\(result.stderr)")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        // A counted evaluator may reach its steps before the second is over.
        let stopped =
            result.stderr.contains("the attempt's timeout of 1s ran out")
            || (busy.counted && result.stderr.contains("steps, the most one evaluation may take"))
        #expect(result.stderr.contains("step `t` failed") && stopped, "\(result.stderr)")
    }

    @Test(arguments: evaluators)
    func anInterruptEndsTheRun(_ busy: Busy) async throws {
        let nginx = try await Nginx.shared()
        try Self.serve(nginx)
        let plan = try CommandRunner.temporaryPlan(busy.plan(base: nginx.plainURL, timeout: nil))
        let (executable, arguments) = Self.niced(["run", plan.path, "--progress", "none", "--verbose"])
        let running = try CommandRunner.start(arguments, environment: ["no_proxy": "*"], executable: executable)
        // Busy once the first body is in (the verbose log's `< s: 200`, or `t`'s own): then interrupt. Waiting
        // for the line, not a fixed time, holds on a busy machine, where the niced process may not yet handle
        // signals after 1.5 s.
        let bodyIn = await running.waitForStandardError(containing: ": 200", within: .seconds(60))
        #expect(bodyIn, "\(busy.testDescription): no response came")
        try await Task.sleep(for: .milliseconds(300))
        kill(running.pid, SIGINT)
        let result = await running.finish(within: .seconds(60))
        #expect(!result.killedAfterTimeout && !result.uncaughtSignal, "\(busy.testDescription) held the run")
        // The interrupt ended the evaluation: it did not run on to the 10 s an evaluation may take at most.
        #expect(
            !(result.stdout + result.stderr).contains(Self.ranToItsBudget),
            "\(busy.testDescription): \(result.stdout)\(result.stderr)")
        if busy.counted && result.status == 1 {
            #expect(result.stderr.contains("steps, the most one evaluation may take"), "\(result.stderr)")
        } else {
            #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("(interrupted)"), "\(result.stdout)")
        }
    }

    /// A group's timeout, and the plan's, end an evaluation inside them as well: the evaluation gives its thread
    /// back at the deadline, so the timer that cancels the rest gets one (two evaluations at once, on a 2-core
    /// machine, take every thread of the pool).
    @Test(arguments: ["plan", "group"])
    func anEnclosingTimeoutEndsTheEvaluationsInside(_ level: String) async throws {
        let nginx = try await Nginx.shared()
        try Self.serve(nginx)
        let items = """
            for_each: [1, 2, 3, 4]
            request: { url: "\(nginx.plainURL)/files/aaa.txt?i=${{ item }}" }
            expect: { body: { $: { matches: "(a*)*b" } } }
            """
        let text =
            level == "plan"
            ? "reqplan: 1\ntimeout: 1s\nsteps:\n  t:\n"
                + items.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
            : "reqplan: 1\nsteps:\n  g:\n    timeout: 1s\n    group:\n      t:\n"
                + items.split(separator: "\n").map { "        " + $0 }.joined(separator: "\n")
        let plan = try CommandRunner.temporaryPlan(text + "\n")
        let (executable, arguments) = Self.niced(["run", plan.path, "--progress", "none"])
        let result = try await CommandRunner.run(
            arguments, environment: ["no_proxy": "*"], executable: executable, within: .seconds(60))
        #expect(!result.killedAfterTimeout, "the \(level)'s timeout did not end the run")
        // Had the evaluations kept their threads, the timer would have waited for them to reach their 10 s.
        #expect(!(result.stdout + result.stderr).contains(Self.ranToItsBudget), "\(result.stdout)\(result.stderr)")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("⊘ t"), "the items are cancelled by the timeout: \(result.stdout)")
        #expect(result.stdout.contains("timed out after 1s"), "\(result.stdout)")
    }
}
