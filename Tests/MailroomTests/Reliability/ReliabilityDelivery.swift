// Where a registration of the reliability tests delivers.

import Dispatch
import Testing

/// Where a registration delivers: on the posting thread, or on a serial queue.
enum ReliabilityDelivery: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case synchronous = "queue: nil"
    case queued = "queue: serial"

    var testDescription: String { rawValue }

    func makeQueue(_ label: String) -> DispatchQueue? {
        self == .queued ? DispatchQueue(label: "mailroom.tests.reliability.\(label)") : nil
    }
}
