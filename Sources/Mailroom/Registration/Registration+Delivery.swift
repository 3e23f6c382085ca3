import Dispatch

extension Registration {
    /// What a delivery came to.
    enum Outcome {
        /// The registration did not take the mail: its recipient or owner has gone, or it is a spent one-shot.
        case dropped
        /// A wiretap (`any Mail`) took it: that does not count as received, for ``UndeliveredMail``.
        case observed
        /// The handler ran (or threw), or will run on its queue, actor or task.
        case received
        /// The handler ran and consumed the mail: the post ends.
        case consumed
    }

    /// Delivers mail of dynamic type `mailType` (the registered mail type, a subclass of it, or a type that
    /// conforms to the registered protocol) from a sender this registration accepts. A delivery that does not
    /// run now joins `receipt`, if given, until it ran; so do the failures of its handler.
    @inline(__always)
    func deliver(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?, receipt: Receipt?
    ) -> Outcome {
        // Compared, not bound: binding `life` would retain it for the call.
        guard life != nil else {
            return runNow(mail, type: mailType, from: sender)
        }
        // UI code posting to UI code, the most common main-actor post, runs the handler here (``isPlainMainActor``),
        // for a post made on the main actor while none of its mail waits on the main queue. The check where the post
        // runs is a call, so that the other posts do not carry its code. Any other main-actor delivery is the
        // lifecycle's, which checks again.
        if isPlainMainActor, life.unsafelyUnwrapped.backlog.loadAcquire() == 0, MainActorContext.isCurrent {
            return runNow(mail, type: mailType, from: sender)
        }
        return deliverWithLifecycle(mail, type: mailType, from: sender, receipt: receipt)
    }

    /// Calls a handler that cannot throw (``mayThrow`` is false) on the posting thread.
    @inline(__always)
    private func runNow(_ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?) -> Outcome
    {
        do {
            if !hasRecipient {
                try handler(PostedMail(mail, type: mailType), sender, self)
            } else if let recipient {
                try handler(PostedMail(mail, type: mailType), sender, recipient)
            } else {
                return .dropped
            }
        } catch {
            assertionFailure("a handler that cannot throw threw \(error)")
        }
        return .received
    }

    /// Delivers for a registration that has a lifecycle: one that delivers later, or is one-shot, tied, for a
    /// protocol, or whose handler may throw or consume the mail.
    @inline(never)
    private func deliverWithLifecycle(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?, receipt: Receipt?
    ) -> Outcome {
        // `life` is read where it is needed, not bound to a local: binding it retained and released it on every post.
        // Checked at the post for deliveries that run later too, so that mail posted after the recipient went is
        // reported as undelivered; the deferred delivery checks again before it runs.
        if hasRecipient, recipient == nil {
            return .dropped
        }
        // `.now` first, without binding the place's payload: binding it retains and releases it.
        let runsNow: Bool
        if case .now = place {
            runsNow = true
        } else {
            runsNow = runsOnPostingThread
        }
        let conditions = life.unsafelyUnwrapped.conditions
        if !conditions.isEmpty, !meets(conditions, runsNow: runsNow, type: mailType) {
            return .dropped
        }
        if let conformance {
            let boxed = PostedMail(mail, type: mailType).copy(as: mailType)
            if runsNow {
                run(conformance, on: boxed, from: sender, receipt: receipt)
            } else {
                later(boxed, from: sender, receipt: receipt)
            }
            return conformance.isWiretap ? .observed : .received
        }
        if runsNow {
            guard mayThrow else { return runNow(mail, type: mailType, from: sender) }
            return answer(mail, type: mailType, from: sender, receipt: receipt)
        }
        later(PostedMail(mail, type: mailType).copy(as: mailType), from: sender, receipt: receipt)
        return .received
    }

    /// False when a tied registration's owner has gone or a one-shot's delivery was claimed already: the post
    /// drops it. Otherwise reports a delivery that runs now to the instrumentation, if observed, and returns true.
    /// Out of line: most registrations have no conditions, and their posts should not carry this code.
    @inline(never)
    private func meets(_ conditions: Lifecycle.Conditions, runsNow: Bool, type mailType: any Mail.Type) -> Bool {
        if conditions.contains(.isTied), owner == nil {
            return false
        }
        if conditions.contains(.isOneShot), !life.unsafelyUnwrapped.claim() {
            return false
        }
        if conditions.contains(.isObserved), runsNow {
            life.unsafelyUnwrapped.instrumenter?.delivered(mailType, to: life.unsafelyUnwrapped.enrolment.id)
        }
        return true
    }

    /// True when this post runs the handler at once, before `post` returns: always for a registration that
    /// delivers now; for a main-actor one, when the post is made on the main actor and none of its mail waits on
    /// the main queue.
    private var runsOnPostingThread: Bool {
        switch place {
        case .now: true
        case .mainActor: life.unsafelyUnwrapped.backlog.loadAcquire() == 0 && MainActorContext.isCurrent
        case .queue, .serially: false
        }
    }

    /// Delivers the copied mail on the queue, the main actor or the task that `place` names, unless the
    /// registration is removed, or its recipient gone, first; in the context the office's instrumentation, if any,
    /// captures now, on the posting thread.
    private func later(_ mail: any Mail, from sender: SendableObject?, receipt: Receipt?) {
        receipt?.begin()
        let captured = life.unsafelyUnwrapped.instrumenter?.capture(
            type(of: mail), to: life.unsafelyUnwrapped.enrolment.id, at: place.deliveryPlace)
        switch place {
        case .queue(let queue):
            queue.async { [self] in
                defer { receipt?.end() }
                runIfStanding(mail, from: sender, receipt: receipt, in: captured)
            }
        case .mainActor:
            // Counted until its block has run, so that a post made on the main actor meanwhile waits its turn.
            let backlog = life.unsafelyUnwrapped.backlog
            backlog.increment()
            DispatchQueue.main.async { [self] in
                defer {
                    backlog.decrement()
                    receipt?.end()
                }
                runIfStanding(mail, from: sender, receipt: receipt, in: captured)
            }
        case .serially(let mailbox):
            if mailbox.append(mail, from: sender, receipt: receipt, captured: captured) {
                Task.detached { await self.drain(mailbox) }
            }
        case .now:
            // Not reached: `deliver` runs these on the posting thread. Run there all the same.
            runIfStanding(mail, from: sender, receipt: receipt, in: captured)
            receipt?.end()
        }
    }

    /// Runs the handler, or the conformance's, on mail copied for a delivery that runs later, in the context
    /// captured for it.
    private func runIfStanding(
        _ mail: any Mail, from sender: SendableObject?, receipt: Receipt?, in captured: (any CapturedContext)?
    ) {
        guard life?.isStanding ?? true else { return }
        captured.run {
            if let conformance {
                return run(conformance, on: mail, from: sender, receipt: receipt)
            }
            _ = PostedMail.lend(mail) { answer($0, from: sender, receipt: receipt) { mail } }
        }
    }

    /// Calls the handler, or an interceptor's, on the posting thread, and reports what it throws.
    @inline(__always)
    private func answer(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?, receipt: Receipt?
    ) -> Outcome {
        let posted = PostedMail(mail, type: mailType)
        return answer(posted, from: sender, receipt: receipt) { posted.copy(as: mailType) }
    }

    /// Calls the handler, or an interceptor's, and reports what it throws. `copy` copies the mail, for the report.
    private func answer(
        _ mail: PostedMail, from sender: SendableObject?, receipt: Receipt?, copy: () -> any Mail
    ) -> Outcome {
        do {
            guard hasRecipient else {
                // No weak reference to load, which would cost a call; the handler gets the registration instead
                // (see ``Handler``), passed without a retain.
                if let consuming {
                    return try consuming(mail, sender, self) == .consumed ? .consumed : .received
                }
                try handler(mail, sender, self)
                return .received
            }
            guard let recipient else { return .dropped }
            if let consuming {
                return try consuming(mail, sender, recipient) == .consumed ? .consumed : .received
            }
            try handler(mail, sender, recipient)
            return .received
        } catch {
            report(error, on: copy(), from: sender, receipt: receipt)
            return .received
        }
    }

    /// Calls a registration for a protocol's handler, and reports what it throws.
    private func run(_ conformance: Conformance, on mail: any Mail, from sender: SendableObject?, receipt: Receipt?) {
        do {
            try conformance.handler(mail, sender, nil)
        } catch {
            report(error, on: mail, from: sender, receipt: receipt)
        }
    }

    /// Runs the async handler on each mail waiting in `mailbox`, one at a time, until it is empty.
    private func drain(_ mailbox: Mailbox) async {
        while let letter = mailbox.next() {
            if life?.isStanding ?? true {
                let recipient = recipient
                if !hasRecipient || recipient != nil {
                    if let captured = letter.captured {
                        await captured.run(isolation: nil) { await answer(letter, from: mailbox, to: recipient) }
                    } else {
                        await answer(letter, from: mailbox, to: recipient)
                    }
                }
            }
            letter.receipt?.end()
        }
    }

    /// Calls the async handler on `letter`, and reports what it throws.
    private func answer(_ letter: Mailbox.Letter, from mailbox: Mailbox, to recipient: SendableObject?) async {
        do {
            try await mailbox.handler(letter.mail, letter.sender, recipient)
        } catch {
            report(error, on: letter.mail, from: letter.sender, receipt: letter.receipt)
        }
    }

    /// Reports that this registration's handler threw `error` on `mail`, to its office (see ``DeliveryFailure``).
    private func report(_ error: any Error, on mail: any Mail, from sender: SendableObject?, receipt: Receipt?) {
        guard let life, life.isEnrolled else {
            return assertionFailure("a registration that was never added threw \(error)")
        }
        let enrolment = life.enrolment
        let failure = DeliveryFailure(mail: mail, sender: sender, recipient: enrolment.id, error: error)
        if let office = life.office {
            office.report(failure, rank: enrolment.rank, receipt: receipt)
        } else {
            // The office was released while this delivery ran: nothing can receive the report but its fallback.
            FailureFallback.standardError.report(failure)
        }
    }
}
