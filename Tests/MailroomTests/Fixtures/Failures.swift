// Failing and consuming handlers: the errors they throw, an office that collects its unheard failures, `deliver`
// read as the failures it threw, and the five posts that the failing and consuming form tests make.

import Mailroom

/// An error a failing handler throws, named by its tag.
struct Oops: Error, Equatable {
    let tag: String
}

/// Another error type, for failures of another kind than `Oops`.
struct Snag: Error, Equatable {
    let tag: String
}

/// A failure reduced to what the tests compare: the mail and error as described, the sender's name and the
/// recipient.
struct FailureSummary: Equatable, CustomStringConvertible {
    let mail: String
    let sender: String
    let recipient: RecipientId
    let error: String

    init(_ failure: DeliveryFailure) {
        mail = "\(failure.mail)"
        sender = senderName(failure.sender)
        recipient = failure.recipient
        error = "\(failure.error)"
    }

    init(mail: any Mail, sender: String = "nil", recipient: RecipientId, error: any Error) {
        self.mail = "\(mail)"
        self.sender = sender
        self.recipient = recipient
        self.error = "\(error)"
    }

    var description: String { "\(recipient) threw \(error) on \(mail) from \(sender)" }
}

/// An office whose fallback collects every failure it is given, and those failures, in the order it got them.
func officeCollectingUnheardFailures() -> (PostOffice, Shared<[DeliveryFailure]>) {
    let unheard = Shared<[DeliveryFailure]>([])
    let office = PostOffice(unheardFailures: { failure in unheard.update { $0.append(failure) } })
    return (office, unheard)
}

/// Delivers `mail` with `deliver`, and returns the failures it threw, or nil when it returned.
func thrownFailures<M: Mail>(delivering mail: M, on office: PostOffice) async -> [DeliveryFailure]? {
    do {
        try await office.deliver(mail)
        return nil
    } catch {
        return error.failures
    }
}

/// Delivers `mail` from `sender` with `deliver`, and returns the failures it threw, or nil when it returned.
func thrownFailures<M: Mail, S: AnyObject & Sendable>(
    delivering mail: M, sender: S, on office: PostOffice
) async -> [DeliveryFailure]? {
    do {
        try await office.deliver(mail, sender: sender)
        return nil
    } catch {
        return error.failures
    }
}

/// The mail of the failing and consuming form tests.
struct ProbeParcel: FormMail {
    let n: Int
}

/// The sender classes of the failing and consuming form tests: `ProbeCourier` and its subclass `ProbeBike`, and
/// `ProbeStranger`, unrelated.
class ProbeCourier: FormSender, @unchecked Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

final class ProbeBike: ProbeCourier, @unchecked Sendable {}

final class ProbeStranger: FormSender {
    let name = "stranger"
}

/// Five posts of `ProbeParcel(n: n)`: 1 without a sender, 2 by the `exact` courier (the one the exact-sender forms
/// name), 3 by another courier, 4 by a bike (a subclass), 5 by a stranger.
struct FivePosts: Sendable {
    let exact = ProbeCourier("exact")
    let other = ProbeCourier("other")
    let bike = ProbeBike("bike")
    let stranger = ProbeStranger()

    static let numbers = 1...5

    /// The sender of post `n`.
    func sender(_ n: Int) -> (any AnyObject & Sendable)? {
        [nil, exact, other, bike, stranger][n - 1]
    }

    /// Delivers post `n` with `deliver`, and returns the failures it threw, or nil when it returned.
    func deliver(_ n: Int, on office: PostOffice) async -> [DeliveryFailure]? {
        switch n {
        case 1: await thrownFailures(delivering: ProbeParcel(n: n), on: office)
        case 2: await thrownFailures(delivering: ProbeParcel(n: n), sender: exact, on: office)
        case 3: await thrownFailures(delivering: ProbeParcel(n: n), sender: other, on: office)
        case 4: await thrownFailures(delivering: ProbeParcel(n: n), sender: bike, on: office)
        default: await thrownFailures(delivering: ProbeParcel(n: n), sender: stranger, on: office)
        }
    }

    /// What a handler registered with `filter` (for the `exact` courier and senders of `ProbeCourier`) receives of
    /// post `n`, as its form's log records it: nil when the filter refuses the post.
    static func received(by filter: RegisterForm.Filter, post n: Int) -> (n: Int?, sender: String?)? {
        let name = ["nil", "exact", "other", "bike", "stranger"][n - 1]
        switch filter {
        case .any: return (n, nil)
        case .senderClass: return (2...4).contains(n) ? (n, name) : nil
        case .senderClassOrNone: return (1...4).contains(n) ? (n, name) : nil
        case .exact: return n == 2 ? (n, nil) : nil
        case .exactWithSender: return n == 2 ? (n, name) : nil
        case .noContents: return (nil, nil)
        case .exactNoContents: return n == 2 ? (nil, nil) : nil
        case .everySenderReceived: return (n, name)
        }
    }
}
