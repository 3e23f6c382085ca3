import Dispatch
import Mailroom
import Testing

/// The mail of the register-form tests.
private struct FormParcel: FormMail {
    let n: Int
}

/// The sender classes: `FormCourier` and its subclass `FormBike`, and `FormStranger`, unrelated.
private class FormCourier: FormSender, @unchecked Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

private final class FormBike: FormCourier, @unchecked Sendable {}

private final class FormStranger: FormSender {
    let name = "stranger"
}

@Suite("Every register form receives exactly the posts its filter accepts, where its kind says it runs")
struct RegisterFormTests {
    /// Five posts: without a sender, by the exact sender, by another courier, by a subclass, by a stranger.
    @Test(arguments: RegisterForm.allCases)
    func formReceivesWhatItsFilterAccepts(form: RegisterForm) async throws {
        let office = PostOffice()
        let exact = FormCourier("exact")
        let other = FormCourier("other")
        let bike = FormBike("bike")
        let stranger = FormStranger()
        let log = FormLog()
        let recipients = FormRecipients<FormParcel, FormCourier>(log: log)
        let queue = DispatchQueue(label: "register-form")
        form.register(on: office, FormParcel.self, sender: exact, queue: queue, recipients: recipients, log: log)

        try await office.deliver(FormParcel(n: 1))
        try await office.deliver(FormParcel(n: 2), sender: exact)
        try await office.deliver(FormParcel(n: 3), sender: other)
        try await office.deliver(FormParcel(n: 4), sender: bike)
        try await office.deliver(FormParcel(n: 5), sender: stranger)

        #expect(log.entries == Self.expected(form))
        withExtendedLifetime((exact, other, bike, stranger, recipients)) {}
    }

    /// What `form` logs for the five posts.
    private static func expected(_ form: RegisterForm) -> [FormDelivery] {
        let onMain: Bool? = [.mainActorClosure, .mainActorMethod, .mainActorProtocol].contains(form.kind) ? true : nil
        func delivery(_ n: Int, _ sender: String?) -> FormDelivery {
            FormDelivery(n: n, sender: sender, onMain: onMain)
        }
        func noContents(_ count: Int) -> [FormDelivery] {
            Array(repeating: FormDelivery(n: nil, sender: nil, onMain: onMain), count: count)
        }
        switch form.filter {
        case .any: return (1...5).map { delivery($0, nil) }
        case .senderClass: return [delivery(2, "exact"), delivery(3, "other"), delivery(4, "bike")]
        case .senderClassOrNone:
            return [delivery(1, "nil"), delivery(2, "exact"), delivery(3, "other"), delivery(4, "bike")]
        case .exact: return [delivery(2, nil)]
        case .exactWithSender: return [delivery(2, "exact")]
        case .noContents: return noContents(5)
        case .exactNoContents: return noContents(1)
        case .everySenderReceived:
            return [
                delivery(1, "nil"), delivery(2, "exact"), delivery(3, "other"), delivery(4, "bike"),
                delivery(5, "stranger"),
            ]
        }
    }

    @Test("Every form's registration is removed by its id: later posts do not reach it")
    func unregisteringEveryForm() async throws {
        for form in RegisterForm.allCases {
            let office = PostOffice()
            let exact = FormCourier("exact")
            let log = FormLog()
            let recipients = FormRecipients<FormParcel, FormCourier>(log: log)
            let id = form.register(
                on: office, FormParcel.self, sender: exact, queue: nil, recipients: recipients, log: log)
            #expect(office.registrationCount == 1, "\(form)")
            office.unregister(id)
            try await office.deliver(FormParcel(n: 1), sender: exact)
            #expect(log.entries.isEmpty, "\(form)")
            #expect(office.registrationCount == 0, "\(form)")
        }
    }
}
