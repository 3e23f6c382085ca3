/// What a consuming handler did with the mail: passed it on to the recipients after it, or consumed it.
///
/// An interceptor, a closure or method registered with `intercept` instead of `register`, returns a
/// `Consumption`:
///
/// ```swift
/// office.intercept(priority: .high) { (key: KeyPress) -> Consumption in
///     guard key == .escape else { return .passOn }
///     dialog.close()
///     return .consumed   // no recipient after this one receives this key press
/// }
/// ```
///
/// When it returns ``consumed``, the post ends there: the recipients after it (by ``Priority``, then
/// registration order) are neither called nor enqueued. Deliveries enqueued before it (to a queue, the main
/// actor, a task or an actor) still run, and ``PostOffice/deliver(_:)-9cnzh`` still waits for them. Consumed
/// mail was received, so it is not ``UndeliveredMail``; sticky mail is kept as posted, and a registration
/// added later receives it. A handler that throws has not consumed the mail. Interceptors run during the post,
/// on the posting thread: no `intercept` form takes a queue, the main actor, a task or an actor.
public enum Consumption: Sendable, Hashable {
    /// The recipients after this one receive the mail too.
    case passOn
    /// The post ends here: no recipient after this one receives the mail.
    case consumed
}
