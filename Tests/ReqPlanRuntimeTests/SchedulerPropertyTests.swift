import Foundation
import PropertyBased
import ReqPlanSyntax
import Synchronization
import ReqPlanTestSupport
import Testing

@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// A transport test double for the "starts as soon as its dependencies end" property:
/// every request waits at a gate until the test opens it.
final class GatedTestTransport: Transport {
    private struct State {
        var gates: [String: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let path = request.url.path
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.gates[path] = continuation
                    return false
                }
                if cancelled { continuation.resume() }
            }
        } onCancel: {
            open(path)
        }
        let id = path.split(separator: "/").last.map(String.init) ?? ""
        return TransportResponse(
            status: 200, headers: [HeaderField("Content-Type", "application/json")],
            body: Array(#"{"id":"\#(id)"}"#.utf8))
    }

    /// The requests waiting at their gate.
    var waiting: Set<String> { state.withLock { Set($0.gates.keys) } }

    func open(_ path: String) {
        state.withLock { $0.gates.removeValue(forKey: path) }?.resume()
    }
}

@Suite(.timeSensitive) struct SchedulerPropertyTests {
    /// Replays the transport's events and checks every scheduling invariant of one run.
    private func checkInvariants(_ plan: RandomPlan, _ transport: ScriptedTestTransport, _ result: RunResult) {
        #expect(result.exitCode == 0, "\(plan.yaml)")
        let events = transport.events
        var start: [String: Int] = [:]
        var end: [String: Int] = [:]
        for event in events {
            if event.isStart {
                #expect(start[event.path] == nil, "\(event.path) ran twice\n\(plan.yaml)")
                start[event.path] = event.sequence
            } else {
                end[event.path] = event.sequence
            }
        }
        // Every request runs exactly once, and never before its prerequisites ended.
        #expect(Set(start.keys) == Set(plan.units.keys), "\(plan.yaml)")
        for unit in plan.units.values {
            for prerequisite in unit.prerequisites {
                #expect(
                    (end[prerequisite] ?? .max) < (start[unit.path] ?? .min),
                    "\(unit.path) started before \(prerequisite) ended\n\(plan.yaml)")
            }
        }
        // In flight never exceeds any limit.
        var inFlight: Set<String> = []
        for event in events {
            if event.isStart {
                inFlight.insert(event.path)
                if let limit = plan.planLimit {
                    #expect(inFlight.count <= limit, "plan limit \(limit) exceeded\n\(plan.yaml)")
                }
                for (scope, limit) in plan.units[event.path]?.limits ?? [] {
                    let members = plan.scopeMembers[scope] ?? []
                    #expect(inFlight.intersection(members).count <= limit, "limit of \(scope) exceeded\n\(plan.yaml)")
                }
            } else {
                inFlight.remove(event.path)
            }
        }
        // Results keep declaration and input order.
        for (group, members) in plan.groupOrder {
            #expect(result.results[group]?.children?.map(\.id) == members)
        }
        for (loop, items) in plan.loopItems {
            let children = result.results[loop]?.children ?? []
            #expect(children.map(\.itemIndex) == items.map { Optional($0) })
            #expect(
                children.map { $0.url.map { URLComponents(string: $0)?.path ?? "" } }
                    == items.map { Optional("/s/\(loop)-\($0)") })
        }
    }

    @Test func everyStepRunsOnceAfterItsDependenciesWithinLimitsInOrder() async throws {
        await propertyCheck(count: 60, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            let plan = RandomPlan(seed: UInt64(seed))
            let transport = ScriptedTestTransport()
            guard let result = try? await run(plan.yaml, transport: transport) else {
                Issue.record("seed \(seed): plan did not run\n\(plan.yaml)")
                return
            }
            checkInvariants(plan, transport, result)
        }
    }

    @Test func stepsStartTheMomentTheirLastDependencyEnds() async throws {
        await propertyCheck(count: 40, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            let plan = RandomPlan(seed: UInt64(seed), allowLimits: false, allowDelays: false)
            var random = SeededGenerator(seed: UInt64(seed) ^ 0xABCDEF)
            let transport = GatedTestTransport()
            guard let graph = try? makeGraph(plan.yaml) else { return }
            let executor = Executor(
                graph: graph, transport: transport, inputs: RunInputs(values: [:], environment: [:]),
                configuration: RunConfiguration(files: FileAccess(planDirectory: URL(fileURLWithPath: "/tmp"))))
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await executor.run() }
                var completed: Set<String> = []
                while completed.count < plan.units.count {
                    let ready = Set(
                        plan.units.values.filter {
                            !completed.contains($0.path) && $0.prerequisites.isSubset(of: completed)
                        }.map(\.path))
                    // Everything ready must arrive without any further completion; nothing else may.
                    // (A bounded wait in the test; the executor itself never polls.) The patience is counted in
                    // looks, 30,000 of 1 ms or more, not wall time: in a loaded run of the whole suite the
                    // cooperative pool was held by other tests for over 30 s, starving the executor and this
                    // test alike, and a wall-time deadline passed while neither ran.
                    var waiting = transport.waiting
                    for _ in 0..<30_000 where waiting != ready && waiting.isSubset(of: ready) {
                        try? await Task.sleep(for: .milliseconds(1))
                        waiting = transport.waiting
                    }
                    if !waiting.isSubset(of: ready) {
                        Issue.record(
                            "seed \(seed): \(waiting.subtracting(ready).sorted()) started before their dependencies ended\n\(plan.yaml)"
                        )
                        for path in waiting { transport.open(path) }
                        group.cancelAll()
                        return
                    }
                    if waiting != ready {
                        Issue.record(
                            "seed \(seed): \(ready.subtracting(waiting).sorted()) did not start although their dependencies ended\n\(plan.yaml)"
                        )
                        for path in waiting { transport.open(path) }
                        group.cancelAll()
                        return
                    }
                    guard let next = waiting.randomElement(using: &random) else { break }
                    completed.insert(next)
                    transport.open(next)
                }
                await group.waitForAll()
            }
        }
    }
}
