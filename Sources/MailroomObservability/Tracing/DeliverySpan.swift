#if Observability
import Instrumentation
import Mailroom
import Tracing

/// The span a deferred delivery runs in, while its handler runs: bound in a task-local, so that a failure the
/// office reports on the same thread or task, inside `run`, finds it.
///
/// Task-local values work on plain threads too (a queue's, the main queue's) for the synchronous `withValue`.
struct DeliverySpan: Sendable {
    /// The delivery span of the handler running on this thread or task, if any.
    @TaskLocal static var current: DeliverySpan?

    /// The names of the spans' attributes.
    enum Attribute {
        static let mailType = "mailroom.mail_type"
        static let place = "mailroom.delivery.place"
        static let recipient = "mailroom.recipient"
    }

    let span: any Span
    /// The registration delivered to; `nil` for a sequence's delivery.
    let recipient: RecipientId?

    /// Starts the span of `delivery`, named `name`: a consumer span, child of `context`'s span (in the poster's
    /// trace) and linked to it, or a root span when nothing was captured; with its mail type, place and, but for a
    /// sequence's delivery, its recipient as attributes.
    static func start(
        _ delivery: Delivery, named name: String, in context: ServiceContext?, tracer: any Tracer
    ) -> DeliverySpan {
        let span = tracer.startSpan(name, context: context ?? .topLevel, ofKind: .consumer)
        if let context {
            span.addLink(SpanLink(context: context, attributes: [:]))
        }
        span.updateAttributes { attributes in
            attributes[Attribute.mailType] = name
            attributes[Attribute.place] = delivery.place.label
            if let recipient = delivery.recipient {
                attributes[Attribute.recipient] = "\(recipient)"
            }
        }
        return DeliverySpan(span: span, recipient: delivery.recipient)
    }

    /// Records `failure` on the span: as an error event, and as the span's status when it is the failure of this
    /// delivery's handler (its recipient is this delivery's). The failure of a recipient of other mail that the
    /// handler posted, delivered synchronously within it, only adds the event.
    func record(_ failure: DeliveryFailure) {
        span.recordError(failure.error, attributes: [Attribute.recipient: "\(failure.recipient)"])
        if failure.recipient == recipient {
            span.setStatus(SpanStatus(code: .error))
        }
    }
}
#endif
