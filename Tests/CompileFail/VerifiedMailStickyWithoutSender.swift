// expect-error: VerifiedMail is posted with a sender of its RequiredSender class
// flags: -warnings-as-errors
// Verified mail kept as sticky mail without a sender: replaying it would hand its handlers no sender.
import Mailroom

final class Checkout: Sendable {}
struct Done: VerifiedMail { typealias RequiredSender = Checkout }

func finish(_ office: PostOffice) {
    office.post(Done(), sticky: true)
}
