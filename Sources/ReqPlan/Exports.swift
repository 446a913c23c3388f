import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanPipeline
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanURLSession

// The types of other reqplan modules that appear in the library's API, named here so `import ReqPlan`
// is the only import an embedder needs.

/// A value of the plan language: inputs, outputs, response bodies (JSON's values).
public typealias Value = ReqPlanSyntax.Value
/// A problem found in a plan or its inputs: a stable code, a message, a location, a hint.
public typealias Diagnostic = ReqPlanSyntax.Diagnostic
/// Size and alias-expansion limits for reading a plan.
public typealias ParseLimits = ReqPlanSyntax.ParseLimits
/// How a plan is read: limits, files outside its folder, and how an Arazzo document is read (the servers
/// of its source descriptions, the workflow to run, `--parallel`).
public typealias PlanReading = ReqPlanPipeline.Pipeline.Reading
/// How a step ended: succeeded, failed, skipped, cancelled.
public typealias StepState = ReqPlanRuntime.StepState
/// Why a step did not succeed: a stable kind and a sentence.
public typealias StepReason = ReqPlanRuntime.StepReason
/// One try of a request: its number, timing, status or error, and the poll it belongs to.
public typealias AttemptRecord = ReqPlanRuntime.AttemptRecord
/// What a program's own transport implements (`PlanTransport.custom`).
public typealias Transport = ReqPlanTransport.Transport
/// A request ready to send, as a transport receives it.
public typealias PreparedRequest = ReqPlanTransport.PreparedRequest
/// A response, as a transport returns it.
public typealias TransportResponse = ReqPlanTransport.TransportResponse
/// Why a transport got no response.
public typealias TransportError = ReqPlanTransport.TransportError
/// The settings of the SwiftNIO transport (`PlanTransport.nio`).
public typealias NIOTransportConfiguration = ReqPlanHTTP.HTTPClientTransport.Configuration
/// The transport over Foundation's `URLSession` (`PlanTransport.urlSession`).
public typealias URLSessionTransport = ReqPlanURLSession.URLSessionTransport
