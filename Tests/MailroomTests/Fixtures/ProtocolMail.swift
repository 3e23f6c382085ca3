// Mail for the protocol and catch-all recipients: a protocol refining `Mail` and the types that conform to it.

import Mailroom

/// A protocol refining `Mail`: several structs, an enum and a subclass conform to it.
protocol Alert: Mail {
    var message: String { get }
}

/// A protocol refining `Mail` that no mail type conforms to.
protocol Beacon: Mail {}

struct DiskFull: Alert, Equatable {
    let percent: Int

    var message: String { "disk \(percent)%" }
}

struct BatteryLow: Alert, Equatable {
    let level: Int

    var message: String { "battery \(level)%" }
}

enum Siren: Alert, Equatable {
    case fire
    case flood(level: Int)

    var message: String {
        switch self {
        case .fire: "siren fire"
        case .flood(let level): "siren flood \(level)"
        }
    }
}

/// Class mail that does not conform to `Alert`; its subclass `UrgentNotice` adds the conformance, which
/// `SevereNotice` inherits.
class Notice: Mail, @unchecked Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }
}

class UrgentNotice: Notice, Alert, @unchecked Sendable {
    var message: String { "\(type(of: self)) \(text)" }
}

final class SevereNotice: UrgentNotice, @unchecked Sendable {}

/// The name of a mail's dynamic type, for catch-all recipients' logs.
func typeName(_ mail: any Mail) -> String {
    String(describing: type(of: mail))
}
