import Dispatch
import Foundation
import Mailroom
import MailroomTesting
import Testing

@Suite("MailRecorder")
struct MailRecorderTests {
    @Test("A recorder records all mail in post order, with senders")
    func recordsEverything() {
        let office = PostOffice()
        let device = Device("device")
        let phone = Phone("phone")
        let recorder = MailRecorder(office)

        office.post(Ping(n: 1))
        office.post(Pong(n: 2), sender: device)
        office.post(Siren.fire)
        office.post(Crate("c"), sender: phone)
        office.post(Ping(n: 3), sender: Stranger("stranger"))

        let entries = recorder.entries
        #expect(entries.map { typeName($0.mail) } == ["Ping", "Pong", "Siren", "Crate", "Ping"])
        #expect(entries.map { senderName($0.sender) } == ["nil", "device", "nil", "phone", "stranger"])
        #expect(entries[1].sender === device)
        #expect(recorder.mail(of: Ping.self) == [Ping(n: 1), Ping(n: 3)])
        #expect(recorder.mail(of: Siren.self) == [.fire])
        #expect(entries.map(\.description)[0] == "Ping(n: 1)")
        #expect(entries.map(\.description)[1] == "Pong(n: 2) from Device")
    }

    @Test("A recorder given types records only mail of those types and their subclasses")
    func recordsGivenTypes() {
        let office = PostOffice()
        let device = Device("device")
        let recorder = MailRecorder(office, recording: [Letter.self, Ping.self])

        office.post(Letter("letter"))
        office.post(Pong(n: 1))
        office.post(Parcel("parcel"), sender: device)
        office.post(Ping(n: 2))
        office.post(Notice("notice"))
        office.post(Crate("crate"))
        office.post(DiskFull(percent: 3))

        #expect(recorder.entries.map { typeName($0.mail) } == ["Letter", "Parcel", "Ping", "Crate"])
        #expect(recorder.mail(of: Letter.self).map(\.tag) == ["letter", "parcel", "crate"])
        #expect(recorder.mail(of: Parcel.self).map(\.tag) == ["parcel", "crate"])
        #expect(recorder.mail(of: Pong.self).isEmpty)
    }

    @Test("mail(of:sentBy:) returns the mail of a type posted by senders of a class or its subclasses, in order")
    func mailOfSentBy() {
        let office = PostOffice()
        let device = Device("device")
        let phone = Phone("phone")
        let recorder = MailRecorder(office)

        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2))
        office.post(Ping(n: 3), sender: phone)
        office.post(Ping(n: 4), sender: Stranger("stranger"))
        office.post(Pong(n: 5), sender: device)

        let fromDevices = recorder.mail(of: Ping.self, sentBy: Device.self)
        #expect(fromDevices.map(\.mail.n) == [1, 3])
        #expect(fromDevices.map(\.sender.name) == ["device", "phone"])
        #expect(recorder.mail(of: Ping.self, sentBy: Phone.self).map(\.mail.n) == [3])
        #expect(recorder.mail(of: Ping.self, sentBy: Stranger.self).map(\.mail.n) == [4])
        #expect(recorder.mail(of: Pong.self, sentBy: Phone.self).isEmpty)
    }

    @Test("next(n) returns the next n entries, posted later from another thread, and advances past them")
    func nextWaitsForMailFromAnotherThread() async throws {
        let office = PostOffice()
        let device = Device("device")
        let recorder = MailRecorder(office, recording: [Ping.self, Pong.self])
        office.post(Ping(n: 1))
        let first = try await recorder.next()
        #expect(first.map { typeName($0.mail) } == ["Ping"])

        Thread {
            office.post(Ping(n: 2))
            office.post(DiskFull(percent: 0))
            office.post(Pong(n: 3), sender: device)
            office.post(Ping(n: 4))
            office.post(Ping(n: 5))
        }.start()
        let next = try await recorder.next(3, timeout: .seconds(10))
        #expect(next.map { ($0.mail as? Ping)?.n ?? ($0.mail as? Pong)?.n } == [2, 3, 4])
        #expect(next.map { senderName($0.sender) } == ["nil", "device", "nil"])

        let last = try await recorder.next(1, timeout: .seconds(10))
        #expect(last.map { ($0.mail as? Ping)?.n } == [5])
        #expect(recorder.entries.count == 5)
    }

    @Test("next(n) throws Timeout with the entries received when fewer come in time")
    func nextTimesOut() async throws {
        let office = PostOffice()
        let recorder = MailRecorder(office)
        office.post(Ping(n: 1))
        _ = try await recorder.next(1)
        office.post(Ping(n: 2))

        let clock = ContinuousClock()
        let start = clock.now
        let timeout = await #expect(throws: MailRecorder.Timeout.self) {
            try await recorder.next(2, timeout: .milliseconds(200))
        }
        let elapsed = clock.now - start

        #expect(timeout?.expected == 2)
        #expect(timeout?.received.map { ($0.mail as? Ping)?.n } == [2])
        #expect((timeout?.waited ?? .zero) >= .milliseconds(200))
        #expect(elapsed >= .milliseconds(200))
        // What the failed wait saw is still there for the next one.
        let next = try await recorder.next(1, timeout: .seconds(1))
        #expect(next.map { ($0.mail as? Ping)?.n } == [2])
    }

    @Test("stop() stops recording and keeps what was recorded")
    func stopStopsRecording() {
        let office = PostOffice()
        let recorder = MailRecorder(office)
        office.post(Ping(n: 1))
        #expect(office.registrationCount == 1)

        recorder.stop()
        office.post(Ping(n: 2))

        #expect(recorder.mail(of: Ping.self) == [Ping(n: 1)])
        #expect(office.registrationCount == 0)
        recorder.stop()
        #expect(office.registrationCount == 0)
    }

    @Test("Releasing a recorder stops recording")
    func releaseStopsRecording() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("ping \(ping.n)") }
        var recorder: MailRecorder? = MailRecorder(office)
        weak let weakRecorder = recorder
        office.post(Ping(n: 1))
        #expect(recorder?.entries.count == 1)
        #expect(office.registrationCount == 2)

        recorder = nil

        #expect(weakRecorder == nil)
        #expect(office.registrationCount == 1)
        office.post(Ping(n: 2))
        #expect(log.events == ["ping 1", "ping 2"])
    }

    @Test("removeAll forgets what was recorded and what the waits took")
    func removeAll() async throws {
        let office = PostOffice()
        let recorder = MailRecorder(office)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2))
        _ = try await recorder.next(1)

        recorder.removeAll()
        #expect(recorder.entries.isEmpty)
        office.post(Ping(n: 3))
        let next = try await recorder.next(1, timeout: .seconds(1))
        #expect(next.map { ($0.mail as? Ping)?.n } == [3])
    }
}
