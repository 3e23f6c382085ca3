import Dispatch
internal import _MailroomAtomics

/// Tells, without trapping, whether the calling code runs on the main actor.
///
/// The main actor's executor is the main queue. On Apple platforms that queue only ever runs on the main thread;
/// on Linux, once a program parks its main thread (`dispatchMain()`, or an `async` main), blocks on the main
/// queue run on other threads. So: the main thread, or a block of the main queue.
@usableFromInline
enum MainActorContext {
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// True when the caller runs on the main actor: on the main thread (a thread-local read), or, off it, in a block
    /// of the main queue. Out of line: a post's loop calls it for a main-actor registration, and inlined there, the
    /// thread's address would be computed for every post, main-actor recipients or not.
    @inline(never)
    static var isCurrent: Bool {
        if mailroom_is_main_thread() {
            return true
        }
        #if os(Linux)
        // A few nanoseconds, where `getSpecific` takes tens: the common case off the main thread, an `async`
        // main's main actor.
        if mailroom_is_main_queue() {
            return true
        }
        #endif
        return isCurrentBySpecific
    }

    /// Whether the caller runs in a block of the main queue, or of a queue that targets it, asked of the queue.
    @inline(never)
    private static var isCurrentBySpecific: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// `handler`, callable without the run-time check of `MainActor.assumeIsolated`, for a registration's
    /// handler: a post calls it only where the main actor runs, on the posting thread when ``isCurrent`` or in a
    /// block of the main queue (``Registration/Place/mainActor``). The check cost a main-actor post most of
    /// its time; `MainActor.assumeIsolated` itself calls its operation through the same cast once it has
    /// checked. The types are concrete, not generic, so that the cast's two conversions are made once, here.
    /// See docs/design.md.
    @usableFromInline
    static func enteredBy(_ handler: @escaping Registration.MainActorHandler) -> Registration.Handler {
        unsafeBitCast(handler, to: Registration.Handler.self)
    }

    /// ``enteredBy(_:)-(Registration.MainActorHandler)`` for a registration for a protocol's handler.
    static func enteredBy<A, B, E: Error>(
        _ body: @escaping @MainActor (A, B) throws(E) -> Void
    ) -> @Sendable (A, B) throws(E) -> Void {
        unsafeBitCast(body, to: (@Sendable (A, B) throws(E) -> Void).self)
    }
}
