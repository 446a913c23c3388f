// reqplan-bench: measures the executor's own overhead on generated plans with an instant
// in-memory transport (no network), so figures show the scheduler, not the HTTP stack.
//
//   swift run -c release reqplan-bench scheduler 100000
//
// Prints, per shape and size: wall time, time per step, and peak resident memory.
//
//   swift run -c release reqplan-bench nio-floor 64 10      (NIOFloor.swift: an HTTP/1.1 client over SwiftNIO, bare)
import Foundation
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

/// A transport test double for benchmarks: answers 200 with a tiny JSON body at once.
struct InstantBenchmarkTransport: Transport {
    func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        TransportResponse(
            status: 200, headers: [HeaderField("Content-Type", "application/json")],
            body: Array(#"{"ok":true}"#.utf8))
    }
}

func planText(shape: String, steps: Int) -> String {
    var text = "reqplan: 1\ndefaults: { base_url: \"http://bench\" }\nsteps:\n"
    text.reserveCapacity(steps * 60)
    for index in 0..<steps {
        if shape == "chain" && index > 0 {
            text += "  s\(index): { needs: [s\(index - 1)], request: { url: /x } }\n"
        } else {
            text += "  s\(index): { request: { url: /x } }\n"
        }
    }
    return text
}

/// The resident memory now, from /proc (Linux), in MB.
func currentMemoryMB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = text.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return 0 }
    return pages * 4096 / 1_048_576
}

func peakMemoryMB() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}

func runScheduler(shape: String, steps: Int) async -> (planning: Duration, running: Duration, ok: Bool) {
    let clock = ContinuousClock()
    let planStart = clock.now
    let text = planText(shape: shape, steps: steps)
    print(String(format: "  plan text: %.0f MB resident", currentMemoryMB()))
    if CommandLine.arguments.contains("--phases") {
        let parsed = PlanParser.parse(SourceFile(path: "bench.yaml", text: text))
        print(String(format: "  after parsing: %.0f MB resident", currentMemoryMB()))
        if let plan = parsed.plan {
            let planned = Planner.plan(plan)
            print(
                String(
                    format: "  after planning: %.0f MB resident (%d nodes)", currentMemoryMB(),
                    planned.graph?.nodes.count ?? 0))
        }
    }
    let report = PlanValidator.validate(SourceFile(path: "bench.yaml", text: text))
    guard let graph = report.graph else {
        print("invalid plan: \(report.diagnostics.first?.message ?? "")")
        return (.zero, .zero, false)
    }
    let planning = clock.now - planStart
    print(String(format: "  after planning: %.0f MB resident", currentMemoryMB()))
    let executor = Executor(
        graph: graph, transport: InstantBenchmarkTransport(), inputs: RunInputs(values: [:], environment: [:]),
        configuration: RunConfiguration(files: FileAccess(planDirectory: URL(fileURLWithPath: "/tmp"))))
    let runStart = clock.now
    let result = await executor.run()
    let running = clock.now - runStart
    print(String(format: "  after the run: %.0f MB resident", currentMemoryMB()))
    return (planning, running, result.verdict == .passed && result.results.count == steps)
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "nio-floor" {
    let numbers = arguments.dropFirst().compactMap { Int($0) }
    try await runNIOFloor(
        connections: numbers.first ?? 64, seconds: numbers.dropFirst().first ?? 10,
        writePromises: arguments.contains("--write-promises"), cachedHead: arguments.contains("--cached-head"),
        raw: arguments.contains("--raw"),
        lean: arguments.contains("--lean-decoder"))
    exit(0)
}
if arguments.first == "sizes" {
    print(
        "Step \(MemoryLayout<Step>.size), StepNode \(MemoryLayout<StepNode>.size), RequestSpec \(MemoryLayout<RequestSpec>.size), StepResult \(MemoryLayout<StepResult>.size), RetryPolicy? \(MemoryLayout<RetryPolicy?>.size), Expectation? \(MemoryLayout<Expectation?>.size), Template \(MemoryLayout<Template>.size), SourceRange \(MemoryLayout<SourceRange>.size)"
    )
    exit(0)
}
guard arguments.first == "scheduler" else {
    print(
        "usage: reqplan-bench scheduler [STEPS] [independent|chain] | nio-floor [CONNECTIONS] [SECONDS] [--write-promises] [--cached-head] [--raw] [--lean-decoder]"
    )
    exit(64)
}
let steps = arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
let shapes = arguments.count > 2 ? [String(arguments[arguments.startIndex + 2])] : ["independent", "chain"]
for shape in shapes {
    let (planning, running, ok) = await runScheduler(shape: shape, steps: steps)
    let perStep =
        Double(running.components.seconds) * 1e6 / Double(steps)
        + Double(running.components.attoseconds) / 1e12 / Double(steps)
    print(
        String(
            format: "%@ %d steps: validate+plan %.2f s, run %.3f s, %.2f µs/step, peak RSS %.0f MB%@",
            shape, steps, Double(planning.milliseconds) / 1000, Double(running.milliseconds) / 1000, perStep,
            peakMemoryMB(), ok ? "" : " (FAILED)"))
}
