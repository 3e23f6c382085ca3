#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an office's failures go when no registration received their ``DeliveryFailure``, or when a handler of
/// a `DeliveryFailure` threw: the handler given to ``PostOffice/init(unheardFailures:)``, or standard error.
///
/// Standard error gets one line for the first failure of each kind (mail type and error type): a failing
/// handler called for every post does not flood it, and memory stays bounded by the kinds the program has.
final class FailureFallback: Sendable {
    private struct Kind: Hashable {
        let mailType: ObjectIdentifier
        let errorType: ObjectIdentifier
    }

    private let handler: (@Sendable (DeliveryFailure) -> Void)?
    private let written = Locked(Set<Kind>())

    init(_ handler: (@Sendable (DeliveryFailure) -> Void)?) {
        self.handler = handler
    }

    /// Writes to standard error, for failures whose office has gone.
    static let standardError = FailureFallback(nil)

    /// Hands `failure` to the handler, or writes it to standard error if it is the first of its kind.
    func report(_ failure: DeliveryFailure) {
        if let handler {
            return handler(failure)
        }
        let kind = Kind(
            mailType: ObjectIdentifier(type(of: failure.mail)), errorType: ObjectIdentifier(type(of: failure.error))
        )
        guard written.withLock({ $0.insert(kind).inserted }) else { return }
        var line = Self.line(for: failure)
        line.withUTF8 { bytes in
            var written = 0
            while written < bytes.count {
                let result = write(2, bytes.baseAddress! + written, bytes.count - written)
                if result <= 0 { break }
                written += result
            }
        }
    }

    /// The line written for `failure`.
    static func line(for failure: DeliveryFailure) -> String {
        "Mailroom: \(failure), and no recipient of DeliveryFailure received the report. Later failures of "
            + "\(type(of: failure.mail)) with \(type(of: failure.error)) are not written. Register for "
            + "DeliveryFailure, or give PostOffice(unheardFailures:) a handler.\n"
    }
}
