import Foundation
import Mailroom

/// A running link between a `NotificationCenter` and a `PostOffice`, made by `bridge(...)` or
/// `forward(...)`: it stops when it is released or cancelled.
///
/// Keep it for as long as the link should run, like an observation token:
///
/// ```swift
/// let keyboard = office.bridge(keyboardWillShow, as: KeyboardFrameChange.self)   // runs while `keyboard` lives
/// ```
/// A notification or mail that cannot be converted (a `DecodingError`, an `EncodingError`, or an error thrown by
/// your closure) is not passed on: it is handed to the bridge's failure handler as a ``BridgeFailure``, and
/// counted in ``failureCount``. Without a handler, each kind of failure is reported once, through
/// ``NotificationBridge/log``.
public final class NotificationBridge: Sendable {
    /// Receives each ``BridgeFailure`` of a bridge, on the thread that posted.
    public typealias FailureHandler = @Sendable (BridgeFailure) -> Void

    private let stop: Locked<(@Sendable () -> Void)?>
    private let failures: Failures

    init(failures: Failures, stop: @escaping @Sendable () -> Void) {
        self.failures = failures
        self.stop = Locked(stop)
    }

    deinit {
        cancel()
    }

    /// Stops the bridge: once this returns, it passes nothing more on. Cancelling again does nothing.
    public func cancel() {
        let stop = stop.withLock { stop in
            defer { stop = nil }
            return stop
        }
        stop?()
    }

    /// The number of notifications or mails this bridge could not convert, and so did not pass on.
    public var failureCount: Int {
        failures.count
    }
}

/// Why a bridge did not pass a notification or a mail on.
public struct BridgeFailure: Error, Sendable, CustomStringConvertible {
    /// The name of the notification that could not be converted to mail, or that the mail would have been
    /// posted under.
    public let name: Notification.Name
    /// The mail type the bridge converts from or to.
    public let mailType: any Mail.Type
    /// What went wrong: usually a `DecodingError` or an `EncodingError`, with its coding path.
    public let error: any Error

    /// The name, the mail type and the error, in one line: for a `DecodingError` or an `EncodingError`, the coding
    /// path of the failing value and the error's description.
    public var description: String {
        let (path, detail) = Self.parts(of: error)
        return "\(name.rawValue) <-> \(qualifiedName(of: mailType)): " + (path.map { "at \($0): \(detail)" } ?? detail)
    }

    /// What tells this failure apart from a failure of another kind, at another place, whatever values it found.
    var kind: String {
        let (path, detail) = Self.parts(of: error)
        return path.map { "\(type(of: error)) at \($0)" } ?? detail
    }

    /// The coding path, when the error has one, and the error's description.
    private static func parts(of error: any Error) -> (path: String?, detail: String) {
        let context: (codingPath: [any CodingKey], debugDescription: String)
        switch error {
        case DecodingError.keyNotFound(_, let found), DecodingError.valueNotFound(_, let found),
            DecodingError.typeMismatch(_, let found), DecodingError.dataCorrupted(let found):
            context = (found.codingPath, found.debugDescription)
        case EncodingError.invalidValue(_, let found):
            context = (found.codingPath, found.debugDescription)
        default:
            return (nil, "\(error)")
        }
        let path =
            context.codingPath.isEmpty
            ? "the top level"
            : context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return (path, context.debugDescription)
    }
}

extension NotificationBridge {
    /// Where bridges without a failure handler report their failures: each kind of failure (an error type at a
    /// coding path, or an error's description) once per bridge, and at most 32 kinds per bridge.
    /// By default it writes the line to standard error; set it to route the lines to your logger, or to
    /// collect them in tests.
    public static var log: @Sendable (String) -> Void {
        get { logHook.withLock { $0 } }
        set { logHook.withLock { $0 = newValue } }
    }

    private static let logHook = Locked<@Sendable (String) -> Void> { line in
        FileHandle.standardError.write(Data("MailroomFoundation: \(line)\n".utf8))
    }

    /// The failures of one bridge: counted, and handed to its handler or reported once each.
    final class Failures: Sendable {
        private let mailType: any Mail.Type
        private let handler: FailureHandler?
        private let state = Locked((count: 0, reported: Set<String>()))

        /// The kinds of failure a bridge reports through ``NotificationBridge/log`` at most: later kinds are only
        /// counted, so a stream of ever-different bad notifications neither floods the log nor grows the set.
        static let reportLimit = 32

        init(mailType: any Mail.Type, handler: FailureHandler?) {
            self.mailType = mailType
            self.handler = handler
        }

        var count: Int {
            state.withLock { $0.count }
        }

        /// Counts `error`, met converting a notification of `name` or mail to be posted under it, and hands it on.
        func record(_ error: any Error, name: Notification.Name) {
            let failure = BridgeFailure(name: name, mailType: mailType, error: error)
            if let handler {
                state.withLock { $0.count += 1 }
                return handler(failure)
            }
            let kind = failure.kind
            let reported = state.withLock { state in
                state.count += 1
                guard state.reported.count < Self.reportLimit else { return 0 }
                return state.reported.insert(kind).inserted ? state.reported.count : 0
            }
            switch reported {
            case 0: break
            case Self.reportLimit:
                NotificationBridge.log(
                    "\(failure) (not posted; \(Self.reportLimit) kinds of failure reported, later ones only counted)")
            default:
                NotificationBridge.log("\(failure) (not posted; reported once)")
            }
        }
    }
}
