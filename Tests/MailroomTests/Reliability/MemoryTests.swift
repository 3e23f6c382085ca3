// Memory: what the office holds weakly it never keeps alive, and what it holds strongly (closures and their
// captures) it lets go when a registration is unregistered or the office is released. Every form, with and
// without a queue.

import Dispatch
import Foundation
import Mailroom
import Testing

@Suite("Reliability: memory held by registrations")
struct ReliabilityMemoryTests {
    @Test(
        "A method registration keeps neither its recipient nor its exact sender alive, after delivering",
        arguments: ReliabilityMethodForm.allCases, ReliabilityDelivery.allCases)
    func methodRegistrationsHoldWeakly(form: ReliabilityMethodForm, delivery: ReliabilityDelivery) {
        let office = PostOffice()
        let queue = delivery.makeQueue("weak-method")
        let log = Log()
        var screen: Screen? = Screen("screen", log: log)
        var device: Device? = Device("device")
        weak let weakScreen = screen
        weak let weakDevice = device
        form.register(on: office, queue: queue, sender: device!, screen: screen!)
        office.post(Ping(n: 1), sender: device!)
        if let queue { drain(queue) }
        #expect(log.count == 1, "the registration was live")

        screen = nil
        device = nil

        #expect(weakScreen == nil, "the office kept the recipient alive")
        #expect(weakDevice == nil, "the office kept the sender alive")
        #expect(office.registrationCount == 0)
    }

    @Test(
        "A closure registration for an exact sender does not keep the sender alive, after delivering",
        arguments: ReliabilityClosureForm.allCases.filter(\.usesExactSender), ReliabilityDelivery.allCases)
    func exactSenderClosuresHoldSenderWeakly(form: ReliabilityClosureForm, delivery: ReliabilityDelivery) {
        let office = PostOffice()
        let queue = delivery.makeQueue("weak-sender")
        let log = Log()
        var device: Device? = Device("device")
        weak let weakDevice = device
        form.register(on: office, queue: queue, sender: device!, token: nil, label: "closure", log: log)
        office.post(Ping(n: 1), sender: device!)
        if let queue { drain(queue) }
        #expect(log.count == 1, "the registration was live")

        device = nil

        #expect(weakDevice == nil, "the office kept the exact sender alive")
        #expect(office.registrationCount == 0)
    }

    @Test(
        "A closure's captures stay alive while it is registered and are freed when it is unregistered",
        arguments: ReliabilityClosureForm.allCases, ReliabilityDelivery.allCases)
    func unregisteringFreesCaptures(form: ReliabilityClosureForm, delivery: ReliabilityDelivery) {
        let office = PostOffice()
        let queue = delivery.makeQueue("unregister-frees")
        let log = Log()
        let device = Device("device")
        let freed = DispatchSemaphore(value: 0)
        var token: Token? = Token { freed.signal() }
        weak let weakToken = token
        let id = form.register(on: office, queue: queue, sender: device, token: token, label: "closure", log: log)
        token = nil
        office.post(Ping(n: 1), sender: device)
        if let queue { drain(queue) }
        #expect(log.count == 1, "the registration was live")
        #expect(weakToken != nil, "the registered closure let its capture go")

        office.unregister(id)

        waitFor(freed, "the unregistered closure's captured token to be freed")
        #expect(weakToken == nil)
        #expect(office.registrationCount == 0)
    }

    @Test(
        "A closure's captures are freed when its office is released",
        arguments: ReliabilityClosureForm.allCases, ReliabilityDelivery.allCases)
    func releasingTheOfficeFreesCaptures(form: ReliabilityClosureForm, delivery: ReliabilityDelivery) {
        let queue = delivery.makeQueue("release-frees")
        let log = Log()
        let device = Device("device")
        let freed = DispatchSemaphore(value: 0)
        weak var weakOffice: PostOffice?
        weak var weakToken: Token?
        do {
            let office = PostOffice()
            weakOffice = office
            let token = Token { freed.signal() }
            weakToken = token
            form.register(on: office, queue: queue, sender: device, token: token, label: "closure", log: log)
            office.post(Ping(n: 1), sender: device)
            if let queue { drain(queue) }
        }
        #expect(log.count == 1, "the registration was live")

        #expect(weakOffice == nil, "something still holds the office")
        waitFor(freed, "the released office's closure to free its captured token")
        #expect(weakToken == nil)
    }

    @Test("Many recipients and senders registered on one office are all freed when their last references go")
    func manyWeakObjectsAreAllFreed() {
        let office = PostOffice()
        let log = Log()
        var screens: [Screen] = (0..<70).map { Screen("screen \($0)", log: log) }
        var devices: [Device] = (0..<70).map { Device("device \($0)") }
        let weakScreens = screens.map { WeakReference($0) }
        let weakDevices = devices.map { WeakReference($0) }
        for (index, screen) in screens.enumerated() {
            let form = ReliabilityMethodForm.allCases[index % ReliabilityMethodForm.allCases.count]
            form.register(on: office, queue: nil, sender: devices[index], screen: screen)
            office.register(sender: devices[index]) { (_: Pong) in }
        }
        for device in devices {
            office.post(Ping(n: 1), sender: device)
        }
        // Each recipient that ignores who sent gets all 70 posts; one for an exact sender gets its sender's only.
        let forAnySender = (0..<70).filter {
            !ReliabilityMethodForm.allCases[$0 % ReliabilityMethodForm.allCases.count].usesExactSender
        }
        #expect(log.count == forAnySender.count * 70 + (70 - forAnySender.count))

        screens.removeAll()
        devices.removeAll()

        #expect(weakScreens.filter { $0.object != nil }.count == 0)
        #expect(weakDevices.filter { $0.object != nil }.count == 0)
        #expect(office.registrationCount == 0)
    }
}

private final class WeakReference<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
