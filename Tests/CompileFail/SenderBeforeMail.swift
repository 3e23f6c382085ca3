// expect-error: the mail comes first: write { (mail: M, sender: S) in ... }
// A handler takes the mail, then its sender: for a closure that takes them the other way round, Mailroom's error
// says which order to write, where Swift alone would say that a tuple cannot conform to `Mail`.
import Mailroom

struct PriceChanged: Mail { let price: Int }
final class Origin: Sendable {}

func listen(office: PostOffice) {
    office.register { (origin: Origin, change: PriceChanged) in print(origin, change.price) }
}
