import Foundation
import Synchronization

/// What the demo API remembers between requests: one store behind one lock, so
/// concurrent requests see consistent data. Nothing is persisted.
final class DemoState: Sendable {
    /// The data, guarded by the lock.
    let storage = Mutex(DemoStore())
}

/// A file received by `POST /upload`.
struct StoredFile: Sendable {
    /// The id in `/files/{id}/{name}`.
    var id: Int
    /// The file name the client sent (last path component only).
    var name: String
    /// The part's content type.
    var contentType: String
    /// The bytes.
    var bytes: [UInt8]
}

/// One line of a cart.
struct CartLine: Sendable {
    /// The item's id (a number for created items).
    var itemID: JSON
    /// The item's SKU, when the item has one.
    var sku: String?
    /// The item's name, when it has one.
    var name: String?
    /// How many.
    var quantity: Int

    /// The line as JSON.
    var json: JSON {
        ["item_id": itemID, "sku": .optional(sku), "name": .optional(name), "quantity": .int(quantity)]
    }
}

/// A shopping cart.
struct Cart: Sendable {
    /// The cart's id.
    var id: Int
    /// Whose cart it is, when known.
    var user: String?
    /// The lines, in the order they were first added.
    var lines: [CartLine] = []
    /// `open` until an order is placed, then `ordered`.
    var status = "open"
    /// The order placed from this cart.
    var orderID: String?

    /// The cart as JSON.
    var json: JSON {
        [
            "id": .int(id), "user": .optional(user), "status": .string(status), "lines": .list(lines.map(\.json)),
            "order_id": .optional(orderID),
        ]
    }
}

/// The demo API's data. Every method runs under `DemoState.storage`'s lock.
struct DemoStore: Sendable {
    /// Requests answered so far (for `X-Request-Id`).
    var requestCount = 0
    /// Session token → user name, filled by `POST /login`, emptied by `POST /logout`.
    var sessions: [String: String] = [:]
    /// Items by id text; every item is a JSON object whose first member is `id`.
    var items: [String: JSON] = [:]
    /// Item ids in creation order, for listings.
    var itemOrder: [String] = []
    /// The next number given to a created item.
    var nextItemID = 1
    /// Carts by id.
    var carts: [Int: Cart] = [:]
    /// The next cart id.
    var nextCartID = 1
    /// The next order number (`order-N`).
    var nextOrderNumber = 1
    /// Connections whose next request is answered by closing them (`GET /close-next`).
    var closeNext: Set<ObjectIdentifier> = []
    /// Requests seen per `/flaky/{id}`.
    var flakyCounts: [String: Int] = [:]
    /// Uploaded files by id.
    var files: [Int: StoredFile] = [:]
    /// Bytes held by `files`.
    var fileBytes = 0
    /// The next file id.
    var nextFileID = 1
    /// Jobs by id (`POST /jobs`).
    var jobs: [Int: DemoJob] = [:]
    /// The next job id.
    var nextJobID = 1

    /// A store with the demo catalogue, notifications and messages (items 1–12).
    init() {
        for fields in Self.seedItems { _ = createItem(fields) }
    }

    // MARK: Items

    /// Stores a new item with the next numeric id; returns it with its id first.
    mutating func createItem(_ fields: JSON) -> JSON {
        let id = nextItemID
        nextItemID += 1
        let item = Self.item(id: .int(id), fields: fields)
        items[String(id)] = item
        itemOrder.append(String(id))
        return item
    }

    /// Replaces (or creates) the item `key`; returns it and whether it was created.
    mutating func putItem(_ key: String, fields: JSON) -> (item: JSON, created: Bool) {
        let existing = items[key]
        let id: JSON = existing?["id"] ?? Int(key).map { .int($0) } ?? .string(key)
        let item = Self.item(id: id, fields: fields)
        items[key] = item
        if existing == nil {
            itemOrder.append(key)
            if let number = Int(key), number >= nextItemID { nextItemID = number + 1 }
        }
        return (item, existing == nil)
    }

    /// Applies a JSON merge patch (RFC 7396) to the item `key`; `nil` when there is no such item.
    mutating func patchItem(_ key: String, patch: JSON) -> JSON? {
        guard var item = items[key], let members = patch.members else { return nil }
        for member in members where member.key != "id" {
            item = member.value == .null ? item.removing(member.key) : item.setting(member.key, to: member.value)
        }
        items[key] = item
        return item
    }

    /// Deletes the item `key`; `false` when there was none.
    mutating func deleteItem(_ key: String) -> Bool {
        guard items.removeValue(forKey: key) != nil else { return false }
        itemOrder.removeAll { $0 == key }
        return true
    }

    /// The items in creation order.
    var allItems: [JSON] { itemOrder.compactMap { items[$0] } }

    /// `fields` without any `id` of their own, behind `id`.
    static func item(id: JSON, fields: JSON) -> JSON {
        .object([JSON.Field("id", id)] + (fields.members ?? []).filter { $0.key != "id" })
    }

    /// What the store holds before any request: a small catalogue, notifications and messages.
    static let seedItems: [JSON] = [
        ["kind": "product", "sku": "TEE-M", "name": "T-shirt (M)", "price": 19.5, "stock": 42, "tags": ["apparel"]],
        ["kind": "product", "sku": "MUG-2", "name": "Large mug", "price": 11.0, "stock": 120, "tags": ["kitchen"]],
        ["kind": "product", "sku": "CAP-1", "name": "Baseball cap", "price": 14.0, "stock": 17, "tags": ["apparel"]],
        ["kind": "product", "sku": "NBK-4", "name": "Notebook", "price": 4.5, "stock": 300, "tags": ["office"]],
        ["kind": "product", "sku": "STK-5", "name": "Sticker pack", "price": 3.25, "stock": 800, "tags": ["office"]],
        ["kind": "product", "sku": "BAG-3", "name": "Tote bag", "price": 12.0, "stock": 0, "tags": ["apparel"]],
        ["kind": "notification", "title": "Your order has shipped", "unread": true, "tags": ["orders"]],
        ["kind": "notification", "title": "New sign-in from Firefox on Linux", "unread": true, "tags": ["security"]],
        ["kind": "notification", "title": "Weekly digest is ready", "unread": false, "tags": ["digest"]],
        ["kind": "message", "from": "bob", "subject": "Lunch on Friday?", "unread": true, "tags": ["personal"]],
        ["kind": "message", "from": "carol", "subject": "Quarterly report draft", "unread": false, "tags": ["work"]],
        [
            "kind": "message", "from": "support", "subject": "Ticket #4521 resolved", "unread": true,
            "tags": ["support"],
        ],
    ]

    // MARK: Files

    /// The most bytes of uploads kept in memory at once.
    static let fileStorageLimit = 512 << 20

    /// Keeps an upload; `nil` when it would exceed `fileStorageLimit`.
    mutating func storeFile(name: String, contentType: String, bytes: [UInt8]) -> StoredFile? {
        guard fileBytes + bytes.count <= Self.fileStorageLimit else { return nil }
        let file = StoredFile(id: nextFileID, name: name, contentType: contentType, bytes: bytes)
        files[file.id] = file
        fileBytes += bytes.count
        nextFileID += 1
        return file
    }

    // MARK: Carts and orders

    /// Opens a cart.
    mutating func createCart(user: String?, lines: [CartLine]) -> Cart {
        let cart = Cart(id: nextCartID, user: user, lines: lines)
        carts[cart.id] = cart
        nextCartID += 1
        return cart
    }

    /// A cart line for the item `itemID`, with the item's SKU and name when it exists.
    func line(for itemID: JSON, quantity: Int) -> CartLine? {
        guard let key = itemID.scalarText, let item = items[key] else { return nil }
        return CartLine(
            itemID: item["id"] ?? itemID, sku: item["sku"]?.string, name: item["name"]?.string,
            quantity: quantity)
    }

    /// Places the order of cart `cartID`: the lines take `quantities` by position; the order is stored
    /// as the item `order-N`, so `GET /items/order-N` shows it.
    mutating func placeOrder(cartID: Int, quantities: [Int]) -> Result<JSON, DemoFailure> {
        guard var cart = carts[cartID] else { return .failure(.notFound("cart \(cartID) does not exist")) }
        guard cart.status == "open" else {
            return .failure(.conflict("cart \(cartID) was already ordered as \(cart.orderID ?? "an order")"))
        }
        for index in cart.lines.indices where index < quantities.count {
            cart.lines[index].quantity = quantities[index]
        }
        let orderID = "order-\(nextOrderNumber)"
        nextOrderNumber += 1
        cart.status = "ordered"
        cart.orderID = orderID
        carts[cartID] = cart
        let lines = JSON.list(cart.lines.map(\.json))
        let order: JSON = [
            "kind": "order", "status": "placed", "cart_id": .int(cartID), "user": .optional(cart.user),
            "lines": lines, "quantity": .int(cart.lines.reduce(0) { $0 + $1.quantity }),
        ]
        _ = putItem(orderID, fields: order)
        return .success(["order_id": .string(orderID), "status": "placed", "cart_id": .int(cartID), "lines": lines])
    }
}

/// A request the store refuses, with the status it maps to.
enum DemoFailure: Error, Sendable {
    case notFound(String)
    case conflict(String)
}
