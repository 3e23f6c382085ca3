/// A sender or a recipient: any object that may be handed to another thread.
@usableFromInline
typealias SendableObject = AnyObject & Sendable

extension Optional where Wrapped == SendableObject {
    /// The object, known by the route that delivered it to be non-nil and of class `T`.
    @inlinable
    func known<T: AnyObject>(as _: T.Type) -> T {
        unsafeDowncast(unsafelyUnwrapped, to: T.self)
    }

    /// The object if there is one, known by the route that delivered it to be of class `T`.
    @inlinable
    func knownOrNil<T: AnyObject>(as _: T.Type) -> T? {
        map { unsafeDowncast($0, to: T.self) }
    }
}
