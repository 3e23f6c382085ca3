import Dispatch
import Mailroom
import Testing

@Suite("Class mail: a subclass instance reaches recipients of its class and every superclass")
struct ClassMailTests {
    /// Registers one closure for each level of the hierarchy, in the order Letter, Parcel, Crate.
    private func registerEachLevel(_ office: PostOffice, _ log: Log) {
        office.register { (letter: Letter) in log.record("Letter got \(type(of: letter)) \(letter.tag)") }
        office.register { (parcel: Parcel) in log.record("Parcel got \(type(of: parcel)) \(parcel.tag)") }
        office.register { (crate: Crate) in log.record("Crate got \(type(of: crate)) \(crate.tag)") }
    }

    @Test("A Crate reaches the recipients of Crate, Parcel and Letter")
    func subclassReachesEverySuperclass() {
        let office = PostOffice()
        let log = Log()
        registerEachLevel(office, log)

        office.post(Crate("c"))

        #expect(log.events == ["Letter got Crate c", "Parcel got Crate c", "Crate got Crate c"])
    }

    @Test("A Crate posted through a Letter-typed or Parcel-typed variable reaches all three levels")
    func subclassPostedThroughSuperclassVariable() {
        let office = PostOffice()
        let log = Log()
        registerEachLevel(office, log)
        let asLetter: Letter = Crate("as letter")
        let asParcel: Parcel = Crate("as parcel")

        office.post(asLetter)
        office.post(asParcel)

        #expect(
            log.events == [
                "Letter got Crate as letter", "Parcel got Crate as letter", "Crate got Crate as letter",
                "Letter got Crate as parcel", "Parcel got Crate as parcel", "Crate got Crate as parcel",
            ])
    }

    @Test("A superclass instance never reaches subclass recipients")
    func superclassNeverReachesSubclassRecipients() {
        let office = PostOffice()
        let log = Log()
        registerEachLevel(office, log)

        office.post(Parcel("p"))
        office.post(Letter("l"))

        #expect(log.events == ["Letter got Parcel p", "Parcel got Parcel p", "Letter got Letter l"])
    }

    @Test("Every superclass recipient receives the identical instance that was posted")
    func superclassRecipientsReceiveTheSameInstance() {
        let office = PostOffice()
        let received = Recorder<ObjectIdentifier>()
        office.register { (letter: Letter) in received.record(ObjectIdentifier(letter)) }
        office.register { (parcel: Parcel) in received.record(ObjectIdentifier(parcel)) }
        let crate = Crate("c")

        office.post(crate)

        #expect(received.events == [ObjectIdentifier(crate), ObjectIdentifier(crate)])
    }

    @Test("Superclass recipients work with methods, sender filters, exact senders and queues")
    func superclassRecipientsInEveryForm() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let queue = DispatchQueue(label: "mailroom.tests.class-mail")
        office.register(screen, Screen.receiveLetter)
        office.register(screen, Screen.receiveParcelFromOptionalDevice)
        office.register { (letter: Letter, sender: Device) in
            log.record("closure letter \(letter.tag) from \(sender.name)")
        }
        office.register(sender: device) { (parcel: Parcel) in log.record("exact parcel \(parcel.tag)") }
        office.register(sender: device, screen, Screen.receiveLetter)
        office.register(screen, Screen.refresh(on: Parcel.self))
        office.register(queue: queue) { (letter: Letter) in log.record("queued letter \(letter.tag)") }

        office.post(Crate("1"), sender: device)
        drain(queue)
        office.post(Crate("2"))
        drain(queue)
        office.post(Letter("3"), sender: device)
        drain(queue)

        #expect(
            log.events == [
                "screen letter 1", "screen parcel 1 from device", "closure letter 1 from device", "exact parcel 1",
                "screen letter 1", "screen refresh", "queued letter 1",
                "screen letter 2", "screen parcel 2 from nil", "screen refresh", "queued letter 2",
                "screen letter 3", "closure letter 3 from device", "screen letter 3", "queued letter 3",
            ])
    }

    @Test("A recipient registered for a superclass after the subclass was first posted still receives the subclass")
    func superclassRegisteredAfterFirstPost() {
        let office = PostOffice()
        let log = Log()
        office.register { (crate: Crate) in log.record("Crate got \(crate.tag)") }
        office.post(Crate("1"))

        office.register { (letter: Letter) in log.record("Letter got \(letter.tag)") }
        office.post(Crate("2"))
        office.post(Parcel("3"))

        #expect(log.events == ["Crate got 1", "Crate got 2", "Letter got 2", "Letter got 3"])
    }

    @Test("Mail posted as an existential any Mail is routed by its dynamic type")
    func existentialMailRoutesByDynamicType() {
        let office = PostOffice()
        let log = Log()
        registerEachLevel(office, log)
        office.register { (ping: Ping) in log.record("Ping got \(ping.n)") }
        let mails: [any Mail] = [Ping(n: 1), Parcel("p"), Crate("c")]

        for mail in mails {
            office.post(mail)
        }

        #expect(
            log.events == [
                "Ping got 1",
                "Letter got Parcel p", "Parcel got Parcel p",
                "Letter got Crate c", "Parcel got Crate c", "Crate got Crate c",
            ])
    }

    @Test("Exact-sender registrations for a superclass, made after that sender first posted the subclass, receive it")
    func exactSuperclassRegisteredAfterFirstPost() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register(sender: device) { (crate: Crate) in log.record("exact Crate \(crate.tag)") }
        office.post(Crate("1"), sender: device)

        office.register(sender: device) { (letter: Letter) in log.record("exact Letter \(letter.tag)") }
        office.register { (parcel: Parcel, _: Device) in log.record("typed Parcel \(parcel.tag)") }
        office.post(Crate("2"), sender: device)
        office.post(Letter("3"), sender: device)

        #expect(log.events == ["exact Crate 1", "exact Crate 2", "exact Letter 2", "typed Parcel 2", "exact Letter 3"])
    }

    @Test("Instances of a generic subclass reach superclass recipients, and each specialization only its own")
    func genericSubclassMail() {
        final class Tagged<Tag>: Letter, @unchecked Sendable {}
        let office = PostOffice()
        let log = Log()
        office.register { (letter: Letter) in log.record("Letter got \(type(of: letter)) \(letter.tag)") }
        office.register { (tagged: Tagged<Int>) in log.record("Tagged<Int> got \(tagged.tag)") }

        office.post(Tagged<Int>("a"))
        office.post(Tagged<String>("b"))

        #expect(log.events == ["Letter got Tagged<Int> a", "Tagged<Int> got a", "Letter got Tagged<String> b"])
    }
}
