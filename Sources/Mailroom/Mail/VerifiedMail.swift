/// Mail that can only be posted by a sender of one class, checked by the compiler.
///
/// ```swift
/// struct CheckoutFinished: VerifiedMail {
///     typealias RequiredSender = CheckoutFlow
///     let orderNumber: Int
/// }
/// office.post(CheckoutFinished(orderNumber: 7), sender: flow)           // flow: CheckoutFlow
/// office.register { (done: CheckoutFinished, flow: CheckoutFlow) in }   // the sender, not optional
/// ```
///
/// Posting it without a sender, or with a sender of another class, is flagged at compile time as deprecated
/// (an error when warnings are errors): Swift has no way to forbid it outright while `VerifiedMail` is also
/// `Mail`. A handler `(M, M.RequiredSender)` receives the sender non-optional.
public protocol VerifiedMail: Mail {
    /// The class whose instances post this mail.
    associatedtype RequiredSender: AnyObject & Sendable
}
