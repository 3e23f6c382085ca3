import Foundation

extension UserInfoEncoder {
    /// What every encoder and container of one ``UserInfoEncoder/encode(_:)`` call shares.
    final class Session {
        let userInfo: [CodingUserInfoKey: Any]

        /// The first misuse a model made through a method that cannot throw (asking one encoder for a second kind
        /// of container); ``UserInfoEncoder/encode(_:)`` throws it once the model is done.
        private(set) var misuse: EncodingError?

        init(userInfo: [CodingUserInfoKey: any Sendable]) {
            self.userInfo = userInfo
        }

        func record(_ error: EncodingError) {
            if misuse == nil {
                misuse = error
            }
        }

        /// Writes `value` into `node`: as itself when it is a type the dictionary holds as is (which also keeps
        /// `Date`, `URL`, `Data` and the geometry types from encoding as numbers), else through its `encode(to:)`.
        func write<T: Encodable>(_ value: T, into node: Node, at codingPath: [any CodingKey]) throws {
            if T.self is any StoredAsIs.Type {
                guard node.store(value) else {
                    throw Self.secondValue(value, in: node, at: codingPath)
                }
                return
            }
            try value.encode(to: Writer(node: node, session: self, codingPath: codingPath))
        }

        static func secondValue(_ value: Any, in node: Node, at codingPath: [any CodingKey]) -> EncodingError {
            EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Cannot encode a single value where \(node.shapeDescription) was already encoded."
                )
            )
        }
    }

    /// A type that the dictionary holds as its own Swift value.
    protocol StoredAsIs {}

    /// A coding key for the positions the model does not name: array indices and `super`.
    struct PositionKey: CodingKey {
        let stringValue: String
        let intValue: Int?

        init(stringValue: String) {
            self.stringValue = stringValue
            intValue = nil
        }

        init(intValue: Int) {
            stringValue = "Index \(intValue)"
            self.intValue = intValue
        }

        static let `super` = PositionKey(stringValue: "super")
    }
}

extension String: UserInfoEncoder.StoredAsIs {}
extension Bool: UserInfoEncoder.StoredAsIs {}
extension Int: UserInfoEncoder.StoredAsIs {}
extension Int8: UserInfoEncoder.StoredAsIs {}
extension Int16: UserInfoEncoder.StoredAsIs {}
extension Int32: UserInfoEncoder.StoredAsIs {}
extension Int64: UserInfoEncoder.StoredAsIs {}
extension UInt: UserInfoEncoder.StoredAsIs {}
extension UInt8: UserInfoEncoder.StoredAsIs {}
extension UInt16: UserInfoEncoder.StoredAsIs {}
extension UInt32: UserInfoEncoder.StoredAsIs {}
extension UInt64: UserInfoEncoder.StoredAsIs {}
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension Int128: UserInfoEncoder.StoredAsIs {}
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension UInt128: UserInfoEncoder.StoredAsIs {}
extension Float: UserInfoEncoder.StoredAsIs {}
extension Double: UserInfoEncoder.StoredAsIs {}
extension Date: UserInfoEncoder.StoredAsIs {}
extension URL: UserInfoEncoder.StoredAsIs {}
extension Data: UserInfoEncoder.StoredAsIs {}
extension CGFloat: UserInfoEncoder.StoredAsIs {}
extension CGPoint: UserInfoEncoder.StoredAsIs {}
extension CGSize: UserInfoEncoder.StoredAsIs {}
extension CGRect: UserInfoEncoder.StoredAsIs {}
