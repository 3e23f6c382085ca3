import Mailroom
import Testing

@Suite("Order: the recipients of one post are called in registration order, whatever they registered for")
struct OrderTests {
    @Test(
        "Closures (M), (M, S), (M, S?), methods, exact senders and superclass registrations are called in registration order"
    )
    func mixedRegistrationsInRegistrationOrder() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let otherDevice = Device("other")

        office.register { (parcel: Parcel) in log.record("1 parcel closure") }
        office.register(screen, Screen.receiveCrate)
        office.register { (_: Pong) in log.record("never: other mail type") }
        office.register { (_: Crate, _: Device) in log.record("4 crate from device") }
        office.register(sender: device) { (_: Letter) in log.record("5 exact letter") }
        office.register { (_: Crate, _: Stranger) in log.record("never: other sender type") }
        office.register { (_: Letter, sender: Device?) in log.record("7 letter from \(sender?.name ?? "nil")") }
        office.register(sender: otherDevice) { (_: Crate) in log.record("never: other exact sender") }
        office.register(screen, Screen.receiveParcelFromOptionalDevice)
        office.register { (_: Crate) in log.record("10 crate closure") }
        office.register(sender: device, screen, Screen.refresh(on: Parcel.self))
        office.register(of: Letter.self) { _ in log.record("12 letter no-args") }
        office.register(sender: device) { (_: Crate, sender: Device) in
            log.record("13 exact crate from \(sender.name)")
        }

        office.post(Crate("c"), sender: device)

        #expect(
            log.events == [
                "1 parcel closure",
                "screen crate c",
                "4 crate from device",
                "5 exact letter",
                "7 letter from device",
                "screen parcel c from device",
                "10 crate closure",
                "screen refresh",
                "12 letter no-args",
                "13 exact crate from device",
            ])
        log.removeAll()

        office.post(Crate("d"))

        #expect(
            log.events == [
                "1 parcel closure",
                "screen crate d",
                "7 letter from nil",
                "screen parcel d from nil",
                "10 crate closure",
                "12 letter no-args",
            ])
    }

    @Test(
        "With a different interleaving in a new office, exact-sender registrations come first and last, the order still follows registration"
    )
    func otherInterleavingInRegistrationOrder() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let phone = Phone("phone")

        office.register(of: Crate.self, sender: phone) { _ in log.record("1 exact crate") }
        office.register(sender: phone, screen, Screen.receiveLetter)
        office.register { (_: Letter) in log.record("3 letter closure") }
        office.register(screen, Screen.refresh(on: Crate.self))
        office.register { (_: Parcel, _: Phone) in log.record("5 parcel from phone") }
        office.register(screen, Screen.receiveCrateFromDevice)
        office.register { (_: Crate, _: Device?) in log.record("7 crate from optional device") }
        office.register(screen, Screen.receiveParcel)
        office.register(sender: phone) { (_: Parcel, _: Phone) in log.record("9 exact parcel") }

        office.post(Crate("c"), sender: phone)

        #expect(
            log.events == [
                "1 exact crate",
                "screen letter c",
                "3 letter closure",
                "screen refresh",
                "5 parcel from phone",
                "screen crate c from phone",
                "7 crate from optional device",
                "screen parcel c",
                "9 exact parcel",
            ])
    }

    @Test("Registrations added after the first post are called after the earlier ones, in their own registration order")
    func registrationsAfterFirstPostKeepOrder() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register { (ping: Ping) in log.record("a \(ping.n)") }
        office.register(sender: device) { (ping: Ping) in log.record("b \(ping.n)") }
        office.post(Ping(n: 1), sender: device)

        office.register { (ping: Ping, _: Device) in log.record("c \(ping.n)") }
        office.register(sender: device) { (ping: Ping) in log.record("d \(ping.n)") }
        office.register { (ping: Ping, _: Device?) in log.record("e \(ping.n)") }
        office.post(Ping(n: 2), sender: device)

        #expect(log.events == ["a 1", "b 1", "a 2", "b 2", "c 2", "d 2", "e 2"])
    }

    @Test("Order is kept after registrations in the middle are unregistered and new ones appended")
    func orderAfterUnregisteringInTheMiddle() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        var ids: [RecipientId] = []
        for index in 0..<40 {
            if index.isMultiple(of: 3) {
                ids.append(office.register(sender: device) { (_: Ping) in log.record("\(index)") })
            } else {
                ids.append(office.register { (_: Ping) in log.record("\(index)") })
            }
        }
        office.post(Ping(n: 0), sender: device)
        #expect(log.events == (0..<40).map { "\($0)" })
        log.removeAll()

        for index in 0..<40 where index % 4 != 0 {
            office.unregister(ids[index])
        }
        for index in 40..<44 {
            office.register { (_: Ping) in log.record("\(index)") }
        }
        office.post(Ping(n: 1), sender: device)

        #expect(log.events == ["0", "4", "8", "12", "16", "20", "24", "28", "32", "36", "40", "41", "42", "43"])
    }
}
