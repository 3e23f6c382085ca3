import Foundation
import Mailroom

/// Typed mail out, as Foundation notifications.
extension PostOffice {
    /// Also posts every `M` mail to `center`, under its ``NotificationMail/notificationName``, with its sender as
    /// the notification's object and its userInfo encoded by `encoder`: so observers that still listen by name
    /// keep working during a migration.
    ///
    /// The notification is posted on the thread that posted the mail, in this registration's turn among the
    /// mail's recipients. Mail whose encoding fails is not forwarded: its `EncodingError` goes to `onFailure`
    /// (see ``NotificationBridge``). A name bridged both ways does not echo: a bridge into this office ignores
    /// the notifications this forward posts, and this forward does not send back out the mail a bridge of the
    /// same name just brought in.
    /// - Returns: The bridge, which runs until it is released or cancelled.
    public func forward<M: NotificationMail>(
        _ mailType: M.Type,
        to center: NotificationCenter = .default,
        encoder: UserInfoEncoder = UserInfoEncoder(),
        onFailure: NotificationBridge.FailureHandler? = nil
    ) -> NotificationBridge {
        let failures = NotificationBridge.Failures(mailType: M.self, handler: onFailure)
        let office = ObjectIdentifier(self)
        let id = register { (mail: M, sender: (any AnyObject & Sendable)?) in
            let name = mail.notificationName
            guard !Crossing.isUnderway(name, office: office) else { return }
            do {
                let userInfo = try encoder.encode(mail)
                Crossing.underway(name, office: office) {
                    center.post(name: name, object: sender, userInfo: userInfo)
                }
            } catch {
                failures.record(error, name: name)
            }
        }
        return NotificationBridge(failures: failures) { [weak self] in self?.unregister(id) }
    }
}

/// The crossings between a center and an office under way on the current thread (or task), by notification name
/// and office: a bridge or forward that meets its own name and office under way is seeing its own echo.
enum Crossing {
    @TaskLocal private static var current: [(name: Notification.Name, office: ObjectIdentifier)] = []

    /// Runs `body`, a crossing of `name` between a center and `office`.
    static func underway(_ name: Notification.Name, office: ObjectIdentifier, _ body: () -> Void) {
        $current.withValue(current + [(name, office)], operation: body)
    }

    static func isUnderway(_ name: Notification.Name, office: ObjectIdentifier) -> Bool {
        current.contains { $0.name == name && $0.office == office }
    }
}
