// Recording into Mailroom's `Locked`, for the handlers of the bridge-in and bridge-out tests.

import Mailroom

/// Mailroom's lock-protected value, for handlers to record into.
extension Locked {
    var current: State { withLock { $0 } }
    func update(_ body: (inout State) -> Void) { withLock(body) }
}

extension Locked where State == [String] {
    func append(_ line: String) { update { $0.append(line) } }
}
