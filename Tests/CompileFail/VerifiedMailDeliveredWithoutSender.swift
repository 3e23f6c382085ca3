// expect-error: VerifiedMail is posted with a sender of its RequiredSender class
// flags: -warnings-as-errors
// Verified mail posted and awaited without a sender.
import Mailroom

final class Checkout: Sendable {}
struct Done: VerifiedMail { typealias RequiredSender = Checkout }

func finish(_ office: PostOffice) async {
    try await office.deliver(Done())
}
