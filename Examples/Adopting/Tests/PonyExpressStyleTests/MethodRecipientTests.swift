import Foundation
import Mailroom
import XCTest

/// Methods of plain classes registered the PonyExpress way: `register(object, Type.method)`.
final class MethodRecipientTests: XCTestCase {
    func testEachMethodShapeReceivesWhatItsSenderParameterAllows() {
        let office = PostOffice()
        let watcher = ScoreWatcher()
        let board = Scoreboard()

        office.register(watcher, ScoreWatcher.scoreChanged(_:))
        office.register(watcher, ScoreWatcher.scoreChanged(onBoard:board:))
        office.register(watcher, ScoreWatcher.scoreChanged(onBoardOrNone:board:))
        office.post(ScoreChanged(points: 1))
        office.post(ScoreChanged(points: 2), sender: board)

        XCTAssertEqual(watcher.scores, [1, 2])
        XCTAssertEqual(watcher.scoresFromBoards, [2])
        XCTAssertEqual(watcher.scoresFromBoardsOrNobody, [1, 2])
    }

    func testAMethodThatIgnoresItsMailRunsForEachPostOfItsType() {
        let office = PostOffice()
        let watcher = ScoreWatcher()

        office.register(watcher, ScoreWatcher.ping)
        office.post(ScoreChanged(points: 1))
        office.post(ScoreChanged(points: 2))
        office.post(Playback.started)

        XCTAssertEqual(watcher.pings, 2)
    }

    func testAMethodIsDeliveredOnItsQueue() {
        let office = PostOffice()
        let watcher = ScoreWatcher()
        let queue = DispatchQueue(label: "watcher")

        office.register(queue: queue, watcher, ScoreWatcher.scoreChanged(_:))
        office.post(ScoreChanged(points: 7))
        queue.sync {}

        XCTAssertEqual(watcher.scores, [7])
    }

    func testSuperclassRecipientsGetSubclassMailButNotTheOtherWayRound() {
        let office = PostOffice()
        let log = AnnouncementLog()

        office.register(log, AnnouncementLog.any)
        office.register(log, AnnouncementLog.urgent)
        office.post(Announcement(text: "doors open"))
        office.post(UrgentAnnouncement(text: "fire drill"))
        let urgentAsPlain: Announcement = UrgentAnnouncement(text: "storm")
        office.post(urgentAsPlain)

        XCTAssertEqual(
            log.entries,
            ["any: doors open", "any: fire drill", "urgent: fire drill", "any: storm", "urgent: storm"]
        )
    }

    func testVerifiedMailReachesItsRecipientWithTheRequiredSender() {
        let office = PostOffice()
        let reporter = MatchReporter()
        let referee = Referee()

        office.register(reporter, MatchReporter.matchEnded)
        office.post(MatchEnded(winner: "blue"), sender: referee)

        XCTAssertEqual(reporter.results, ["blue"])
        XCTAssertTrue(reporter.referees.first === referee)
    }

    func testTwoTypesOfTheSameNameAreDifferentMail() {
        enum Home { enum Goal: UnverifiedMail { case scored } }
        enum Away { enum Goal: UnverifiedMail { case scored } }
        let office = PostOffice()
        var home = 0
        var away = 0

        office.register { (_: Home.Goal) in home += 1 }
        office.register { (_: Away.Goal) in away += 1 }
        office.post(Home.Goal.scored)

        XCTAssertEqual(home, 1)
        XCTAssertEqual(away, 0)
    }
}
