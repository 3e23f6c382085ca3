/// An office's ``MailInstrumentation``, behind one reference: what registrations and posts hold and call.
final class Instrumenter: Sendable {
    private let instrumentation: any MailInstrumentation

    init(_ instrumentation: some MailInstrumentation) {
        self.instrumentation = instrumentation
    }

    func posted(_ mailType: any Mail.Type) {
        instrumentation.posted(mailType)
    }

    func delivered(_ mailType: any Mail.Type, to recipient: RecipientId) {
        instrumentation.delivered(Delivery(mailType: mailType, recipient: recipient, place: .postingThread))
    }

    /// Captures, on the posting thread, what a delivery of `mailType` to `recipient` that runs later at `place`
    /// carries.
    func capture(_ mailType: any Mail.Type, to recipient: RecipientId?, at place: Delivery.Place)
        -> any CapturedContext
    {
        Self.capture(Delivery(mailType: mailType, recipient: recipient, place: place), by: instrumentation)
    }

    private static func capture<I: MailInstrumentation>(_ delivery: Delivery, by instrumentation: I)
        -> any CapturedContext
    {
        Captured(instrumentation: instrumentation, delivery: delivery, context: instrumentation.capture(delivery))
    }

    func failed(_ failure: DeliveryFailure) {
        instrumentation.failed(failure)
    }

    func undelivered(_ report: UndeliveredMail) {
        instrumentation.undelivered(report)
    }
}

/// What one deferred delivery carries from its post: the context its instrumentation captured, to run the
/// handler in.
protocol CapturedContext: AnyObject, Sendable {
    func run(_ handler: () -> Void)
    func run(isolation: isolated (any Actor)?, _ handler: () async -> Void) async
    /// Tells the instrumentation that a `for await` loop took the mail (``Delivery/Place/forAwaitLoop``).
    func runTakenByLoop()
}

/// A ``CapturedContext`` of an instrumentation of type `I`: keeps the context's own type, so nothing is cast.
private final class Captured<I: MailInstrumentation>: CapturedContext {
    let instrumentation: I
    let delivery: Delivery
    let context: I.Context

    init(instrumentation: I, delivery: Delivery, context: I.Context) {
        self.instrumentation = instrumentation
        self.delivery = delivery
        self.context = context
    }

    func run(_ handler: () -> Void) {
        instrumentation.run(delivery, in: context, handler)
    }

    func run(isolation: isolated (any Actor)?, _ handler: () async -> Void) async {
        await instrumentation.run(delivery, in: context, isolation: isolation, handler)
    }

    func runTakenByLoop() {
        let taken = Delivery(mailType: delivery.mailType, recipient: delivery.recipient, place: .forAwaitLoop)
        instrumentation.run(taken, in: context) {}
    }
}

extension Optional where Wrapped == any CapturedContext {
    /// Runs `handler` in the captured context, or as it is when nothing was captured.
    @inline(__always)
    func run(_ handler: () -> Void) {
        if let self {
            self.run(handler)
        } else {
            handler()
        }
    }
}
