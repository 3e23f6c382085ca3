/// Keeps an exact sender's address from being reused while the office has routes for it.
///
/// Routes for a sender are published under its address. An `unowned` reference keeps the object's memory
/// allocated after it deinitializes (it does not keep it alive), so no other object can take that address
/// until the office drops this identity; a post that finds a route under a sender's address therefore has
/// the sender the route was built for, without loading a weak reference.
final class SenderIdentity: Sendable {
    unowned let object: SendableObject

    init(_ object: SendableObject) {
        self.object = object
    }

    var address: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }
}
