import Testing

@testable import ReqPlanRuntime

/// `reqplan load --push URL` refuses a URL that is not a gateway's base without showing what a CI job's
/// `--push "$GATEWAY"` may hide in it: the query, the fragment, the user and password.
@Suite struct MetricsPushTests {
    @Test(arguments: [
        (
            "http://127.0.0.1:9091/?token=s3cr3t",
            "--push `http://127.0.0.1:9091/` has a query or a fragment (not shown)"
        ),
        ("http://gw:9091/#s3cr3t", "--push `http://gw:9091/` has a query or a fragment (not shown)"),
        ("http://ann:s3cr3t@gw:9091/?x=1", "--push `http://***@gw:9091/` has a query or a fragment (not shown)"),
        ("ftp://ann:s3cr3t@gw/", "--push `ftp://***@gw/` is not an http or https URL"),
    ])
    func aRefusedGatewayURLHidesItsSecrets(_ url: String, _ said: String) {
        #expect(throws: (any Error).self) { try MetricsPush(gateway: url) }
        do {
            _ = try MetricsPush(gateway: url)
        } catch {
            #expect(error.description.hasPrefix(said), "\(error.description)")
            #expect(!error.description.contains("s3cr3t"))
        }
    }

    @Test func aGatewaysBaseURLIsTaken() throws {
        _ = try MetricsPush(gateway: "http://ann:pw@127.0.0.1:9091/prefix/")
    }
}
