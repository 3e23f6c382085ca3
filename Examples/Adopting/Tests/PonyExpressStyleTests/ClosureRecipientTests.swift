import Foundation
import Mailroom
import XCTest

/// Closures registered the PonyExpress way: typed by their parameters, held until unregistered.
final class ClosureRecipientTests: XCTestCase {
    func testAClosureReceivesEveryPostOfItsTypeWithOrWithoutASender() {
        let office = PostOffice()
        let board = Scoreboard()
        var points: [Int] = []

        office.register { (change: ScoreChanged) in
            points.append(change.points)
        }
        office.post(ScoreChanged(points: 1))
        office.post(ScoreChanged(points: 2), sender: board)

        XCTAssertEqual(points, [1, 2])
    }

    func testAClosureIgnoresMailOfOtherTypes() {
        let office = PostOffice()
        var scores = 0
        var playback: [Playback] = []

        office.register { (_: ScoreChanged) in scores += 1 }
        office.register { (event: Playback) in playback.append(event) }
        office.post(Playback.started)
        office.post(Playback.stopped(reason: "done"))

        XCTAssertEqual(scores, 0)
        XCTAssertEqual(playback.count, 2)
        guard case .stopped(let reason) = playback[1] else { return XCTFail("expected .stopped, got \(playback[1])") }
        XCTAssertEqual(reason, "done")
    }

    func testAClosureThatNamesOnlyTheMailTypeRunsForEachPost() {
        let office = PostOffice()
        var count = 0

        office.register(of: Playback.self) { _ in
            count += 1
        }
        office.post(Playback.started)
        office.post(Playback.started)

        XCTAssertEqual(count, 2)
    }

    func testAClosureIsDeliveredOnItsQueue() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "scores")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "scores")
        var queueNames: [String?] = []

        office.register(queue: queue) { (_: ScoreChanged) in
            queueNames.append(DispatchQueue.getSpecific(key: key))
        }
        office.post(ScoreChanged(points: 1))
        office.post(ScoreChanged(points: 2))
        queue.sync {}  // the deliveries were queued before this, on a serial queue

        XCTAssertEqual(queueNames, ["scores", "scores"])
    }

    func testRegisteringReturnsAnIdThatUnregistersOnlyThatClosure() {
        let office = PostOffice()
        var first = 0
        var second = 0

        let firstId = office.register { (_: ScoreChanged) in first += 1 }
        office.register { (_: ScoreChanged) in second += 1 }
        office.post(ScoreChanged(points: 1))
        office.unregister(firstId)
        office.post(ScoreChanged(points: 2))

        XCTAssertEqual(first, 1)
        XCTAssertEqual(second, 2)
        XCTAssertNotEqual(firstId, office.register { (_: ScoreChanged) in })
    }

    func testAClosureIsHeldUntilItIsUnregistered() {
        let office = PostOffice()
        var captured: Scoreboard? = Scoreboard()
        weak let board = captured

        let id = office.register { [captured] (_: ScoreChanged) in _ = captured }
        captured = nil
        XCTAssertNotNil(board, "the office holds the closure, and the closure holds the board")

        office.unregister(id)
        XCTAssertNil(board, "unregistering released the closure")
    }
}
