import Foundation
import Mailroom

/// Mail that is also posted to a `NotificationCenter` by ``Mailroom/PostOffice/forward(_:to:encoder:onFailure:)``,
/// for observers that still listen by name while an app moves to typed mail.
///
/// ```swift
/// struct CartChanged: NotificationMail { let itemCount: Int }     // posted as "MyApp.CartChanged"
/// let legacy = office.forward(CartChanged.self)
/// office.post(CartChanged(itemCount: 2))   // also NotificationCenter.default: userInfo ["itemCount": 2]
/// ```
public protocol NotificationMail: Mail, Encodable {
    /// The name this mail is posted under. By default the module-qualified type name, for example
    /// `"MyApp.CartChanged"` or `"MyApp.Cart.Changed"` (a `private` or local type's name has no mark of its file
    /// or function); implement it to keep a name that observers already use.
    var notificationName: Notification.Name { get }
}

extension NotificationMail {
    /// The module-qualified type name, for example `"MyApp.CartChanged"`.
    public var notificationName: Notification.Name {
        Notification.Name(qualifiedName(of: Self.self))
    }
}

/// `String(reflecting: type)` without the `(unknown context at $...)` parts Swift writes for `private` and local
/// types: those change from build to build, and a notification name must not.
func qualifiedName(of type: Any.Type) -> String {
    String(reflecting: type).split(separator: ".", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("(unknown context at ") }
        .joined(separator: ".")
}

/// The events of one owner type, as an enum whose cases are the events: the name-free form of a per-owner enum
/// of notification names (`Barista.Notification.makeCoffee`).
///
/// ```swift
/// final class LoginManager: Sendable {
///     enum Event: NotificationEvents {
///         typealias RequiredSender = LoginManager
///         case succeeded(User)
///         case failed(LoginError)
///     }
/// }
/// office.post(LoginManager.Event.failed(.wrongPassword), sender: manager)   // only a LoginManager may post it
/// ```
/// The owner is the `RequiredSender` of `VerifiedMail`, so the compiler checks who posts; recipients
/// register for the one enum and switch over its cases, so an error travels as a payload rather than as a second
/// notification. Forwarded to a `NotificationCenter`, each case is posted as `"Module.Owner.case"`
/// (`"MyApp.LoginManager.failed"`), with the owner as the notification's object.
public protocol NotificationEvents: NotificationMail, VerifiedMail {}

extension NotificationEvents {
    /// `"Module.Owner.case"`: the owner's module-qualified name and the case name. The case name is read with
    /// `Mirror` (for a case without a payload, `String(describing:)`): implement this property if the enum has a
    /// custom `description`.
    public var notificationName: Notification.Name {
        let caseName = Mirror(reflecting: self).children.first?.label ?? String(describing: self)
        return Notification.Name("\(qualifiedName(of: RequiredSender.self)).\(caseName)")
    }
}
