import Testing

@testable import Mailroom

@Suite("Scale: many registrations of other types, senders and recipients")
struct ScaleTests {
    @Test(
        "Among 10_000 registrations for other types and senders, 100 Ping recipients get exactly their mail, in order")
    func manyOtherRegistrationsDoNotChangeDeliveries() {
        let office = PostOffice()
        let pings = Log()
        let late = Recorder<String>()
        office.register { (ping: Ping) in pings.record("r0 \(ping.n)") }
        office.post(Ping(n: 0))
        let senders = (0..<100).map { Device("noise sender \($0)") }
        let noise = Shared(0)
        for index in 0..<10_000 {
            switch index % 4 {
            case 0: office.register { (_: Noise) in noise.update { $0 += 1 } }
            case 1: office.register { (_: Noise, _: Device) in noise.update { $0 += 1 } }
            case 2: office.register(sender: senders[(index / 4) % 100]) { (_: Noise) in noise.update { $0 += 1 } }
            default: office.register(sender: senders[(index / 4) % 100]) { (_: Pong) in noise.update { $0 += 1 } }
            }
            if index % 100 == 99, index < 9_900 {
                let recipient = index / 100 + 1
                office.register { (ping: Ping) in pings.record("r\(recipient) \(ping.n)") }
            }
        }
        office.register { (ping: Ping, sender: Device?) in late.record("\(ping.n) \(sender?.name ?? "nil")") }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: senders[7])
        office.post(Ping(n: 3), sender: Device("plain"))

        let everyRecipient = { (n: Int) in (0..<100).map { "r\($0) \(n)" } }
        #expect(pings.events == ["r0 0"] + everyRecipient(1) + everyRecipient(2) + everyRecipient(3))
        #expect(late.events == ["1 nil", "2 noise sender 7", "3 plain"])
        #expect(noise.value == 0)
        #expect(office.registrationCount == 10_101)

        office.post(Noise(n: 0), sender: senders[0])
        #expect(noise.value == 2500 + 2500 + 25)
    }

    @Test(
        "1_000 exact senders each receive only their own mail, and half of them deallocating removes exactly their registrations"
    )
    func thousandExactSenders() {
        let office = PostOffice()
        let received = Recorder<String>()
        var senders: [Device?] = (0..<1000).map { Device("d\($0)") }
        for sender in senders {
            office.register(sender: sender!) { (ping: Ping, device: Device) in
                received.record("\(device.name) \(ping.n)")
            }
        }
        for (index, sender) in senders.enumerated() {
            office.post(Ping(n: index), sender: sender)
        }
        #expect(received.events == (0..<1000).map { "d\($0) \($0)" })
        received.removeAll()

        for index in stride(from: 1, to: 1000, by: 2) {
            senders[index] = nil
        }

        #expect(office.registrationCount == 500)
        for (index, sender) in senders.enumerated() {
            office.post(Ping(n: index), sender: sender)
        }
        #expect(received.events == stride(from: 0, to: 1000, by: 2).map { "d\($0) \($0)" })
    }

    @Test(
        "After 100_000 cycles of registering a method recipient and letting it deallocate, with no post, registrationCount is back at its start"
    )
    func registerDeallocateCycles() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("closure \(ping.n)") }
        let device = Device("device")
        office.post(Ping(n: 1), sender: device)
        let start = office.registrationCount

        for cycle in 0..<100_000 {
            let screen = Screen("screen", log: log)
            switch cycle % 3 {
            case 0: office.register(screen, Screen.receivePing)
            case 1: office.register(sender: device, screen, Screen.receivePingFromDevice)
            default: office.register(screen, Screen.refresh(on: Ping.self))
            }
        }

        // Reclaimed as registrations were made: at most one sweep's worth (64) of dead ones is still held.
        #expect(office.sortingOffice.heldRegistrationCount <= 64)
        #expect(start == 1)
        #expect(office.registrationCount == start)
        office.post(Ping(n: 2), sender: device)
        #expect(log.events == ["closure 1", "closure 2"])
    }

    @Test(
        "5_000 short-lived exact senders in turn, with reclamation in between, each receive exactly their own mail of each type"
    )
    func shortLivedSendersInTurn() {
        let office = PostOffice()
        var mismatches: [String] = []
        for index in 0..<5_000 {
            let device = Device("d\(index)")
            let received = Recorder<Int>()
            office.register(sender: device) { (ping: Ping) in received.record(ping.n) }
            office.register(sender: device) { (pong: Pong) in received.record(-pong.n) }
            office.post(Ping(n: index), sender: device)
            office.post(Pong(n: index), sender: device)
            office.post(Ping(n: -1), sender: Device("stranger"))
            if received.events != [index, -index] {
                mismatches.append("d\(index): \(received.events)")
            }
            if index.isMultiple(of: 7) {
                _ = office.registrationCount
            }
        }

        #expect(mismatches == [])
        #expect(office.registrationCount == 0)
    }

    @Test(
        "5_000 short-lived method recipients in turn, half removed by unregister(object), each receive exactly their own post"
    )
    func shortLivedRecipientsInTurn() {
        let office = PostOffice()
        let log = Log()
        var mismatches: [String] = []
        for index in 0..<5_000 {
            let screen = Screen("s\(index)", log: log)
            office.register(screen, Screen.receivePing)
            office.post(Ping(n: index))
            if log.events != ["s\(index) \(index)"] {
                mismatches.append("s\(index): \(log.events)")
            }
            log.removeAll()
            if index.isMultiple(of: 2) {
                office.unregister(screen)
            }
        }

        #expect(mismatches == [])
        #expect(office.registrationCount == 0)
    }
}
