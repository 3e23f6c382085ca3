import Foundation
import Mailroom

/// Foundation notifications in, as typed mail.
///
/// A bridge observes one notification name in a `NotificationCenter` and posts each matching notification to
/// the office as mail of one type, built from the notification by a `Decodable` init (through
/// ``UserInfoDecoder``) or by a closure. It runs on the thread that posted the notification, so the mail is
/// delivered, by the office's usual rules, before `NotificationCenter.post` returns.
extension PostOffice {
    /// Posts every `name` notification (from `object` only, when given) as mail `M` decoded from its userInfo.
    ///
    /// ```swift
    /// struct KeyboardFrameChange: Mail, Decodable { let frameEnd: CGRect; ... }
    /// let keyboard = office.bridge(keyboardWillShow, as: KeyboardFrameChange.self)
    /// office.register { (change: KeyboardFrameChange) in layout(for: change.frameEnd) }
    /// ```
    /// The mail is posted without a sender; see ``bridge(_:object:in:as:sentBy:decoder:onFailure:)`` for the
    /// notification's object as the sender. A notification whose userInfo does not decode is not posted: its
    /// `DecodingError` goes to `onFailure` (see ``NotificationBridge``). A missing userInfo decodes as empty.
    /// - Returns: The bridge, which runs until it is released or cancelled.
    public func bridge<M: Mail & Decodable>(
        _ name: Notification.Name,
        object: AnyObject? = nil,
        in center: NotificationCenter = .default,
        as mailType: M.Type,
        decoder: UserInfoDecoder = UserInfoDecoder(),
        onFailure: NotificationBridge.FailureHandler? = nil
    ) -> NotificationBridge {
        bridge(
            name, object: object, in: center, sender: { _ in Self.noSender }, onFailure: onFailure,
            makeMail: { try decoder.decode(M.self, from: $0.userInfo ?? [:]) }
        )
    }

    /// Posts every `name` notification as mail `M` decoded from its userInfo, with the notification's object as
    /// the sender when it is an `S` (otherwise the mail is posted without a sender).
    /// - Returns: The bridge, which runs until it is released or cancelled.
    public func bridge<M: Mail & Decodable, S: AnyObject & Sendable>(
        _ name: Notification.Name,
        object: S? = nil,
        in center: NotificationCenter = .default,
        as mailType: M.Type,
        sentBy senderType: S.Type,
        decoder: UserInfoDecoder = UserInfoDecoder(),
        onFailure: NotificationBridge.FailureHandler? = nil
    ) -> NotificationBridge {
        bridge(
            name, object: object, in: center, sender: { $0.object as? S }, onFailure: onFailure,
            makeMail: { try decoder.decode(M.self, from: $0.userInfo ?? [:]) }
        )
    }

    /// Posts every `name` notification as the mail `makeMail` builds from it, without a sender.
    ///
    /// ```swift
    /// let saves = office.bridge(.NSManagedObjectContextDidSave) { note in
    ///     ContextSaved(inserted: (note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0)
    /// }
    /// ```
    /// `makeMail` returns `nil` to skip a notification; an error it throws goes to `onFailure`, which follows as a
    /// second trailing closure: `office.bridge(name) { note in ... } onFailure: { failure in ... }`.
    /// - Returns: The bridge, which runs until it is released or cancelled.
    public func bridge<M: Mail>(
        _ name: Notification.Name,
        object: AnyObject? = nil,
        in center: NotificationCenter = .default,
        _ makeMail: @escaping @Sendable (Notification) throws -> M?,
        onFailure: NotificationBridge.FailureHandler? = nil
    ) -> NotificationBridge {
        bridge(
            name, object: object, in: center, sender: { _ in Self.noSender }, onFailure: onFailure, makeMail: makeMail)
    }

    /// Posts every `name` notification as the mail `makeMail` builds from it, with the notification's object as
    /// the sender when it is an `S`. `makeMail` as for ``bridge(_:object:in:_:onFailure:)``.
    /// - Returns: The bridge, which runs until it is released or cancelled.
    public func bridge<M: Mail, S: AnyObject & Sendable>(
        _ name: Notification.Name,
        object: S? = nil,
        in center: NotificationCenter = .default,
        sentBy senderType: S.Type,
        _ makeMail: @escaping @Sendable (Notification) throws -> M?,
        onFailure: NotificationBridge.FailureHandler? = nil
    ) -> NotificationBridge {
        bridge(name, object: object, in: center, sender: { $0.object as? S }, onFailure: onFailure, makeMail: makeMail)
    }

    /// What every `bridge` form comes down to. The office is held weakly: a bridge to an office that has gone
    /// posts nothing.
    private func bridge<M: Mail, S: AnyObject & Sendable>(
        _ name: Notification.Name,
        object: AnyObject?,
        in center: NotificationCenter,
        sender: @escaping @Sendable (Notification) -> S?,
        onFailure: NotificationBridge.FailureHandler?,
        makeMail: @escaping @Sendable (Notification) throws -> M?
    ) -> NotificationBridge {
        let failures = NotificationBridge.Failures(mailType: M.self, handler: onFailure)
        let observer = center.addObserver(forName: name, object: object, queue: nil) { [weak self] notification in
            guard let self else { return }
            let office = ObjectIdentifier(self)
            guard !Crossing.isUnderway(name, office: office) else { return }
            do {
                if let mail = try makeMail(notification) {
                    Crossing.underway(name, office: office) { post(mail, sender: sender(notification)) }
                }
            } catch {
                failures.record(error, name: name)
            }
        }
        let token = ObserverToken(observer)
        return NotificationBridge(failures: failures) { center.removeObserver(token.observer) }
    }

    /// The sender of mail posted without one.
    private static let noSender: (any AnyObject & Sendable)? = nil
}

/// The token `addObserver(forName:object:queue:using:)` returns, which is only ever handed back to
/// `removeObserver(_:)`: Sendable for that one use (see docs/design.md).
private struct ObserverToken: @unchecked Sendable {
    let observer: any NSObjectProtocol

    init(_ observer: any NSObjectProtocol) {
        self.observer = observer
    }
}
