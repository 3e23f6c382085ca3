/// Routes posted ``Mail`` to the recipients registered for its type.
///
/// Register a closure, or a method of an object, for a mail type; every value of that type posted to the
/// office is delivered to it:
///
/// ```swift
/// let office = PostOffice()
/// office.register { (change: CartChanged) in print(change.itemCount) }
/// office.post(CartChanged(itemCount: 3))   // prints 3
/// ```
///
/// ## Guarantees
/// - **Order.** The recipients of one post are called by ``Priority``, highest first, and those of equal
///   priority in the order they registered, whatever mail type or sender filter they registered with, the same
///   way on every run. A handler that returns ``Consumption/consumed`` ends the post.
/// - **Failures.** A handler may throw: the recipients after it are still served, and the failure is posted as
///   a ``DeliveryFailure`` (``deliver(_:)-9cnzh`` throws it as well). `post` never throws.
/// - **Synchronous delivery.** A registration without a queue is called on the posting thread before `post`
///   returns. One with a queue is called asynchronously on that queue, never inline, even when posting from
///   it; on a serial queue, each recipient receives its mail in post order.
/// - **Weak recipients.** A method registration holds its recipient weakly; once the recipient deallocates,
///   it receives nothing more and its registrations are reclaimed without waiting for a post. A closure
///   registration holds its closure until it is unregistered, then releases it.
/// - **Unregistering.** After ``unregister(_:)-(RecipientId)`` returns, the registration receives nothing
///   posted later; a registration removed by a handler is not called later in the same post; a queued
///   delivery that has not started yet is dropped.
/// - **Releasing the office.** When the last reference to an office goes, its registrations go with it: their
///   closures are released, and queued deliveries that have not started are dropped.
/// - **Re-entrancy.** Handlers may post, register and unregister on the same office. A registration added
///   during a post is not called by that post.
/// - **Threads.** Register, post and unregister from any thread at once. Posts take no lock once the office
///   has seen their kind of post before, allocate nothing for synchronous recipients that do not throw, and
///   cost time in proportion to the recipients they reach, not to the registrations for other types or senders.
public final class PostOffice: Sendable {
    /// The office shared by the whole process, like `NotificationCenter.default`.
    public static let `default` = PostOffice()

    @usableFromInline
    let sortingOffice: SortingOffice

    /// Creates an office with no registrations. A failure that no registration for ``DeliveryFailure``
    /// receives is written to standard error, one line for the first failure of each kind (mail type and error
    /// type).
    public init() {
        sortingOffice = SortingOffice(fallback: FailureFallback(nil))
    }

    /// Creates an office with no registrations that hands `unheardFailures` every failure that no registration
    /// for ``DeliveryFailure`` receives (catch-alls do not count), and every failure of a handler of
    /// `DeliveryFailure`: a logger of last resort. It is called on the thread where the failing handler ran, so
    /// possibly on several threads at once; whatever it posts is posted as usual.
    public init(unheardFailures: @escaping @Sendable (DeliveryFailure) -> Void) {
        sortingOffice = SortingOffice(fallback: FailureFallback(unheardFailures))
    }

    /// Creates an office with no registrations that reports its posts, deliveries, failures and undelivered mail
    /// to `instrumentation`, and runs every delivery that waits (on a queue, the main actor, a task, a sequence's
    /// ``MailSequence/receive(isolation:_:)``) in the context `instrumentation` captured from its post.
    ///
    /// Unheard failures go to `unheardFailures` when given, as for ``init(unheardFailures:)``, else to standard
    /// error, as for ``init()``: `instrumentation` sees every failure as well (``MailInstrumentation/failed(_:)``).
    public init(
        instrumentation: some MailInstrumentation, unheardFailures: (@Sendable (DeliveryFailure) -> Void)? = nil
    ) {
        sortingOffice = SortingOffice(
            fallback: FailureFallback(unheardFailures), instrumenter: Instrumenter(instrumentation)
        )
    }

    // MARK: - Posting

    /// Delivers `mail` to every registration for its type (and, for a class, its superclasses) that does
    /// not ask for a sender.
    ///
    /// Registrations whose handler takes an optional sender, `(M, S?)`, receive it with a `nil` sender;
    /// those that require a sender, `(M, S)`, or listen to one exact sender do not receive it.
    @inlinable
    public func post<M: Mail>(_ mail: M) {
        withUnsafePointer(to: mail) {
            sortingOffice.post(UnsafeRawPointer($0), type: type(of: mail))
        }
    }

    /// Delivers `mail`, sent by `sender`, to every registration for its type that accepts that sender.
    ///
    /// That is: registrations that ignore the sender; those whose handler takes a sender of `sender`'s
    /// class or a superclass of it, `(M, S)` or `(M, S?)`; and those registered for exactly this `sender`.
    /// With a `nil` sender this is ``post(_:)-8xae0``.
    @inlinable
    public func post<M: Mail, S: AnyObject & Sendable>(_ mail: M, sender: S?) {
        // Mapped rather than unwrapped with `guard let`, which would retain the sender.
        guard let unretained = sender.map({ Unmanaged<SendableObject>.passUnretained($0) }) else { return post(mail) }
        withUnsafePointer(to: mail) {
            sortingOffice.post(UnsafeRawPointer($0), type: type(of: mail), sender: unretained)
        }
    }

    /// Posts `mail` from `sender`, if any, for `receipt`, if any, to follow: what the forms of `post` and
    /// `deliver` that are not on the fast path come down to.
    @inlinable
    func send<M: Mail>(_ mail: M, from sender: SendableObject?, receipt: Receipt? = nil) {
        withUnsafePointer(to: mail) {
            let (mailPointer, mailType) = (UnsafeRawPointer($0), type(of: mail))
            if let sender {
                sortingOffice.post(mailPointer, type: mailType, sender: .passUnretained(sender), receipt: receipt)
            } else {
                sortingOffice.post(mailPointer, type: mailType, receipt: receipt)
            }
        }
    }

    // MARK: - Unregistering

    /// Removes the registration `id` names.
    ///
    /// Once this returns, the registration receives nothing posted afterwards and its queued deliveries that
    /// have not started are dropped. Its closure is released at once when no post is running; otherwise as
    /// soon as every post that was running (on any office, on any thread) has finished, since one of them might
    /// be about to call it. An id this office does not know, or already removed, changes nothing.
    public func unregister(_ id: RecipientId) {
        sortingOffice.unregister(id)
    }

    /// Removes every registration of `recipient`: those of its methods, and those tied to it with `tiedTo:`.
    ///
    /// Other closure registrations are not tied to an object and stay; remove them by their ``RecipientId``.
    public func unregister(_ recipient: AnyObject) {
        sortingOffice.unregister(recipient: recipient)
    }

    // MARK: - Inspecting

    /// The number of live registrations.
    ///
    /// Registrations whose recipient or exact sender has deallocated are not counted: reading this property
    /// reclaims them. It takes time in proportion to the registrations held weakly.
    public var registrationCount: Int {
        sortingOffice.registrationCount
    }

    /// Adds a registration the caller just made. Inlined into the register overloads, so that the reference the
    /// caller holds passes to the office: no retain when the office keeps it, no release when the caller is done.
    @inlinable
    func enroll(_ registration: consuming Registration) -> RecipientId {
        sortingOffice.register(.passRetained(consume registration))
    }
}
