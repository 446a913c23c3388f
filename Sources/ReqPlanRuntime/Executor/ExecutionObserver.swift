import ReqPlanTransport

/// Receives events while a plan runs (live progress, traces). Calls come from many tasks at once.
public protocol ExecutionObserver: Sendable {
    /// A step is about to run (its dependencies have ended and its condition held).
    func stepStarted(_ id: String, item: Int?, at time: Duration)
    /// A request attempt ended.
    func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord)
    /// A step (or a for_each item) ended.
    func stepFinished(_ result: StepResult)
    /// A for_each has evaluated its list and starts its items.
    func loopStarted(_ id: String, itemCount: Int)
    /// A request attempt is about to be sent.
    func requestSent(_ id: String, item: Int?, request: PreparedRequest)
    /// A response arrived (before expectations are checked).
    func responseReceived(_ id: String, item: Int?, response: TransportResponse)
}

extension ExecutionObserver {
    /// Observers that do not show loop progress ignore it.
    public func loopStarted(_ id: String, itemCount: Int) {}
    /// Observers that do not show requests ignore them.
    public func requestSent(_ id: String, item: Int?, request: PreparedRequest) {}
    /// Observers that do not show responses ignore them.
    public func responseReceived(_ id: String, item: Int?, response: TransportResponse) {}
}

/// Several observers as one, called in order.
public struct ObserverGroup: ExecutionObserver {
    public let observers: [any ExecutionObserver]
    public init(_ observers: [any ExecutionObserver]) { self.observers = observers }
    public func stepStarted(_ id: String, item: Int?, at time: Duration) {
        for observer in observers { observer.stepStarted(id, item: item, at: time) }
    }
    public func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {
        for observer in observers { observer.attemptFinished(id, item: item, attempt: attempt) }
    }
    public func stepFinished(_ result: StepResult) {
        for observer in observers { observer.stepFinished(result) }
    }
    public func loopStarted(_ id: String, itemCount: Int) {
        for observer in observers { observer.loopStarted(id, itemCount: itemCount) }
    }
    public func requestSent(_ id: String, item: Int?, request: PreparedRequest) {
        for observer in observers { observer.requestSent(id, item: item, request: request) }
    }
    public func responseReceived(_ id: String, item: Int?, response: TransportResponse) {
        for observer in observers { observer.responseReceived(id, item: item, response: response) }
    }
}

/// An observer that ignores every event.
public struct NoObserver: ExecutionObserver {
    public init() {}
    public func stepStarted(_ id: String, item: Int?, at time: Duration) {}
    public func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {}
    public func stepFinished(_ result: StepResult) {}
}
