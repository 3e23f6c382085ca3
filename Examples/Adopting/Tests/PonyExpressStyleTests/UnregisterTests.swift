import Foundation
import Mailroom
import XCTest

/// `unregister` by id and by object, and `PostOffice.count`, PonyExpress's name for `registrationCount`.
final class UnregisterTests: XCTestCase {
    func testCountIsTheNumberOfLiveRegistrations() {
        let office = PostOffice()
        let watcher = ScoreWatcher()

        XCTAssertEqual(office.count, 0)
        office.register(watcher, ScoreWatcher.scoreChanged(_:))
        let closure = office.register { (_: Playback) in }
        XCTAssertEqual(office.count, 2)
        XCTAssertEqual(office.count, office.registrationCount)

        office.unregister(closure)
        XCTAssertEqual(office.count, 1)
    }

    func testUnregisteringAnIdStopsThatRegistrationOnly() {
        let office = PostOffice()
        let watcher = ScoreWatcher()
        let board = Scoreboard()

        let plain = office.register(watcher, ScoreWatcher.scoreChanged(_:))
        let fromBoard = office.register(watcher, ScoreWatcher.scoreChanged(onBoard:board:))
        office.post(ScoreChanged(points: 1), sender: board)
        office.unregister(plain)
        office.post(ScoreChanged(points: 2), sender: board)
        office.unregister(fromBoard)
        office.post(ScoreChanged(points: 3), sender: board)

        XCTAssertEqual(watcher.scores, [1])
        XCTAssertEqual(watcher.scoresFromBoards, [1, 2])
        XCTAssertEqual(office.count, 0)
    }

    func testUnregisteringAnObjectRemovesAllItsMethodsButNotClosures() {
        let office = PostOffice()
        let watcher = ScoreWatcher()
        var closureCalls = 0

        office.register(watcher, ScoreWatcher.scoreChanged(_:))
        office.register(watcher, ScoreWatcher.scoreChanged(onBoardOrNone:board:))
        office.register(watcher, ScoreWatcher.ping)
        office.register { (_: ScoreChanged) in closureCalls += 1 }
        XCTAssertEqual(office.count, 4)

        office.unregister(watcher)
        office.post(ScoreChanged(points: 1))

        XCTAssertEqual(office.count, 1)
        XCTAssertEqual(watcher.scores, [])
        XCTAssertEqual(watcher.scoresFromBoardsOrNobody, [])
        XCTAssertEqual(watcher.pings, 0)
        XCTAssertEqual(closureCalls, 1)
    }

    func testUnregisteringTwiceOrAnUnknownIdChangesNothing() {
        let office = PostOffice()
        let other = PostOffice()
        var calls = 0

        let id = office.register { (_: ScoreChanged) in calls += 1 }
        let elsewhere = other.register { (_: ScoreChanged) in }
        office.unregister(elsewhere)
        office.post(ScoreChanged(points: 1))
        office.unregister(id)
        office.unregister(id)
        office.post(ScoreChanged(points: 2))

        XCTAssertEqual(calls, 1)
        XCTAssertEqual(office.count, 0)
        XCTAssertEqual(other.count, 1)
    }
}
