import HTTPTypes
import Hummingbird
import NIOCore

extension DemoRoutes {
    /// The demo API's OpenAPI document, and the one endpoint that breaks it on purpose.
    func registerDescription(on router: Router<DemoContext>) {
        /// `GET /openapi.yaml` — the document (`DemoAPIDescription`), `application/yaml`.
        router.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(string: DemoAPIDescription.yaml + "\n")))
        }

        /// `GET /stock-report` — `{"products": [{"sku", "in_stock"}]}`, with `in_stock` as text where the
        /// document says integer: the response that reqplan's run-time schema check fails.
        router.get("/stock-report") { _, _ in
            let products = state.storage.withLock { $0.allItems }.compactMap { item -> JSON? in
                guard let sku = item["sku"], let stock = item["stock"] else { return nil }
                return ["sku": sku, "in_stock": .string(stock.scalarText ?? "")]
            }
            return Self.json(["products": .list(products)])
        }
    }
}
