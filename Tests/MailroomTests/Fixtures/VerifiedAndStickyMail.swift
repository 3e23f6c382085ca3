// Verified mail with the class that must post it, and sticky mail.

import Mailroom

/// The class whose instances post `CheckoutFinished`, with a subclass.
class CheckoutFlow: @unchecked Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

final class ExpressCheckout: CheckoutFlow, @unchecked Sendable {}

struct CheckoutFinished: VerifiedMail, Equatable {
    typealias RequiredSender = CheckoutFlow
    let orderNumber: Int
}

/// Mail every post of which is sticky.
struct SessionState: StickyMail, Equatable {
    let user: String
}
