import Foundation
import HTTPTypes
import Hummingbird

extension DemoRoutes {
    /// Carts and orders.
    func registerCarts(on router: Router<DemoContext>) {
        /// `POST /cart` — opens a cart: 201 `{"id", "user", "status": "open", "lines"}`. Optional JSON
        /// body: `user` (else `X-User` or the session's user) and `items`, a list of item ids or
        /// `{"item_id", "quantity"}` objects.
        router.post("/cart") { request, _ in
            let body = try await Self.bodyValue(of: request) ?? .object([])
            guard body.members != nil else { throw HTTPError(.badRequest, message: "expected a JSON object") }
            let user = body["user"]?.scalarText ?? Self.header(request, "X-User") ?? sessionUser(of: request)
            let entries = body["items"]?.elements ?? []
            let cart = try state.storage.withLock { store in
                var lines: [CartLine] = []
                for entry in entries {
                    let (itemID, quantity) = try Self.lineRequest(entry)
                    guard let line = store.line(for: itemID, quantity: quantity) else {
                        throw Self.noItem(itemID.scalarText ?? itemID.jsonText())
                    }
                    lines.append(line)
                }
                return store.createCart(user: user, lines: lines)
            }
            return Self.json(cart.json, status: .created, headers: [.location: "/cart/\(cart.id)"])
        }

        /// `GET /cart/{id}` — the cart.
        router.get("/cart/{id}") { _, context in
            let id = try Self.cartID(context)
            guard let cart = state.storage.withLock({ $0.carts[id] }) else { throw Self.noCart(id) }
            return Self.json(cart.json)
        }

        /// `PUT /cart/{id}` — puts one line in the cart: `{"item_id": …, "quantity": N}` (quantity 1 by
        /// default). The same item again replaces its line. 404 for an unknown cart or item, 409 once
        /// the cart is ordered.
        router.put("/cart/{id}") { request, context in
            let id = try Self.cartID(context)
            guard let body = try await Self.bodyValue(of: request), body.members != nil else {
                throw HTTPError(.badRequest, message: "expected a JSON object with `item_id`")
            }
            let (itemID, quantity) = try Self.lineRequest(body)
            let cart = try state.storage.withLock { store in
                guard var cart = store.carts[id] else { throw Self.noCart(id) }
                guard cart.status == "open" else {
                    throw HTTPError(.conflict, message: "cart \(id) is \(cart.status); open a new cart")
                }
                guard let line = store.line(for: itemID, quantity: quantity) else {
                    throw Self.noItem(itemID.scalarText ?? itemID.jsonText())
                }
                if let index = cart.lines.firstIndex(where: { $0.itemID == line.itemID }) {
                    cart.lines[index] = line
                } else {
                    cart.lines.append(line)
                }
                store.carts[id] = cart
                return cart
            }
            return Self.json(cart.json)
        }

        /// `POST /cart/{id}/order` — places the order: 201 `{"order_id": "order-N", "status": "placed",
        /// "cart_id", "lines"}`. Optional JSON body `{"quantities": [...]}` sets the lines' quantities by
        /// position. The order is then readable as `GET /items/order-N`. 409 if already ordered.
        router.post("/cart/{id}/order") { request, context in
            let id = try Self.cartID(context)
            let body = try await Self.bodyValue(of: request) ?? .object([])
            guard body.members != nil else { throw HTTPError(.badRequest, message: "expected a JSON object") }
            var quantities: [Int] = []
            if let list = body["quantities"], list != .null {
                guard let elements = list.elements else {
                    throw HTTPError(.badRequest, message: "`quantities` must be a list of whole numbers")
                }
                for element in elements {
                    guard let quantity = element.integer, (1...10_000).contains(quantity) else {
                        throw HTTPError(.badRequest, message: "every quantity must be a whole number from 1 to 10000")
                    }
                    quantities.append(quantity)
                }
            }
            switch state.storage.withLock({ $0.placeOrder(cartID: id, quantities: quantities) }) {
            case .success(let order):
                let location = "/items/" + (order["order_id"]?.string ?? "")
                return Self.json(order, status: .created, headers: [.location: location])
            case .failure(.notFound(let message)): throw HTTPError(.notFound, message: message)
            case .failure(.conflict(let message)): throw HTTPError(.conflict, message: message)
            }
        }
    }

    /// The cart id of the path; 404 when it is not a number (no cart has such an id).
    static func cartID(_ context: DemoContext) throws -> Int {
        let text = try parameter(context, "id")
        guard let id = Int(text) else { throw HTTPError(.notFound, message: "cart \(text) does not exist") }
        return id
    }

    /// The 404 of a missing cart.
    static func noCart(_ id: Int) -> HTTPError {
        HTTPError(.notFound, message: "cart \(id) does not exist")
    }

    /// The item id and quantity of a line: an id alone, or `{"item_id", "quantity"}`.
    static func lineRequest(_ entry: JSON) throws -> (itemID: JSON, quantity: Int) {
        let itemID = entry.members == nil ? entry : (entry["item_id"] ?? .null)
        guard itemID.scalarText != nil, itemID.boolean == nil else {
            throw HTTPError(.badRequest, message: "`item_id` must be an item id")
        }
        var quantity = 1
        if let raw = entry["quantity"], raw != .null {
            guard let value = raw.integer, (1...10_000).contains(value) else {
                throw HTTPError(.badRequest, message: "`quantity` must be a whole number from 1 to 10000")
            }
            quantity = value
        }
        return (itemID, quantity)
    }
}
