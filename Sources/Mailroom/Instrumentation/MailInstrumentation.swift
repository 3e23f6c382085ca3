/// Watches an office's mail, and carries a value (a trace context, say) from each post to the deliveries that
/// run later, so that every recipient runs in its poster's context.
///
/// Give one to ``PostOffice/init(instrumentation:unheardFailures:)``: the office calls it for every post,
/// delivery, failure and undelivered mail. `MailroomObservability` (a library of this package, behind its `Observability` trait) implements it
/// for swift-distributed-tracing, swift-log and swift-metrics; write your own for anything else.
///
/// ```swift
/// struct PostCounter: MailInstrumentation {
///     let posts: Counter   // any Sendable counter of yours
///     func posted(_ mailType: any Mail.Type) { posts.increment() }
/// }
/// let office = PostOffice(instrumentation: PostCounter(posts: Counter()))
/// ```
///
/// ## What the office calls, and where
/// - `posted(_:)`: once per post (including the office's own posts of ``DeliveryFailure`` and
///   ``UndeliveredMail``), on the posting thread, before any recipient.
/// - `delivered(_:)`: for each recipient called on the posting thread, during the post, before its handler.
/// - `capture(_:)` then `run(_:in:_:)`: for each delivery that runs later (on a queue, on the main
///   actor through the main queue, on a task, or taken from a ``MailSequence`` by ``MailSequence/receive(isolation:_:)``).
///   `capture` runs on the posting thread during the post, and what it returns is handed to `run` (or its
///   asynchronous form, for async closures and actors) around the handler, wherever and whenever it runs. A
///   delivery dropped before it runs (unregistered, recipient gone, office released) is captured and never run.
///   Mail a `for await` loop takes from a sequence is run with an empty handler as the loop takes it
///   (``Delivery/Place/forAwaitLoop``): the loop's body runs after, in the loop's own task.
/// - Sticky mail (``StickyMail``) replayed to a new registration is delivered during the `register` call, not a
///   post: `delivered` or `capture` run there, in the registering code's context, and `posted` is not called.
/// - `failed(_:)`: when a handler throws, on the thread where it ran (inside `run` for a deferred
///   delivery), before the ``DeliveryFailure`` is posted.
/// - `undelivered(_:)`: when a post reaches no recipient, on the posting thread, whether or not anything
///   is registered for ``UndeliveredMail`` (not for posts of `DeliveryFailure` or `UndeliveredMail` themselves).
///
/// Every method may be called on several threads at once. They must not post to, register with or unregister
/// from the office that calls them. Each has a default that does nothing (`run` calls the handler), so an
/// instrumentation implements only what it needs.
///
/// ## Cost
/// An office made without an instrumentation calls none of this and costs what it did: its posts execute the same
/// instructions (the instruction gate checks it). An instrumented office takes its posts' slow paths, and
/// allocates once per deferred delivery, for what `capture` returned (docs/performance.md has the figures).
public protocol MailInstrumentation: Sendable {
    /// What a deferred delivery carries from its post to its handler: a trace context and the time of the post,
    /// for instance.
    associatedtype Context: Sendable = Void

    /// A post of mail of `mailType` (its dynamic type) starts.
    func posted(_ mailType: any Mail.Type)

    /// A recipient's handler is about to run on the posting thread, during the post.
    func delivered(_ delivery: Delivery)

    /// A delivery will run later: returns what its handler's `run(_:in:_:)` receives. Called on the posting
    /// thread, during the post, so task-local values (`ServiceContext.current`) are the poster's.
    func capture(_ delivery: Delivery) -> Context

    /// Runs a deferred delivery's synchronous handler (on a queue or the main actor), which `context` was captured
    /// for. Must call `handler` exactly once, on the calling thread, before returning.
    func run(_ delivery: Delivery, in context: Context, _ handler: () -> Void)

    /// Runs a deferred delivery's asynchronous handler (an async closure, an actor, a sequence's `receive`),
    /// which `context` was captured for. Must call `handler` exactly once before returning, on `isolation`.
    func run(
        _ delivery: Delivery, in context: Context, isolation: isolated (any Actor)?, _ handler: () async -> Void
    ) async

    /// A recipient's handler threw: `failure` is what the office posts next as a ``DeliveryFailure``.
    func failed(_ failure: DeliveryFailure)

    /// A post reached no recipient: `report` is what the office posts to registrations for ``UndeliveredMail``,
    /// if there are any.
    func undelivered(_ report: UndeliveredMail)
}

extension MailInstrumentation {
    /// Does nothing.
    public func posted(_ mailType: any Mail.Type) {}

    /// Does nothing.
    public func delivered(_ delivery: Delivery) {}

    /// Calls `handler`.
    public func run(_ delivery: Delivery, in context: Context, _ handler: () -> Void) {
        handler()
    }

    /// Calls `handler`.
    public func run(
        _ delivery: Delivery, in context: Context, isolation: isolated (any Actor)?, _ handler: () async -> Void
    ) async {
        await handler()
    }

    /// Does nothing.
    public func failed(_ failure: DeliveryFailure) {}

    /// Does nothing.
    public func undelivered(_ report: UndeliveredMail) {}
}

extension MailInstrumentation where Context == Void {
    /// Captures nothing.
    public func capture(_ delivery: Delivery) {}
}
