import Foundation
import Mailroom
import XCTest

/// PonyExpress's sender rules: a sender type in the handler filters by class, `register(sender:)` by instance.
final class SenderFilterTests: XCTestCase {
    func testARequiredSenderParameterTakesOnlyMailFromThatClassOrASubclass() {
        let office = PostOffice()
        var senders: [Scoreboard] = []
        let board = Scoreboard()
        let practice = PracticeScoreboard()

        office.register { (_: ScoreChanged, sender: Scoreboard) in senders.append(sender) }
        office.post(ScoreChanged(points: 1))
        office.post(ScoreChanged(points: 2), sender: board)
        office.post(ScoreChanged(points: 3), sender: practice)
        office.post(ScoreChanged(points: 4), sender: Referee())

        XCTAssertEqual(senders.count, 2)
        XCTAssertTrue(senders[0] === board)
        XCTAssertTrue(senders[1] === practice)
    }

    func testAnOptionalSenderParameterAlsoTakesMailPostedWithoutASender() {
        let office = PostOffice()
        var senders: [Scoreboard?] = []
        let board = Scoreboard()

        office.register { (_: ScoreChanged, sender: Scoreboard?) in senders.append(sender) }
        office.post(ScoreChanged(points: 1))
        office.post(ScoreChanged(points: 2), sender: board)
        office.post(ScoreChanged(points: 3), sender: Referee())

        XCTAssertEqual(senders.count, 2)
        XCTAssertNil(senders[0])
        XCTAssertTrue(senders[1] === board)
    }

    func testAnExactSenderRegistrationTakesOnlyMailFromThatInstance() {
        let office = PostOffice()
        let mine = Scoreboard()
        let theirs = Scoreboard()
        var plain: [Int] = []
        var withSender: [Int] = []
        var withOptionalSender: [Int] = []

        office.register(sender: mine) { (change: ScoreChanged) in plain.append(change.points) }
        office.register(sender: mine) { (change: ScoreChanged, _: Scoreboard) in withSender.append(change.points) }
        office.register(sender: mine) { (change: ScoreChanged, _: Scoreboard?) in
            withOptionalSender.append(change.points)
        }
        office.post(ScoreChanged(points: 1), sender: mine)
        office.post(ScoreChanged(points: 2), sender: theirs)
        office.post(ScoreChanged(points: 3))

        XCTAssertEqual(plain, [1])
        XCTAssertEqual(withSender, [1])
        XCTAssertEqual(withOptionalSender, [1])
    }

    func testAnExactSenderMethodRegistrationTakesOnlyMailFromThatInstance() {
        let office = PostOffice()
        let watcher = ScoreWatcher()
        let mine = Scoreboard()

        office.register(sender: mine, watcher, ScoreWatcher.scoreChanged(_:))
        office.register(sender: mine, watcher, ScoreWatcher.scoreChanged(onBoard:board:))
        office.register(sender: mine, watcher, ScoreWatcher.ping)
        office.post(ScoreChanged(points: 1), sender: mine)
        office.post(ScoreChanged(points: 2), sender: Scoreboard())
        office.post(ScoreChanged(points: 3))

        XCTAssertEqual(watcher.scores, [1])
        XCTAssertEqual(watcher.scoresFromBoards, [1])
        XCTAssertEqual(watcher.pings, 1)
    }

    func testAHandlerWithoutASenderParameterIgnoresWhoSentTheMail() {
        let office = PostOffice()
        let referee = Referee()
        var winners: [String] = []

        office.register { (match: MatchEnded) in winners.append(match.winner) }
        office.post(MatchEnded(winner: "red"), sender: referee)

        XCTAssertEqual(winners, ["red"])
    }
}
