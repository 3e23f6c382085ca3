import Dispatch

extension Registration {
    /// What a delivery came to.
    enum Outcome {
        /// The registration did not take the mail: its recipient has gone, or it is a spent one-shot.
        case dropped
        /// A wiretap (`any Mail`) took it: that does not count as received, for ``UndeliveredMail``.
        case observed
        /// The handler ran, or will run on its queue, actor or task.
        case received
    }

    /// Delivers mail of dynamic type `mailType` (the registered mail type, a subclass of it, or a type that
    /// conforms to the registered protocol) from a sender this registration accepts. A delivery that does not
    /// run now joins `receipt`, if given, until it ran.
    @inline(__always)
    func deliver(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?, receipt: Receipt?
    ) -> Outcome {
        if case .now = delivery {
            return runNow(mail, from: sender)
        }
        return deliver(mail, type: mailType, from: sender, receipt: receipt, by: delivery)
    }

    @inline(__always)
    private func runNow(_ mail: UnsafeRawPointer, from sender: SendableObject?) -> Outcome {
        if recipientKey == nil {
            handler(mail, sender, nil)
        } else if let recipient {
            handler(mail, sender, recipient)
        } else {
            return .dropped
        }
        return .received
    }

    @inline(never)
    private func deliver(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?, receipt: Receipt?,
        by delivery: Delivery
    ) -> Outcome {
        // Checked at the post for deliveries that run later too, so that mail posted after the recipient went is
        // reported as undelivered; the deferred delivery checks again before it runs.
        if recipientKey != nil, recipient == nil {
            return .dropped
        }
        switch delivery {
        case .now:
            return runNow(mail, from: sender)
        case .queue(let queue):
            enqueue(Self.copy(mail, as: mailType), from: sender, on: queue, receipt: receipt)
        case .mainActor(let backlog) where backlog.value == 0 && MainActorContext.isCurrent:
            return runNow(mail, from: sender)
        case .mainActor(let backlog):
            // Counted until its block has run, so that a post made on the main actor meanwhile waits its turn.
            backlog.increment()
            enqueue(
                Self.copy(mail, as: mailType), from: sender, on: .main, receipt: receipt, finally: backlog.decrement)
        case .serially(let mailbox):
            receipt?.begin()
            if mailbox.append(Self.copy(mail, as: mailType), from: sender, receipt: receipt) {
                Task.detached { await self.drain(mailbox) }
            }
        case .conforming(let inner):
            deliverConforming(Self.copy(mail, as: mailType), from: sender, receipt: receipt, by: inner)
            return conformance?.isWiretap == true ? .observed : .received
        case .once(let inner, let claim):
            guard claim.lowerIfRaised() else { return .dropped }
            return deliver(mail, type: mailType, from: sender, receipt: receipt, by: inner)
        case .owned(let inner):
            guard owner != nil else { return .dropped }
            return deliver(mail, type: mailType, from: sender, receipt: receipt, by: inner)
        }
        return .received
    }

    /// Hands boxed mail to the registration's conformance, now or on its queue.
    private func deliverConforming(
        _ mail: any Mail, from sender: SendableObject?, receipt: Receipt?, by delivery: Delivery
    ) {
        guard let conformance else { return }
        guard case .queue(let queue) = delivery else {
            return conformance.handler(mail, sender, nil)
        }
        receipt?.begin()
        queue.async { [self] in
            defer { receipt?.end() }
            if standing?.isRaised ?? true {
                conformance.handler(mail, sender, nil)
            }
        }
    }

    /// Delivers the copied mail on `queue`, unless the registration is removed, or its recipient gone, first.
    private func enqueue(
        _ mail: any Mail, from sender: SendableObject?, on queue: DispatchQueue, receipt: Receipt?,
        finally: @escaping @Sendable () -> Void = {}
    ) {
        receipt?.begin()
        queue.async { [self] in
            defer {
                finally()
                receipt?.end()
            }
            guard standing?.isRaised ?? true else { return }
            let recipient = recipient
            guard recipientKey == nil || recipient != nil else { return }
            Self.withPointer(to: mail) { handler($0, sender, recipient) }
        }
    }

    /// Runs the async handler on each mail waiting in `mailbox`, one at a time, until it is empty.
    private func drain(_ mailbox: Mailbox) async {
        while let letter = mailbox.next() {
            if standing?.isRaised ?? true {
                let recipient = recipient
                if recipientKey == nil || recipient != nil {
                    await mailbox.handler(letter.mail, letter.sender, recipient)
                }
            }
            letter.receipt?.end()
        }
    }

    /// A copy of the mail at `mail`, of dynamic type `M`, for a delivery that outlives the post.
    static func copy<M: Mail>(_ mail: UnsafeRawPointer, as _: M.Type) -> any Mail {
        mail.load(as: M.self)
    }

    /// Calls `body` with a pointer to the mail inside `mail`, as a post passes it.
    static func withPointer<M: Mail, Result>(to mail: M, _ body: (UnsafeRawPointer) -> Result) -> Result {
        withUnsafePointer(to: mail) { body(UnsafeRawPointer($0)) }
    }
}
