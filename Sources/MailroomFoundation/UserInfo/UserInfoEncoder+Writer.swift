import Foundation

extension UserInfoEncoder {
    /// The `Encoder` a model's `encode(to:)` receives: one per position in the output.
    struct Writer: Encoder {
        let node: Node
        let session: Session
        let codingPath: [any CodingKey]

        var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let target = node.becomeKeyed() ? node : detached(.keyed, asked: "a keyed container")
            return KeyedEncodingContainer(KeyedContainer<Key>(node: target, session: session, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let target = node.becomeUnkeyed() ? node : detached(.unkeyed, asked: "an unkeyed container")
            return UnkeyedContainer(node: target, session: session, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(node: node, session: session, codingPath: codingPath)
        }

        /// Records the misuse and returns a node outside the output, so the model's further writes are harmless.
        private func detached(_ shape: Node.Shape, asked: String) -> Node {
            session.record(
                EncodingError.invalidValue(
                    asked,
                    EncodingError.Context(
                        codingPath: codingPath,
                        debugDescription: "Asked for \(asked) where \(node.shapeDescription) was already encoded."
                    )
                )
            )
            return Node(shape: shape)
        }
    }

    /// A single-value container: holds one value, or forwards a nested model's own containers to its node.
    struct SingleValueContainer: SingleValueEncodingContainer {
        let node: Node
        let session: Session
        let codingPath: [any CodingKey]

        private func store(_ value: Any) throws {
            guard node.store(value) else {
                throw Session.secondValue(value, in: node, at: codingPath)
            }
        }

        mutating func encodeNil() throws { try store(NSNull()) }
        mutating func encode(_ value: Bool) throws { try store(value) }
        mutating func encode(_ value: String) throws { try store(value) }
        mutating func encode(_ value: Double) throws { try store(value) }
        mutating func encode(_ value: Float) throws { try store(value) }
        mutating func encode(_ value: Int) throws { try store(value) }
        mutating func encode(_ value: Int8) throws { try store(value) }
        mutating func encode(_ value: Int16) throws { try store(value) }
        mutating func encode(_ value: Int32) throws { try store(value) }
        mutating func encode(_ value: Int64) throws { try store(value) }
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        mutating func encode(_ value: Int128) throws { try store(value) }
        mutating func encode(_ value: UInt) throws { try store(value) }
        mutating func encode(_ value: UInt8) throws { try store(value) }
        mutating func encode(_ value: UInt16) throws { try store(value) }
        mutating func encode(_ value: UInt32) throws { try store(value) }
        mutating func encode(_ value: UInt64) throws { try store(value) }
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        mutating func encode(_ value: UInt128) throws { try store(value) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            guard node.shape == .unset else {
                throw Session.secondValue(value, in: node, at: codingPath)
            }
            try session.write(value, into: node, at: codingPath)
        }
    }
}
