// Stand-ins for what an app shows and where it logs: they do nothing, so that a sample's output is its own.
import Foundation
import Mailroom

/// Somewhere a fragment shows a value: a banner, a screen, a receipt.
public struct Display: Sendable {
    /// Shows `value` (a stand-in: does nothing).
    public func show(_ value: some CustomStringConvertible) {}
}

/// A banner at the top of the screen.
public let banner = Display()
/// The current screen.
public let screen = Display()
/// The receipt of an order.
public let receipt = Display()

/// Shows `text` on the current screen (a stand-in: does nothing).
public func show(_ text: String) {}

/// Shows the what's-new screen (a stand-in: does nothing).
public func showWhatsNew() {}

/// Draws what `mail` changed (a stand-in: does nothing).
public func render(_ mail: some Mail) {}

/// Moves the screen's content above `frame`, the keyboard's (a stand-in: does nothing).
public func layout(above frame: CGRect) {}

/// Records `mail` for analytics (a stand-in: does nothing).
public func record(_ mail: some Mail) {}

/// A logger, in the shape of swift-log's `Logger` (a stand-in: writes nothing).
public struct Log: Sendable {
    /// Logs `message` at debug level.
    public func debug(_ message: String) {}
    /// Logs `message` at info level.
    public func info(_ message: String) {}
    /// Logs `message` at warning level.
    public func warning(_ message: String) {}
    /// Logs `message` at error level.
    public func error(_ message: String) {}
}

/// The app's logger.
public let log = Log()
/// The app's logger, under the name some fragments use.
public let logger = Log()

/// An audit trail of every post (a stand-in: keeps nothing).
public struct Audit: Sendable {
    /// Records that `mail` was posted by `sender`.
    public func record(_ mail: any Mail, from sender: (any AnyObject & Sendable)?) {}
}

/// The app's audit trail.
public let audit = Audit()

/// A server the app sends orders to (a stand-in: sends nothing).
public struct API: Sendable {
    /// Sends `order` to the server.
    public func send(_ order: OrderPlaced) async {}
}

/// The app's server.
public let api = API()
