/// Seeing who listens to what.
extension PostOffice: CustomDebugStringConvertible {
    /// The live registrations, in the order a post calls them: by priority, highest first, then registration order.
    ///
    /// Registrations whose recipient, exact sender or owner has deallocated, and one-shot registrations
    /// already delivered, are left out (and reclaimed, as ``registrationCount`` does).
    public var registrations: [RegistrationInfo] {
        _ = registrationCount
        return sortingOffice.registrations.filter(\.registration.isAlive).map(RegistrationInfo.init)
    }

    /// The office's live registrations, one per line, grouped by mail type.
    public var debugDescription: String {
        let registrations = registrations
        var lines = ["PostOffice with \(registrations.count) registration\(registrations.count == 1 ? "" : "s")"]
        var mailTypes: [String] = []
        for registration in registrations where !mailTypes.contains(registration.mailType) {
            mailTypes.append(registration.mailType)
        }
        for mailType in mailTypes {
            lines.append("  \(mailType):")
            for registration in registrations where registration.mailType == mailType {
                lines.append("    \(registration)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
