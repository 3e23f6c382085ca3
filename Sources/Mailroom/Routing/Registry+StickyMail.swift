extension Registry {
    /// The sticky mail a registration would receive if it were posted now (see ``Registry/stickyLetters(for:)``).
    struct Replay {
        let registration: Registration
        /// Oldest kept first.
        let letters: [StickyLetter]
    }

    /// Keeps `letter` as the last mail of its type from its sender, replacing the one kept before, and numbers
    /// it in the order registrations are numbered: a registration replays only letters kept before it was added.
    /// - Returns: The letter it replaced, for the caller to release once it has unlocked (its mail's `deinit` may
    ///   call the office).
    mutating func keep(_ letter: StickyLetter) -> StickyLetter? {
        var letter = letter
        lastOrder += 1
        letter.number = lastOrder
        return stickyLetters.updateValue(letter, forKey: letter.key)
    }

    /// Forgets the sticky mail of `mailType` and its subclasses: from every sender (`sender == nil`) or from one.
    /// - Returns: The letters forgotten, for the caller to release once it has unlocked.
    mutating func clearStickyMail(_ mailType: ObjectIdentifier, sender: StickyLetter.SenderKey?) -> [StickyLetter] {
        let forgotten = stickyLetters.values.filter { letter in
            Self.lineage(of: type(of: letter.mail)).contains(mailType) && (sender == nil || letter.senderKey == sender)
        }
        for letter in forgotten {
            stickyLetters[letter.key] = nil
        }
        return forgotten
    }

    /// The sticky mail registration `id` would receive if it were posted now; `nil` for an unknown id. Letters
    /// kept after the registration was added are left out: their posts already reached it. The caller checks
    /// that their senders are alive, outside the lock.
    func stickyLetters(for id: RecipientId) -> Replay? {
        guard let record = records[id] else { return nil }
        let letters = stickyLetters.values
            .filter { $0.number < record.order && $0.isAccepted(by: record.registration) }
            .sorted { $0.number < $1.number }
        return Replay(registration: record.registration, letters: letters)
    }

    /// Forgets `letters`, whose sender has gone (found by the caller, outside the lock), unless a newer letter
    /// replaced one meanwhile. The caller holds the letters, so none is released here.
    mutating func forget(_ letters: [StickyLetter]) {
        for letter in letters where stickyLetters[letter.key]?.number == letter.number {
            stickyLetters[letter.key] = nil
        }
    }
}
