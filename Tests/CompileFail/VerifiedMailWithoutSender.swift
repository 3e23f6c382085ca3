// expect-error: VerifiedMail is posted with a sender of its RequiredSender class
// flags: -warnings-as-errors
// Verified mail posted without a sender: its handlers are promised a sender of the required class.
import Mailroom

final class Checkout: Sendable {}
struct Done: VerifiedMail { typealias RequiredSender = Checkout }

func finish(_ office: PostOffice) {
    office.post(Done())
}
