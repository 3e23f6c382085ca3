// expect-error: VerifiedMail is posted with a sender of its RequiredSender class
// flags: -warnings-as-errors
// Verified mail posted by a sender of another class than its RequiredSender.
import Mailroom

final class Checkout: Sendable {}
final class Basket: Sendable {}
struct Done: VerifiedMail { typealias RequiredSender = Checkout }

func finish(_ office: PostOffice, basket: Basket) {
    office.post(Done(), sender: basket)
}
