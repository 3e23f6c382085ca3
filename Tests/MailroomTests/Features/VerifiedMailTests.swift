import Mailroom
import Testing

@Suite("Verified mail")
struct VerifiedMailTests {
    @Test("Verified mail posted by its required sender reaches (M, RequiredSender) handlers with the sender")
    func postedWithRequiredSender() {
        let office = PostOffice()
        let log = Log()
        let flow = CheckoutFlow("flow")
        let express = ExpressCheckout("express")
        office.register { (done: CheckoutFinished, sender: CheckoutFinished.RequiredSender) in
            // The sender comes non-optional: no unwrapping.
            log.record("required \(done.orderNumber) from \(sender.name)")
        }
        office.register { (done: CheckoutFinished, sender: ExpressCheckout) in
            log.record("express \(done.orderNumber) from \(sender.name)")
        }
        office.register { (done: CheckoutFinished) in log.record("any \(done.orderNumber)") }
        office.register(sender: flow) { (done: CheckoutFinished, sender: CheckoutFlow) in
            log.record("exact \(done.orderNumber) from \(sender.name)")
        }

        office.post(CheckoutFinished(orderNumber: 7), sender: flow)
        office.post(CheckoutFinished(orderNumber: 8), sender: express)

        #expect(
            log.events == [
                "required 7 from flow", "any 7", "exact 7 from flow",
                "required 8 from express", "express 8 from express", "any 8",
            ])
    }

    @Test("Verified mail reaches catch-all and protocol recipients with its sender")
    func verifiedMailReachesCatchAll() {
        let office = PostOffice()
        let log = Log()
        let flow = CheckoutFlow("flow")
        office.register(conformingTo: (any Mail).self) { (mail: any Mail, sender: (any AnyObject & Sendable)?) in
            log.record("\(typeName(mail)) from \(senderName(sender))")
        }
        office.register(conformingTo: (any VerifiedMail).self) { (mail, sender: CheckoutFlow?) in
            log.record("verified \(typeName(mail)) from \(sender?.name ?? "nil")")
        }

        office.post(CheckoutFinished(orderNumber: 1), sender: flow)

        #expect(log.events == ["CheckoutFinished from flow", "verified CheckoutFinished from flow"])
    }
}
