/// Which recipients of a post are called first: a registration's place among the others, given when it is
/// made (`office.register(priority: .high) { ... }`).
///
/// A post calls its recipients by priority, highest first, and recipients of equal priority in the order they
/// registered, whatever mail type, sender filter, protocol or catch-all they registered with. Deferred
/// deliveries (a queue, the main actor, a task, an actor) are enqueued in that order too. Every registration
/// has ``normal`` priority unless it says otherwise.
///
/// The order is fixed when a registration is added, so a post costs the same whatever the priorities. Adding
/// a registration that goes before one already registered for the same posts copies that route's list of
/// recipients once; adding one at normal priority (or below every other) appends to it.
///
/// ```swift
/// office.register(priority: .high) { (key: KeyPress) in shortcuts.handle(key) }
/// office.register { (key: KeyPress) in editor.insert(key) }   // called second
/// ```
public struct Priority: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The priority's value: a recipient with a greater value is called before one with a smaller value.
    public let value: Int16

    /// A priority of `value`: any `Int16`, so every priority is valid; greater values are called first.
    public init(_ value: Int16) {
        self.value = value
    }

    /// `Priority(value)`, for writing `priority: 10`.
    public init(integerLiteral value: Int16) {
        self.value = value
    }

    /// 100: before every recipient of normal priority.
    public static let high = Priority(100)
    /// 0: every registration's priority unless it gives another.
    public static let normal = Priority(0)
    /// -100: after every recipient of normal priority.
    public static let low = Priority(-100)

    /// True when `lhs` is called after `rhs`: its value is smaller.
    public static func < (lhs: Priority, rhs: Priority) -> Bool {
        lhs.value < rhs.value
    }

    /// The value, as `Priority(value)` would write it: `Priority(100)`.
    public var description: String { "Priority(\(value))" }

    /// Where the priority puts a registration made `order`-th among the recipients of a post, as routes sort
    /// them: by priority, highest first, then by registration order. `order` must be below 2⁴⁸.
    @inline(__always)
    func rank(order: UInt) -> UInt {
        assert(order < 1 << 48, "registration order \(order) does not fit in 48 bits")
        return UInt(UInt16(bitPattern: Int16.max) &- UInt16(bitPattern: value)) << 48 | order
    }
}
