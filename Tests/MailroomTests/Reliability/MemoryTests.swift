// Memory: what the office holds weakly it never keeps alive, and what it holds strongly (closures and their
// captures) it lets go when a registration is unregistered or the office is released. Every form, with and
// without a queue.

import Dispatch
import Foundation
import Mailroom
import Testing

@Suite("Memory held by registrations")
struct MemoryTests {
    /// The forms that register a closure, and those that register a method of an object, each with and without
    /// a queue.
    static let closureForms = RegisterForm.allCases.filter { $0.kind == .closure }
    static let methodForms = RegisterForm.allCases.filter { $0.kind == .method }

    @Test(
        "A method registration keeps neither its recipient nor its exact sender alive, after delivering",
        arguments: Self.methodForms, ReliabilityDelivery.allCases)
    func methodRegistrationsHoldWeakly(form: RegisterForm, delivery: ReliabilityDelivery) {
        let office = PostOffice()
        let queue = delivery.makeQueue("weak-method")
        let log = FormLog()
        var recipients: FormRecipients<Ping, Device>? = FormRecipients(log: log)
        var device: Device? = Device("device")
        weak let weakRecipient = recipients?.object
        weak let weakDevice = device
        form.register(on: office, Ping.self, sender: device!, queue: queue, recipients: recipients!, log: log)
        office.post(Ping(n: 1), sender: device!)
        if let queue { drain(queue) }
        #expect(log.entries.count == 1, "the registration was live")

        recipients = nil
        device = nil

        #expect(weakRecipient == nil, "the office kept the recipient alive")
        #expect(weakDevice == nil, "the office kept the sender alive")
        #expect(office.registrationCount == 0)
    }

    @Test(
        "A closure registration for an exact sender does not keep the sender alive, after delivering",
        arguments: Self.closureForms.filter(\.isForExactSender), ReliabilityDelivery.allCases)
    func exactSenderClosuresHoldSenderWeakly(form: RegisterForm, delivery: ReliabilityDelivery) {
        let office = PostOffice()
        let queue = delivery.makeQueue("weak-sender")
        let log = FormLog()
        var device: Device? = Device("device")
        weak let weakDevice = device
        form.register(
            on: office, Ping.self, sender: device!, queue: queue, recipients: FormRecipients(log: log), log: log)
        office.post(Ping(n: 1), sender: device!)
        if let queue { drain(queue) }
        #expect(log.entries.count == 1, "the registration was live")

        device = nil

        #expect(weakDevice == nil, "the office kept the exact sender alive")
        #expect(office.registrationCount == 0)
    }

    @Test(
        "A closure's captures stay alive while it is registered and are freed when it is unregistered",
        arguments: Self.closureForms, ReliabilityDelivery.allCases)
    func unregisteringFreesCaptures(form: RegisterForm, delivery: ReliabilityDelivery) {
        let office = PostOffice()
        let queue = delivery.makeQueue("unregister-frees")
        let log = FormLog()
        let device = Device("device")
        let freed = DispatchSemaphore(value: 0)
        var token: Token? = Token { freed.signal() }
        weak let weakToken = token
        let id = form.register(
            on: office, Ping.self, sender: device, queue: queue, recipients: FormRecipients(log: log), log: log,
            keep: token)
        token = nil
        office.post(Ping(n: 1), sender: device)
        if let queue { drain(queue) }
        #expect(log.entries.count == 1, "the registration was live")
        #expect(weakToken != nil, "the registered closure let its capture go")

        office.unregister(id)

        waitFor(freed, "the unregistered closure's captured token to be freed")
        #expect(weakToken == nil)
        #expect(office.registrationCount == 0)
    }

    @Test(
        "A closure's captures are freed when its office is released",
        arguments: Self.closureForms, ReliabilityDelivery.allCases)
    func releasingTheOfficeFreesCaptures(form: RegisterForm, delivery: ReliabilityDelivery) {
        let queue = delivery.makeQueue("release-frees")
        let log = FormLog()
        let device = Device("device")
        let freed = DispatchSemaphore(value: 0)
        weak var weakOffice: PostOffice?
        weak var weakToken: Token?
        do {
            let office = PostOffice()
            weakOffice = office
            let token = Token { freed.signal() }
            weakToken = token
            form.register(
                on: office, Ping.self, sender: device, queue: queue, recipients: FormRecipients(log: log), log: log,
                keep: token)
            office.post(Ping(n: 1), sender: device)
            if let queue { drain(queue) }
        }
        #expect(log.entries.count == 1, "the registration was live")

        #expect(weakOffice == nil, "something still holds the office")
        waitFor(freed, "the released office's closure to free its captured token")
        #expect(weakToken == nil)
    }

    @Test("Many recipients and senders registered on one office are all freed when their last references go")
    func manyWeakObjectsAreAllFreed() {
        let office = PostOffice()
        let log = FormLog()
        var recipientSets: [FormRecipients<Ping, Device>] = (0..<70).map { _ in FormRecipients(log: log) }
        var devices: [Device] = (0..<70).map { Device("device \($0)") }
        let weakRecipients = recipientSets.map { WeakReference($0.object) }
        let weakDevices = devices.map { WeakReference($0) }
        for (index, recipients) in recipientSets.enumerated() {
            let form = Self.methodForms[index % Self.methodForms.count]
            form.register(on: office, Ping.self, sender: devices[index], queue: nil, recipients: recipients, log: log)
            office.register(sender: devices[index]) { (_: Pong) in }
        }
        for device in devices {
            office.post(Ping(n: 1), sender: device)
        }
        // Each recipient that ignores who sent gets all 70 posts; one for an exact sender gets its sender's only.
        let forAnySender = (0..<70).filter {
            !Self.methodForms[$0 % Self.methodForms.count].isForExactSender
        }
        #expect(log.entries.count == forAnySender.count * 70 + (70 - forAnySender.count))

        recipientSets.removeAll()
        devices.removeAll()

        #expect(weakRecipients.filter { $0.object != nil }.count == 0)
        #expect(weakDevices.filter { $0.object != nil }.count == 0)
        #expect(office.registrationCount == 0)
    }
}
