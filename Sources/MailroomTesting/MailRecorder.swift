import Mailroom

/// Records the mail posted to an office, in order, with its senders: for tests of code that posts.
///
/// ```swift
/// let recorder = MailRecorder(office, recording: [CartChanged.self])
/// cart.add(apple)
/// #expect(recorder.mail(of: CartChanged.self).map(\.itemCount) == [1])        // Swift Testing
/// let next = try await recorder.next(2, timeout: .seconds(1))                  // waits for two more
/// ```
///
/// It registers on the posting thread, so mail is recorded before `post` returns. It works the same in Swift
/// Testing and XCTest: the waits are plain `async throws` functions that throw ``Timeout`` with what was
/// recorded so far. It stops recording when it is released or ``stop()`` is called.
public final class MailRecorder: Sendable {
    /// One recorded post.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The mail.
        public let mail: any Mail
        /// The post's sender, if it had one.
        public let sender: (any AnyObject & Sendable)?

        /// The mail, and the sender's class if there was one.
        public var description: String {
            sender.map { "\(mail) from \(type(of: $0))" } ?? "\(mail)"
        }
    }

    /// Thrown when a wait ends before enough mail was recorded.
    public struct Timeout: Error, CustomStringConvertible {
        /// How many entries the wait asked for.
        public let expected: Int
        /// The entries recorded after the ones already taken, when it gave up.
        public let received: [Entry]
        /// How long it waited.
        public let waited: Duration

        /// What was expected and what came.
        public var description: String {
            "waited \(waited) for \(expected) mail, received \(received.count): \(received)"
        }
    }

    private let state = RecorderState()
    private let office: PostOffice
    private let ids: [RecipientId]

    /// Starts recording the mail posted to `office`: of the given types (and their subclasses), or all mail
    /// when `types` is `nil`.
    ///
    /// It listens as a wiretap (`any Mail`), so it does not change which posts are reported as
    /// ``UndeliveredMail``; those reports are recorded only when `types` names `UndeliveredMail`.
    public init(_ office: PostOffice, recording types: [any Mail.Type]? = nil) {
        self.office = office
        let state = state
        let typeNames = types.map { Set($0.map(ObjectIdentifier.init)) }
        var ids = [
            office.register(conformingTo: (any Mail).self) { (mail: any Mail, sender: (any AnyObject & Sendable)?) in
                guard typeNames.map({ Self.isInstance(mail, ofAnyOf: $0) }) ?? true else { return }
                state.append(Entry(mail: mail, sender: sender))
            }
        ]
        if typeNames?.contains(ObjectIdentifier(UndeliveredMail.self)) == true {
            ids.append(office.register { (report: UndeliveredMail) in state.append(Entry(mail: report, sender: nil)) })
        }
        self.ids = ids
    }

    deinit {
        stop()
    }

    /// Stops recording; what was recorded stays.
    public func stop() {
        for id in ids {
            office.unregister(id)
        }
    }

    /// Everything recorded, in post order.
    public var entries: [Entry] {
        state.entries
    }

    /// The recorded mail of type `M` (or a subclass), in post order.
    public func mail<M: Mail>(of _: M.Type) -> [M] {
        entries.compactMap { $0.mail as? M }
    }

    /// The recorded mail of type `M` with the senders of class `S`, in post order.
    public func mail<M: Mail, S: AnyObject>(of _: M.Type, sentBy _: S.Type) -> [(mail: M, sender: S)] {
        entries.compactMap { entry in
            guard let mail = entry.mail as? M, let sender = entry.sender as? S else { return nil }
            return (mail, sender)
        }
    }

    /// Forgets what was recorded, and what the waits took.
    public func removeAll() {
        state.removeAll()
    }

    /// Waits until `count` entries were recorded after those the previous waits returned, and returns them.
    /// - Throws: ``Timeout`` if they did not all come within `timeout`.
    @discardableResult
    public func next(_ count: Int = 1, timeout: Duration = .seconds(5)) async throws -> [Entry] {
        let clock = ContinuousClock()
        let start = clock.now
        while true {
            if let entries = state.take(count) {
                return entries
            }
            if clock.now - start >= timeout {
                throw Timeout(expected: count, received: state.untaken, waited: clock.now - start)
            }
            await state.waitForEntries(count, until: start + timeout, clock: clock)
        }
    }

    private static func isInstance(_ mail: any Mail, ofAnyOf types: Set<ObjectIdentifier>) -> Bool {
        var type: Any.Type? = Swift.type(of: mail)
        while let current = type {
            if types.contains(ObjectIdentifier(current)) { return true }
            type = (current as? AnyClass).flatMap(_getSuperclass)
        }
        return false
    }
}
