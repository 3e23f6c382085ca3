/// The machinery behind a ``PostOffice``: its registrations under a lock, and the routes that posts read
/// without one.
///
/// Writers (register, unregister, the first post of a kind) take the lock, change the ``Registry``, and do what
/// the change returns (retire what it unlinked, sweep, release sticky letters) after unlocking: releasing an
/// object or loading a weak reference may run a `deinit` that calls back into this office. Posts take no lock
/// once their route exists: they read the published tables inside a ``ReadSection``.
@usableFromInline
final class SortingOffice: Sendable {
    private let registry: Locked<Registry>
    /// Publishes the table from (mail type, sender class) to type routes.
    private let typeTable = AtomicWord.allocate()
    /// Publishes the table from sender to identity and from (sender, mail type) to instance routes.
    private let senderTable = AtomicWord.allocate()
    /// The number of registrations that may receive ``UndeliveredMail``.
    private let undeliveredMailRecipients = AtomicWord.allocate()
    /// Where failures go that no registration received.
    let fallback: FailureFallback
    /// What the office reports its mail to, and what carries its posts' context to deferred deliveries.
    let instrumenter: Instrumenter?

    init(fallback: FailureFallback, instrumenter: Instrumenter? = nil) {
        self.fallback = fallback
        self.instrumenter = instrumenter
        registry = Locked(
            Registry(
                typeTable: typeTable, senderTable: senderTable, undeliveredMailRecipients: undeliveredMailRecipients,
                isObserved: instrumenter != nil
            )
        )
    }

    deinit {
        // Releasing the office is unregistering everything: queued deliveries that have not started are dropped.
        registry.withLock { $0.dropQueuedDeliveries() }
        typeTable.deallocate()
        senderTable.deallocate()
        undeliveredMailRecipients.deallocate()
    }

    /// True while some registration may receive ``UndeliveredMail``.
    var hasUndeliveredMailRecipients: Bool {
        undeliveredMailRecipients.loadRelaxed() != 0
    }

    // MARK: - Writers

    /// Adds `registration`, taking over the reference the caller passes (see ``PostOffice/enroll(_:)``).
    @usableFromInline
    func register(_ registration: Unmanaged<Registration>) -> RecipientId {
        let addition = change { $0.add(registration) }
        retire(addition.retired)
        if let candidates = addition.sweepCandidates {
            sweep(candidates)
        }
        return addition.id
    }

    func unregister(_ id: RecipientId) {
        let removal = change { $0.remove(id) }
        retire(removal.retired)
    }

    func unregister(recipient: AnyObject) {
        // The caller holds the recipient, so every registration under its identifier is either its own or
        // one of an object that had the same address and has gone: both are to be removed.
        let recipientKey = ObjectIdentifier(recipient)
        let removal = change { $0.remove($0.registrations(ofRecipient: recipientKey)) }
        retire(removal.retired)
    }

    /// The registrations held, including dead ones not swept yet; for tests of reclamation.
    var heldRegistrationCount: Int {
        registry.withLock { $0.count }
    }

    /// The registrations held, in the order posts call them, with their ids.
    var registrations: [RegistrationSlots.Record] {
        registry.withLock { $0.registrations }
    }

    var registrationCount: Int {
        sweep(registry.withLock { $0.mortalRegistrations })
        return heldRegistrationCount
    }

    // MARK: - Sticky mail

    /// Keeps `mail` as the last of its type from `sender`.
    @usableFromInline
    func keepSticky(_ mail: any Mail, sender: SendableObject?) {
        let letter = StickyLetter(mail, sender: sender)
        let replaced = registry.withLock { $0.keep(letter) }
        // Released here, after unlocking: its mail's `deinit` may call this office.
        withExtendedLifetime(replaced) {}
    }

    /// Forgets the sticky mail of `mailType`, from every sender or from one.
    func clearStickyMail(_ mailType: Any.Type, sender: SendableObject?) {
        let senderKey = sender.map(ObjectIdentifier.init)
        let forgotten = registry.withLock { $0.clearStickyMail(ObjectIdentifier(mailType), sender: senderKey) }
        // Released here, after unlocking: their mail's `deinit` may call this office.
        withExtendedLifetime(forgotten) {}
    }

    /// Delivers to registration `id` the sticky mail it accepts, oldest first. Returns how many it received.
    func replayStickyMail(to id: RecipientId) -> Int {
        guard let replay = registry.withLock({ $0.stickyLetters(for: id) }) else { return 0 }
        let lost = replay.letters.filter(\.hasLostItsSender)
        if !lost.isEmpty {
            registry.withLock { $0.forget(lost) }
        }
        let section = ReadSection()
        defer { section.end() }
        var received = 0
        for letter in replay.letters where !letter.hasLostItsSender {
            let mail = letter.mail
            let outcome = PostedMail.lend(mail) {
                replay.registration.deliver($0.address, type: type(of: mail), from: letter.liveSender, receipt: nil)
            }
            received += outcome == .dropped ? 0 : 1
        }
        return received
    }

    /// Removes the registrations whose recipient or exact sender has gone, among `candidates`.
    ///
    /// Whether an object has gone is checked outside the lock: loading a weak reference retains the object
    /// for a moment, and if that was its last reference its `deinit`, which may call back into this office,
    /// runs here.
    private func sweep(_ candidates: [RegistrationSlots.Record]) {
        let dead = candidates.filter { !$0.registration.isAlive }.map(\.id)
        let removal = change { $0.sweep(removing: dead) }
        retire(removal.retired)
    }

    /// Retires what a change unlinked, once no post can still reach it (see ``Reclamation``).
    @inline(__always)
    private func retire(_ garbage: consuming Garbage) {
        // Tested here too, inlined, so that a change that unlinked nothing (most registrations) makes no call.
        if !garbage.isEmpty {
            Reclamation.retire(garbage)
        }
    }

    /// Runs `body` under the lock and returns what it leaves to do, for the caller to do once unlocked.
    @inline(__always)
    private func change<Outcome: ~Copyable>(_ body: (inout Registry) -> Outcome) -> Outcome {
        // `Locked.withLock` returns only copyable results. Letting it return a noncopyable one costs 6
        // instructions more per register + unregister pair than passing the outcome out through an Optional.
        var outcome: Outcome?
        registry.withLock { outcome = body(&$0) }
        return outcome.take()!
    }

    // MARK: - Finding routes

    /// The published word of the route for posts of `mailType` with no sender or a sender of `senderClass`.
    /// `mail` is the posted value, in case the route must be built.
    @inline(__always)
    func typeRoute(
        _ mailType: any Mail.Type, senderClass: AnyClass?, mail: UnsafeRawPointer
    ) -> UnsafeMutablePointer<UInt> {
        let key = Registry.typeKey(mailType, senderClass: senderClass)
        let found = RouteTable.value(for: key, in: Self.table(typeTable))
        if found != 0 {
            return UnsafeMutablePointer(bitPattern: found).unsafelyUnwrapped
        }
        return buildTypeRoute(mailType, senderClass: senderClass, mail: mail)
    }

    @inline(never)
    private func buildTypeRoute(
        _ mailType: any Mail.Type, senderClass: AnyClass?, mail: UnsafeRawPointer
    ) -> UnsafeMutablePointer<UInt> {
        let lookup = change { registry in
            registry.typeRoute(
                for: mailType, senderClass: senderClass, sample: { PostedMail(mail, type: mailType).copy(as: mailType) }
            )
        }
        retire(lookup.retired)
        return lookup.route.published.address
    }

    /// The published word of the route for posts of `mailType` from exactly `sender`, or `nil` when no
    /// registration listens to that sender. `mail` as for ``typeRoute(_:senderClass:mail:)``.
    @inline(__always)
    func instanceRoute(
        _ mailType: any Mail.Type, sender: SendableObject, mail: UnsafeRawPointer
    ) -> UnsafeMutablePointer<UInt>? {
        let table = Self.table(senderTable)
        let senderKey = ObjectIdentifier(sender)
        let key = Registry.senderKey(senderKey, mailType: ObjectIdentifier(mailType))
        let found = RouteTable.value(for: key, in: table)
        if found != 0 {
            return UnsafeMutablePointer(bitPattern: found).unsafelyUnwrapped
        }
        // No route for this mail type yet: build one only if the sender has registrations at all.
        guard RouteTable.value(for: Registry.senderKey(senderKey), in: table) != 0 else { return nil }
        return buildInstanceRoute(mailType, sender: sender, mail: mail)
    }

    @inline(never)
    private func buildInstanceRoute(
        _ mailType: any Mail.Type, sender: SendableObject, mail: UnsafeRawPointer
    ) -> UnsafeMutablePointer<UInt>? {
        let lookup = change { registry in
            registry.instanceRoute(
                for: mailType, sender: sender, sample: { PostedMail(mail, type: mailType).copy(as: mailType) })
        }
        guard let lookup else { return nil }
        retire(lookup.retired)
        return lookup.route.published.address
    }

    @inline(__always)
    private static func table(_ word: AtomicWord) -> UnsafeMutablePointer<UInt> {
        UnsafeMutablePointer(bitPattern: word.loadAcquire()).unsafelyUnwrapped
    }
}
