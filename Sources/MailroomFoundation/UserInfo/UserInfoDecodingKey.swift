import Foundation

/// The coding keys the decoder adds to coding paths itself: `"Index N"` for array elements (with `intValue` N,
/// as Foundation's decoders spell them) and `"super"` for `superDecoder()`.
struct UserInfoDecodingKey: CodingKey {
    /// The name of a string key; nil for an index, whose string is made only when asked for.
    private let name: String?
    let intValue: Int?

    var stringValue: String { name ?? "Index \(intValue ?? 0)" }

    init(stringValue: String) {
        name = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        self.init(index: intValue)
    }

    init(index: Int) {
        name = nil
        intValue = index
    }

    /// The key `superDecoder()` reads, as the `Codable` documentation names it.
    static let superKey = UserInfoDecodingKey(stringValue: "super")
}
