import Foundation
import HTTPTypes
import Hummingbird

/// A long job of the demo API: it answers `running` to its first polls, then ends.
struct DemoJob: Sendable {
    /// The job's id (`/jobs/{id}`).
    var id: Int
    /// How many polls answer `running` before the job ends.
    var polls: Int
    /// `done` or `failed`: how the job ends.
    var outcome: String
    /// What the job was given (`input` of the request), echoed in its result.
    var input: JSON
    /// Polls answered so far.
    var polled = 0

    /// The job's state now: `running`, then its outcome.
    var state: String { polled <= polls ? "running" : outcome }

    /// The status document of `GET /jobs/{id}`.
    var status: JSON {
        var members: [JSON.Field] = [
            JSON.Field("id", .int(id)), JSON.Field("state", .string(state)),
            JSON.Field("polls", .int(polled)),
        ]
        switch state {
        case "done": members.append(JSON.Field("result_url", .string("/jobs/\(id)/result")))
        case "failed": members.append(JSON.Field("error", "the job failed, as it was asked to"))
        default: members.append(JSON.Field("progress", .int(polls == 0 ? 100 : 100 * (polled - 1) / polls)))
        }
        return .object(members)
    }
}

extension DemoRoutes {
    /// Long jobs, polled until they end (the polling example, `plans/job-polling.yaml`):
    ///
    /// | Endpoint | Answer |
    /// |---|---|
    /// | `POST /jobs` | 202 `{"id", "state": "queued", "status_url"}` with `Location: /jobs/{id}`. Optional JSON body: `polls` (0–1,000,000, default 3: how many polls answer `running`), `outcome` (`done`, the default, or `failed`), `input` (any value, echoed in the result) |
    /// | `GET /jobs/{id}` | `{"id", "state", "polls"}`: `state` is `running` (with `progress`, a percentage) for the first `polls` requests, then `done` (with `result_url`) or `failed` (with `error`); each request counts as a poll |
    /// | `GET /jobs/{id}/result` | `{"id", "result": {"input", "lines"}}` once the job is `done`; 409 before, or when it failed |
    func registerJobs(on router: Router<DemoContext>) {
        router.post("/jobs") { request, _ in
            let body = try await Self.bodyValue(of: request) ?? .object([])
            guard body.members != nil else { throw HTTPError(.badRequest, message: "expected a JSON object") }
            let polls: Int
            switch body["polls"] {
            case nil: polls = 3
            case .int(let value)? where (0...1_000_000).contains(value): polls = value
            default: throw HTTPError(.badRequest, message: "`polls` must be a whole number from 0 to 1000000")
            }
            let outcome = body["outcome"]?.string ?? "done"
            guard outcome == "done" || outcome == "failed" else {
                throw HTTPError(.badRequest, message: "`outcome` must be `done` or `failed`")
            }
            let job = state.storage.withLock { store in
                let job = DemoJob(id: store.nextJobID, polls: polls, outcome: outcome, input: body["input"] ?? .null)
                store.jobs[job.id] = job
                store.nextJobID += 1
                return job
            }
            let url = "/jobs/\(job.id)"
            return Self.json(
                ["id": .int(job.id), "state": "queued", "status_url": .string(url)], status: .accepted,
                headers: [.location: url])
        }

        router.get("/jobs/{id}") { _, context in
            let id = try Self.jobID(context)
            let job = state.storage.withLock { store -> DemoJob? in
                store.jobs[id]?.polled += 1
                return store.jobs[id]
            }
            guard let job else { throw HTTPError(.notFound, message: "job \(id) does not exist") }
            return Self.json(job.status)
        }

        router.get("/jobs/{id}/result") { _, context in
            let id = try Self.jobID(context)
            guard let job = state.storage.withLock({ $0.jobs[id] }) else {
                throw HTTPError(.notFound, message: "job \(id) does not exist")
            }
            guard job.state == "done" else {
                return Self.error(.conflict, "job \(id) is \(job.state), it has no result")
            }
            let lines = 40 + job.id % 7
            return Self.json(["id": .int(id), "result": ["input": job.input, "lines": .int(lines)]])
        }
    }

    private static func jobID(_ context: DemoContext) throws -> Int {
        let text = try parameter(context, "id")
        guard let id = Int(text) else { throw HTTPError(.notFound, message: "job `\(text)` does not exist") }
        return id
    }
}
