// Objects that show when the office releases what it holds.

/// An object that runs `onDeinit` when it deallocates, to observe when the office releases it.
final class Token: Sendable {
    private let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void = {}) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

/// A weak reference to `object`, readable from any thread: it becomes nil once nothing else holds the object.
final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
