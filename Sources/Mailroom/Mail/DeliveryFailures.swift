/// The error ``PostOffice/deliver(_:)-9cnzh`` throws when any recipient of the mail threw: every failure of that
/// mail, in the order its recipients are called.
///
/// ```swift
/// do {
///     try await office.deliver(OrderPlaced(id: 4))
/// } catch {
///     for failure in error.failures { print(failure.recipient, failure.error) }
/// }
/// ```
///
/// `deliver` throws it only after every recipient has handled the mail, so the failures are complete. They
/// are in recipient order (by ``Priority``, then registration order), whichever thread, queue or task each
/// recipient ran on.
public struct DeliveryFailures: Error, CustomStringConvertible {
    /// Every failure, in recipient order; never empty.
    public let failures: [DeliveryFailure]

    /// The failures `failures`, in recipient order.
    public init(_ failures: [DeliveryFailure]) {
        self.failures = failures
    }

    /// One line per failure.
    public var description: String {
        "\(failures.count) recipient\(failures.count == 1 ? "" : "s") failed: "
            + failures.map(\.description).joined(separator: "; ")
    }
}
