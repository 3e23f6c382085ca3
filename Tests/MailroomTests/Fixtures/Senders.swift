// The sender classes: `Device` with its subclass `Phone`, and the unrelated `Stranger`.

import Mailroom

/// A sender class with a subclass, `Phone`.
class Device: @unchecked Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

final class Phone: Device, @unchecked Sendable {}

/// A sender class unrelated to `Device`.
final class Stranger: Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

/// The name of a sender of the fixture classes, or "nil".
func senderName(_ sender: (any AnyObject & Sendable)?) -> String {
    switch sender {
    case nil: "nil"
    case let device as Device: device.name
    case let stranger as Stranger: stranger.name
    case let flow as CheckoutFlow: flow.name
    case let some?: "\(type(of: some))"
    }
}
