import Foundation

extension UserInfoEncoder {
    /// An unkeyed container: appends each value to an unkeyed node, in order.
    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let session: Session
        let codingPath: [any CodingKey]

        var count: Int { node.elements.count }

        private func append(_ value: Any) {
            node.elements.append(Node(value: value))
        }

        /// Appends an empty slot and returns it with its coding path, so what fills it keeps its position.
        private func appendSlot(_ shape: Node.Shape) -> (node: Node, codingPath: [any CodingKey]) {
            let path = codingPath + [PositionKey(intValue: count)]
            let slot = Node(shape: shape)
            node.elements.append(slot)
            return (slot, path)
        }

        mutating func encodeNil() throws { append(NSNull()) }
        mutating func encode(_ value: Bool) throws { append(value) }
        mutating func encode(_ value: String) throws { append(value) }
        mutating func encode(_ value: Double) throws { append(value) }
        mutating func encode(_ value: Float) throws { append(value) }
        mutating func encode(_ value: Int) throws { append(value) }
        mutating func encode(_ value: Int8) throws { append(value) }
        mutating func encode(_ value: Int16) throws { append(value) }
        mutating func encode(_ value: Int32) throws { append(value) }
        mutating func encode(_ value: Int64) throws { append(value) }
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        mutating func encode(_ value: Int128) throws { append(value) }
        mutating func encode(_ value: UInt) throws { append(value) }
        mutating func encode(_ value: UInt8) throws { append(value) }
        mutating func encode(_ value: UInt16) throws { append(value) }
        mutating func encode(_ value: UInt32) throws { append(value) }
        mutating func encode(_ value: UInt64) throws { append(value) }
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        mutating func encode(_ value: UInt128) throws { append(value) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let slot = appendSlot(.unset)
            try session.write(value, into: slot.node, at: slot.codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let slot = appendSlot(.keyed)
            return KeyedEncodingContainer(
                KeyedContainer<NestedKey>(node: slot.node, session: session, codingPath: slot.codingPath)
            )
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let slot = appendSlot(.unkeyed)
            return UnkeyedContainer(node: slot.node, session: session, codingPath: slot.codingPath)
        }

        mutating func superEncoder() -> any Encoder {
            let slot = appendSlot(.unset)
            return Writer(node: slot.node, session: session, codingPath: slot.codingPath)
        }
    }
}
