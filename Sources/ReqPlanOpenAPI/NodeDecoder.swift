import Foundation
import Yams

/// A `Decoder` over a composed YAML `Node` that decodes as Yams' `YAMLDecoder` does (scalars through the
/// same `ScalarConstructible` constructors, null as Yams reads it, the same error kinds and messages) and
/// keeps the order of mapping keys, but finds a key in a mapping by its text: once through a dictionary
/// built on the mapping's first lookup (small mappings are searched in order), where Yams' keyed
/// containers compare the key with every node of the mapping, resolving tags by regular expression on the
/// way. OpenAPIKit decodes a document with thousands of such lookups per operation; this decoder takes
/// them from linear to constant time (BENCHMARKS.md, "OpenAPI").
///
/// What it does not handle, it refuses up front (`init` returns nil) so the caller can use Yams' decoder
/// instead: aliases, merge keys (`<<`) and keys that are not scalars. `NodeDecoderTests` decodes every
/// OpenAPI document in the tests through both and compares the results.
struct NodeDecoder {
    private let root: NodeTree

    /// A decoder for `node`, or nil if it has aliases, merge keys or keys that are not scalars.
    init?(_ node: Node) {
        guard let root = NodeTree(node) else { return nil }
        self.root = root
    }

    func decode<T: Decodable>(_ type: T.Type, userInfo: [CodingUserInfoKey: Any] = [:]) throws -> T {
        try TreeDecoder(tree: root, path: nil, context: TreeDecoder.Context(userInfo: userInfo)).decodeValue(type)
    }

    /// Decodes `T` from the top mapping without its `key` entry and, on a second thread at the same time,
    /// that entry as `Section`, then joins the two. Only for a section that decodes on its own (OpenAPIKit's
    /// `paths`: a large document's paths are about half of its decoding time). If either part fails, the
    /// whole is decoded again on this thread, so the error is the one a single decode meets first.
    func decode<T: Decodable & Sendable, Section: Decodable & Sendable>(
        _ type: T.Type, section key: String, as sectionType: Section.Type,
        userInfo: [CodingUserInfoKey: Any] = [:], join: (inout T, Section) -> Void
    ) throws -> T {
        guard case .mapping(let mapping) = root, let position = mapping.keys.firstIndex(of: key) else {
            return try decode(type, userInfo: userInfo)
        }
        var keys = mapping.keys
        var values = mapping.values
        keys.remove(at: position)
        let section = values.remove(at: position)
        let rest = NodeTree.mapping(NodeTreeMapping(keys: keys, values: values))
        // The two threads read disjoint parts of the tree (each mapping's lazily built index is written
        // only by the thread that decodes it); each has its own context, so they share no reference count.
        nonisolated(unsafe) let parts = (rest: rest, section: section, userInfo: userInfo)
        nonisolated(unsafe) var whole: T?
        nonisolated(unsafe) var decodedSection: Section?
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 {
                whole = try? TreeDecoder(
                    tree: parts.rest, path: nil, context: TreeDecoder.Context(userInfo: parts.userInfo)
                )
                .decodeValue(T.self)
            } else {
                // The section's coding path starts with its key, as in a single decode: OpenAPIKit's
                // errors read the path.
                let path = IndexCodingKey(stringValue: key).map { CodingPathLink(parent: nil, key: $0) }
                decodedSection = try? TreeDecoder(
                    tree: parts.section, path: path, context: TreeDecoder.Context(userInfo: parts.userInfo)
                )
                .decodeValue(Section.self)
            }
        }
        guard var whole, let decodedSection else { return try decode(type, userInfo: userInfo) }
        join(&whole, decodedSection)
        return whole
    }
}

/// The composed document with its mappings indexed by key text.
private indirect enum NodeTree {
    /// Boxed: a copy of the tree is then one reference count, not three (text, tag, anchor).
    case scalar(ScalarBox)
    case mapping(NodeTreeMapping)
    case sequence([NodeTree])

    init?(_ node: Node) {
        switch node {
        case .scalar(let scalar):
            self = .scalar(ScalarBox(scalar))
        case .sequence(let sequence):
            var items: [NodeTree] = []
            items.reserveCapacity(sequence.count)
            for element in sequence {
                guard let item = NodeTree(element) else { return nil }
                items.append(item)
            }
            self = .sequence(items)
        case .mapping(let mapping):
            var keys: [String] = []
            var values: [NodeTree] = []
            keys.reserveCapacity(mapping.count)
            values.reserveCapacity(mapping.count)
            for (key, value) in mapping {
                guard case .scalar(let scalar) = key, !(scalar.style == .plain && scalar.string == "<<"),
                    let item = NodeTree(value)
                else { return nil }
                keys.append(scalar.string)
                values.append(item)
            }
            self = .mapping(NodeTreeMapping(keys: keys, values: values))
        case .alias:
            return nil
        }
    }

    /// The Yams type a mismatch message names ("… but found Mapping instead").
    var yamsType: Any.Type {
        switch self {
        case .scalar: Node.Scalar.self
        case .mapping: Node.Mapping.self
        case .sequence: Node.Sequence.self
        }
    }
}

private final class ScalarBox {
    let scalar: Node.Scalar
    init(_ scalar: Node.Scalar) { self.scalar = scalar }
}

/// A mapping's keys in document order, and their values.
private final class NodeTreeMapping {
    let keys: [String]
    let values: [NodeTree]
    /// Key text → position (the first, as Yams finds it); built on the first lookup of a larger mapping.
    private var index: [String: Int]?

    /// Mappings up to this size are searched in order: comparing a few short strings is cheaper than
    /// building a dictionary that is read once or twice.
    private static let searchedInOrder = 8

    init(keys: [String], values: [NodeTree]) {
        self.keys = keys
        self.values = values
    }

    func value(for key: String) -> NodeTree? {
        if keys.count <= Self.searchedInOrder {
            guard let position = keys.firstIndex(of: key) else { return nil }
            return values[position]
        }
        if index == nil {
            var built: [String: Int] = [:]
            built.reserveCapacity(keys.count)
            for (position, key) in keys.enumerated() where built[key] == nil { built[key] = position }
            index = built
        }
        guard let position = index?[key] else { return nil }
        return values[position]
    }
}

/// The coding path as a chain from the innermost key, made into an array only when asked for (in errors).
private final class CodingPathLink {
    let parent: CodingPathLink?
    let key: any CodingKey

    init(parent: CodingPathLink?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    static func path(_ link: CodingPathLink?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = link
        while let link = current {
            keys.append(link.key)
            current = link.parent
        }
        return keys.reversed()
    }
}

/// Yams' coding key for sequence elements and `super`, with the same texts.
private struct IndexCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    static let superKey = IndexCodingKey(stringValue: "super") ?? IndexCodingKey(index: 0)
}

private struct TreeDecoder: Decoder, SingleValueDecodingContainer {
    final class Context {
        let userInfo: [CodingUserInfoKey: Any]
        init(userInfo: [CodingUserInfoKey: Any]) { self.userInfo = userInfo }
    }

    let tree: NodeTree
    let path: CodingPathLink?
    let context: Context

    var codingPath: [any CodingKey] { CodingPathLink.path(path) }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func child(_ tree: NodeTree, key: any CodingKey) -> TreeDecoder {
        TreeDecoder(tree: tree, path: CodingPathLink(parent: path, key: key), context: context)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let mapping) = tree else {
            throw typeMismatch(expectation: Node.Mapping.self)
        }
        return KeyedDecodingContainer(KeyedTreeContainer<Key>(decoder: self, mapping: mapping))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .sequence(let items) = tree else {
            throw typeMismatch(expectation: Node.Sequence.self)
        }
        return UnkeyedTreeContainer(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Single values, as Yams' `_Decoder` reads them

    func decodeNil() -> Bool {
        guard case .scalar(let box) = tree else { return false }
        return NSNull.construct(from: box.scalar) != nil
    }

    func decode<T: Decodable & ScalarConstructible>(_ type: T.Type) throws -> T { try decodeValue(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // The most common case, without the conformance lookup below (`String.construct` is `.string`).
        if T.self == String.self, case .scalar(let box) = tree, let value = box.scalar.string as? T {
            return value
        }
        guard let constructible = Self.scalarTypes[ObjectIdentifier(type)] else {
            return try type.init(from: self)
        }
        guard case .scalar(let box) = tree else {
            throw typeMismatch(expectation: type)
        }
        guard let constructed = constructible.construct(from: box.scalar) else {
            throw mismatch(expectation: type, realityType: Node.Scalar.self)
        }
        guard let value = constructed as? T else {
            throw mismatch(expectation: type, realityType: Swift.type(of: constructed))
        }
        return value
    }

    /// The types Yams makes `ScalarConstructible`, which its decoder builds from a scalar's text. Looked
    /// up here rather than asked of the runtime (`type as? ScalarConstructible.Type`): each new type's
    /// first such question scans every conformance in the binary, and OpenAPIKit decodes a few hundred
    /// types, almost all of them not scalars (a third of a small document's load, BENCHMARKS.md).
    /// `NodeDecoderTests` compares the results with Yams' decoder.
    nonisolated(unsafe) private static let scalarTypes: [ObjectIdentifier: any ScalarConstructible.Type] = {
        let types: [any ScalarConstructible.Type] = [
            Bool.self, String.self, Double.self, Float.self, Int.self, Int8.self, Int16.self, Int32.self,
            Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self, Decimal.self, URL.self,
            UUID.self, Date.self, Data.self,
        ]
        return Dictionary(uniqueKeysWithValues: types.map { (ObjectIdentifier($0), $0) })
    }()

    func typeMismatch(expectation: Any.Type) -> DecodingError {
        mismatch(expectation: expectation, realityType: tree.yamsType)
    }

    func mismatch(expectation: Any.Type, realityType: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            expectation,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(expectation) but found \(realityType) instead."))
    }
}

private struct KeyedTreeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TreeDecoder
    let mapping: NodeTreeMapping

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { mapping.keys.compactMap(Key.init(stringValue:)) }
    func contains(_ key: Key) -> Bool { mapping.value(for: key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }
    func decode<T: Decodable & ScalarConstructible>(_ type: T.Type, forKey key: Key) throws -> T {
        try child(key).decodeValue(type)
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder { try child(IndexCodingKey.superKey) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }

    private func child(_ key: any CodingKey) throws -> TreeDecoder {
        guard let value = mapping.value(for: key.stringValue) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return decoder.child(value, key: key)
    }
}

private struct UnkeyedTreeContainer: UnkeyedDecodingContainer {
    let decoder: TreeDecoder
    let items: [NodeTree]
    private(set) var currentIndex = 0

    init(decoder: TreeDecoder, items: [NodeTree]) {
        self.decoder = decoder
        self.items = items
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func decodeNil() throws -> Bool { try next(Any?.self) { $0.decodeNil() } }
    mutating func decode<T: Decodable & ScalarConstructible>(_ type: T.Type) throws -> T {
        try next(type) { try $0.decodeValue(type) }
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try $0.decodeValue(type) } }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try $0.unkeyedContainer() }
    }
    mutating func superDecoder() throws -> any Decoder { try next((any Decoder).self) { $0 } }

    /// Decodes the current element and moves past it only if that worked, as Yams' container does.
    private mutating func next<T, Result>(_ type: T.Type, _ body: (TreeDecoder) throws -> Result) throws -> Result {
        let key = IndexCodingKey(index: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end."))
        }
        let result = try body(decoder.child(items[currentIndex], key: key))
        currentIndex += 1
        return result
    }
}
