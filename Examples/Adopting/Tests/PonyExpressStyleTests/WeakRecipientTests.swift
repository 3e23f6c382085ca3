import Foundation
import Mailroom
import XCTest

/// Method recipients and exact senders are held weakly, as in PonyExpress: nothing to clean up in `deinit`.
final class WeakRecipientTests: XCTestCase {
    func testTheOfficeDoesNotKeepAMethodRecipientAlive() {
        let office = PostOffice()
        var watcher: ScoreWatcher? = ScoreWatcher()
        weak let released = watcher

        office.register(watcher!, ScoreWatcher.scoreChanged(_:))
        watcher = nil

        XCTAssertNil(released)
    }

    func testPostingAfterARecipientWentAwayReachesTheOthersOnly() {
        let office = PostOffice()
        let staying = ScoreWatcher()
        var leaving: ScoreWatcher? = ScoreWatcher()

        office.register(leaving!, ScoreWatcher.scoreChanged(_:))
        office.register(staying, ScoreWatcher.scoreChanged(_:))
        office.post(ScoreChanged(points: 1))
        leaving = nil
        office.post(ScoreChanged(points: 2))

        XCTAssertEqual(staying.scores, [1, 2])
        XCTAssertEqual(office.count, 1)
    }

    func testTheOfficeDoesNotKeepAnExactSenderAlive() {
        let office = PostOffice()
        var board: Scoreboard? = Scoreboard()
        weak let released = board
        var calls = 0

        office.register(sender: board!) { (_: ScoreChanged) in calls += 1 }
        office.post(ScoreChanged(points: 1), sender: board!)
        board = nil
        office.post(ScoreChanged(points: 2), sender: Scoreboard())

        XCTAssertNil(released)
        XCTAssertEqual(calls, 1)
    }

    func testARecipientThatGoesAwayInsideAScopeIsGoneAfterIt() {
        let office = PostOffice()
        let board = Scoreboard()
        weak var released: ScoreWatcher?

        do {
            let watcher = ScoreWatcher()
            released = watcher
            office.register(sender: board, watcher, ScoreWatcher.scoreChanged(onBoard:board:))
            office.post(ScoreChanged(points: 1), sender: board)
            XCTAssertEqual(watcher.scoresFromBoards, [1])
            XCTAssertEqual(office.count, 1)
        }
        office.post(ScoreChanged(points: 2), sender: board)

        XCTAssertNil(released)
        XCTAssertEqual(office.count, 0)
    }
}
