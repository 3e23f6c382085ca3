#if Postgres
/// Which live process reads which channel of a subscription that several processes share (its consumer group).
///
/// Every member computes the same answer from the same list, so they agree without talking: each channel goes to
/// the member, among those that read it, that has been given the fewest channels so far (channels in order of their
/// names, ties to the first origin by name). Members that read the same channels get equal shares, give or take
/// one. The subscription's advisory lock per channel, not this answer, keeps two members from reading a channel at
/// once: while members' lists differ (one has just joined or died), a channel waits for its new owner to take the
/// lock its old owner gives back.
struct ConsumerGroup: Sendable, Hashable {
    /// The channels each live member reads, by origin.
    let members: [String: Set<String>]

    /// The member that reads `channel`, or `nil` when no member reads it.
    func owner(of channel: String) -> String? {
        owners[channel]
    }

    /// The owner of every channel a member reads.
    var owners: [String: String] {
        var owners: [String: String] = [:]
        var shares: [String: Int] = [:]
        for channel in Set(members.values.joined()).sorted() {
            let readers = members.filter { $0.value.contains(channel) }.keys
            guard let owner = readers.min(by: { (shares[$0, default: 0], $0) < (shares[$1, default: 0], $1) })
            else { continue }
            owners[channel] = owner
            shares[owner, default: 0] += 1
        }
        return owners
    }
}
#endif
