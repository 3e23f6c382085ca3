import Foundation

extension UserInfoEncoder {
    /// A keyed container: writes each value under its key's `stringValue` in a keyed node.
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let session: Session
        let codingPath: [any CodingKey]

        private func put(_ value: Any, forKey key: Key) {
            node.fields[key.stringValue] = Node(value: value)
        }

        mutating func encodeNil(forKey key: Key) throws { put(NSNull(), forKey: key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(value, forKey: key) }
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        mutating func encode(_ value: Int128, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { put(value, forKey: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { put(value, forKey: key) }
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        mutating func encode(_ value: UInt128, forKey key: Key) throws { put(value, forKey: key) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let child = Node()
            node.fields[key.stringValue] = child
            try session.write(value, into: child, at: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = node.child(forKey: key.stringValue, shape: .keyed)
            return KeyedEncodingContainer(
                KeyedContainer<NestedKey>(node: child, session: session, codingPath: codingPath + [key])
            )
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = node.child(forKey: key.stringValue, shape: .unkeyed)
            return UnkeyedContainer(node: child, session: session, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder {
            superEncoder(named: PositionKey.super)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            superEncoder(named: key)
        }

        private func superEncoder(named key: any CodingKey) -> any Encoder {
            let child = Node()
            node.fields[key.stringValue] = child
            return Writer(node: child, session: session, codingPath: codingPath + [key])
        }
    }
}
