import Foundation
import Mailroom
import XCTest

/// What Mailroom does differently from PonyExpress 2, on purpose. Each test says what PonyExpress did.
final class DifferencesFromPonyExpressTests: XCTestCase {
    /// PonyExpress counted the registration of a deallocated recipient until the next post of its mail type.
    func testADeadRecipientIsNotCountedEvenBeforeTheNextPost() {
        let office = PostOffice()
        var watcher: ScoreWatcher? = ScoreWatcher()

        office.register(watcher!, ScoreWatcher.scoreChanged(_:))
        office.register(watcher!, ScoreWatcher.ping)
        XCTAssertEqual(office.count, 2)
        watcher = nil

        XCTAssertEqual(office.count, 0)
    }

    /// PonyExpress counted a registration whose exact sender had deallocated until the next post of its type.
    func testARegistrationWhoseSenderDiedIsNotCountedEvenBeforeTheNextPost() {
        let office = PostOffice()
        let watcher = ScoreWatcher()
        var board: Scoreboard? = Scoreboard()

        office.register(sender: board!, watcher, ScoreWatcher.scoreChanged(onBoard:board:))
        office.register(sender: board!) { (_: ScoreChanged) in }
        XCTAssertEqual(office.count, 2)
        board = nil

        XCTAssertEqual(office.count, 0)
    }

    /// PonyExpress called the recipients of a class and of its superclass in the order of a dictionary's keys,
    /// which changes from run to run.
    func testRecipientsOfASuperclassAndASubclassAreCalledInRegistrationOrder() {
        let office = PostOffice()
        var order: [String] = []

        office.register { (_: Announcement) in order.append("first, for Announcement") }
        office.register { (_: UrgentAnnouncement) in order.append("second, for UrgentAnnouncement") }
        office.register { (_: Announcement) in order.append("third, for Announcement") }
        office.post(UrgentAnnouncement(text: "fire drill"))

        XCTAssertEqual(
            order, ["first, for Announcement", "second, for UrgentAnnouncement", "third, for Announcement"])
    }

    /// PonyExpress numbered registrations with an unsynchronized static counter: two threads could get one id.
    func testIdsMadeOnManyThreadsAtOnceAreAllDifferent() {
        let office = PostOffice()
        let lock = NSLock()
        var ids: [RecipientId] = []

        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            var mine: [RecipientId] = []
            for _ in 0..<500 {
                mine.append(office.register { (_: ScoreChanged) in })
            }
            lock.lock()
            ids += mine
            lock.unlock()
        }

        XCTAssertEqual(ids.count, 4000)
        XCTAssertEqual(Set(ids).count, 4000)
        XCTAssertEqual(office.count, 4000)
    }

    /// PonyExpress ran a queued delivery even when the registration was removed before the queue got to it.
    func testAQueuedDeliveryThatHasNotStartedIsDroppedByUnregister() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "busy")
        let gate = DispatchSemaphore(value: 0)
        var delivered = 0

        let id = office.register(queue: queue) { (_: ScoreChanged) in delivered += 1 }
        queue.async { gate.wait() }  // keeps the queue busy until the registration is gone
        office.post(ScoreChanged(points: 1))
        office.unregister(id)
        gate.signal()
        queue.sync {}

        XCTAssertEqual(delivered, 0)
    }

    /// PonyExpress called every recipient it had collected when the post began, also those removed since.
    func testARecipientUnregisteredByAnEarlierRecipientOfThePostIsNotCalled() {
        let office = PostOffice()
        var calls: [String] = []
        var second: RecipientId?

        office.register { [weak office] (_: ScoreChanged) in
            calls.append("first")
            office?.unregister(second!)
        }
        second = office.register { (_: ScoreChanged) in calls.append("second") }
        office.post(ScoreChanged(points: 1))
        office.post(ScoreChanged(points: 2))

        XCTAssertEqual(calls, ["first", "first"])
    }

    /// PonyExpress 2 did not compile a verified mail posted without its sender, and flagged a handler whose
    /// required sender is optional. Mailroom flags the post as deprecated, and accepts the handler.
    func testVerifiedMailPostedWithoutItsSenderReachesOnlyHandlersThatDoNotRequireOne() {
        let office = PostOffice()
        var plain: [String] = []
        var withReferee: [String] = []
        var withOptionalReferee: [Referee?] = []

        office.register { (match: MatchEnded) in plain.append(match.winner) }
        office.register { (match: MatchEnded, _: Referee) in withReferee.append(match.winner) }
        office.register { (_: MatchEnded, referee: Referee?) in withOptionalReferee.append(referee) }
        office.post(MatchEnded(winner: "nobody"))  // warning: deprecated, verified mail is posted with its sender

        XCTAssertEqual(plain, ["nobody"])
        XCTAssertEqual(withReferee, [])
        XCTAssertEqual(withOptionalReferee.count, 1)
        XCTAssertNil(withOptionalReferee[0])
    }
}
