import Foundation
import Mailroom

// Mail, senders and recipients the way a PonyExpress 2 app declares them: `UnverifiedMail` for mail anyone may
// post, plain classes (not `Sendable`) as senders and recipients, counters the tests read back.

struct ScoreChanged: UnverifiedMail {
    var points: Int
}

enum Playback: UnverifiedMail {
    case started
    case stopped(reason: String)
}

class Announcement: UnverifiedMail {
    let text: String
    init(text: String) { self.text = text }
}

class UrgentAnnouncement: Announcement {}

struct MatchEnded: VerifiedMail {
    typealias RequiredSender = Referee
    var winner: String
}

class Scoreboard {}

class PracticeScoreboard: Scoreboard {}

class Referee {}

/// A recipient with a method for each handler shape PonyExpress accepts.
class ScoreWatcher {
    var scores: [Int] = []
    var scoresFromBoards: [Int] = []
    var scoresFromBoardsOrNobody: [Int] = []
    var senders: [Scoreboard?] = []
    var pings = 0

    func scoreChanged(_ change: ScoreChanged) {
        scores.append(change.points)
    }

    func scoreChanged(onBoard change: ScoreChanged, board: Scoreboard) {
        scoresFromBoards.append(change.points)
        senders.append(board)
    }

    func scoreChanged(onBoardOrNone change: ScoreChanged, board: Scoreboard?) {
        scoresFromBoardsOrNobody.append(change.points)
        senders.append(board)
    }

    /// PonyExpress's method without parameters, `ping()`: Mailroom registers a method by the mail it takes, so it
    /// takes the change, and ignores it.
    func ping(_: ScoreChanged) {
        pings += 1
    }
}

/// Receives announcements, and writes down which of its methods got each one.
class AnnouncementLog {
    var entries: [String] = []

    func any(_ announcement: Announcement) {
        entries.append("any: \(announcement.text)")
    }

    func urgent(_ announcement: UrgentAnnouncement) {
        entries.append("urgent: \(announcement.text)")
    }
}

/// Receives the end of a match, which only a referee may post.
class MatchReporter {
    var results: [String] = []
    var referees: [Referee] = []

    func matchEnded(_ match: MatchEnded, referee: Referee) {
        results.append(match.winner)
        referees.append(referee)
    }
}
