import Dispatch

extension Registration {
    /// What a delivery came to.
    enum Outcome {
        /// The registration did not take the mail: its recipient or owner has gone, or it is a spent one-shot.
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
        guard let life else {
            return runNow(mail, type: mailType, from: sender)
        }
        return deliver(mail, type: mailType, from: sender, receipt: receipt, life: life)
    }

    @inline(__always)
    private func runNow(_ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?) -> Outcome
    {
        if recipientKey == nil {
            handler(PostedMail(mail, type: mailType), sender, nil)
        } else if let recipient {
            handler(PostedMail(mail, type: mailType), sender, recipient)
        } else {
            return .dropped
        }
        return .received
    }

    /// Delivers for a registration that has a lifecycle: one that delivers later, or is one-shot, tied, or for a
    /// protocol.
    @inline(never)
    private func deliver(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?, receipt: Receipt?,
        life: Lifecycle
    ) -> Outcome {
        // Checked at the post for deliveries that run later too, so that mail posted after the recipient went is
        // reported as undelivered; the deferred delivery checks again before it runs.
        if recipientKey != nil, recipient == nil {
            return .dropped
        }
        if life.isTied, owner == nil {
            return .dropped
        }
        if life.isOneShot, !life.claim() {
            return .dropped
        }
        let runsNow = runsOnPostingThread
        if let conformance {
            let boxed = PostedMail(mail, type: mailType).copy(as: mailType)
            if runsNow {
                conformance.handler(boxed, sender, nil)
            } else {
                later(boxed, from: sender, receipt: receipt)
            }
            return conformance.isWiretap ? .observed : .received
        }
        if runsNow {
            return runNow(mail, type: mailType, from: sender)
        }
        later(PostedMail(mail, type: mailType).copy(as: mailType), from: sender, receipt: receipt)
        return .received
    }

    /// True when this post runs the handler at once, before `post` returns: always for a registration that
    /// delivers now; for a main-actor one, when the post is made on the main actor and none of its mail waits on
    /// the main queue.
    private var runsOnPostingThread: Bool {
        switch schedule {
        case .now: true
        case .mainActor(let backlog): backlog.value == 0 && MainActorContext.isCurrent
        case .queue, .serially: false
        }
    }

    /// Delivers the copied mail on the queue, the main actor or the task that `schedule` names, unless the
    /// registration is removed, or its recipient gone, first.
    private func later(_ mail: any Mail, from sender: SendableObject?, receipt: Receipt?) {
        receipt?.begin()
        switch schedule {
        case .queue(let queue):
            queue.async { [self] in
                defer { receipt?.end() }
                runIfStanding(mail, from: sender)
            }
        case .mainActor(let backlog):
            // Counted until its block has run, so that a post made on the main actor meanwhile waits its turn.
            backlog.increment()
            DispatchQueue.main.async { [self] in
                defer {
                    backlog.decrement()
                    receipt?.end()
                }
                runIfStanding(mail, from: sender)
            }
        case .serially(let mailbox):
            if mailbox.append(mail, from: sender, receipt: receipt) {
                Task.detached { await self.drain(mailbox) }
            }
        case .now:
            // Not reached: `deliver` runs these on the posting thread. Run there all the same.
            runIfStanding(mail, from: sender)
            receipt?.end()
        }
    }

    /// Runs the handler, or the conformance's, on mail copied for a delivery that runs later.
    private func runIfStanding(_ mail: any Mail, from sender: SendableObject?) {
        guard life?.isStanding ?? true else { return }
        if let conformance {
            return conformance.handler(mail, sender, nil)
        }
        let recipient = recipient
        guard recipientKey == nil || recipient != nil else { return }
        PostedMail.lend(mail) { handler($0, sender, recipient) }
    }

    /// Runs the async handler on each mail waiting in `mailbox`, one at a time, until it is empty.
    private func drain(_ mailbox: Mailbox) async {
        while let letter = mailbox.next() {
            if life?.isStanding ?? true {
                let recipient = recipient
                if recipientKey == nil || recipient != nil {
                    await mailbox.handler(letter.mail, letter.sender, recipient)
                }
            }
            letter.receipt?.end()
        }
    }
}
