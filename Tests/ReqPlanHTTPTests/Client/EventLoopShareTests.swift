import Testing

@testable import ReqPlanHTTP

/// How reqplan's own client shares a load's connections out among the event loops it sends from (`OwnClients`,
/// `reqplan load --threads`).
struct EventLoopShareTests {
    private static func settings(connections: Int) -> ReqPlanClient.Settings {
        ReqPlanClient.Settings(connectTimeout: .seconds(1), maxBodySize: 1 << 10, connectionsPerHost: connections)
    }

    /// By default every loop has a pool of its own and a share of the connections; asked for fewer loops, only
    /// that many send, each a client on one loop alone (not one over the whole group), with all the connections
    /// between them; and never more loops than connections.
    @Test func aLoadSendsFromAsManyEventLoopsAsAskedWithAllItsConnections() {
        let loops = HTTPClientTransport.eventLoopCount
        let every = OwnClients(settings: Self.settings(connections: 10), perLoop: true)
        #expect(every.all.count == loops)
        #expect(every.all.map(\.settings.connectionsPerHost).reduce(0, +) == 10)

        let one = OwnClients(settings: Self.settings(connections: 10), perLoop: true, loops: 1)
        #expect(one.all.count == 1)
        #expect(one.all.first?.taskExecutors.count == 1, "one loop, not the group's \(loops)")
        #expect(one.all.first?.settings.connectionsPerHost == 10)

        let asMany = OwnClients(settings: Self.settings(connections: 10), perLoop: true, loops: loops)
        #expect(asMany.all.count == loops, "as many as there are is all of them")

        let fewConnections = OwnClients(settings: Self.settings(connections: 1), perLoop: true, loops: 1)
        #expect(fewConnections.all.map(\.settings.connectionsPerHost) == [1])
        #expect(fewConnections.all.flatMap(\.taskExecutors).count == 1)
    }
}
