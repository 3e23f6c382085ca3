#if Observability
/// The rule that keeps a flood from flooding the log: at most one line of each kind per interval, each line saying
/// how many of its kind were held back since the one before, in bounded memory.
///
/// It tracks at most `capacity` kinds. When a new kind finds the table full, the kinds whose interval has passed
/// are dropped (looked for at most once per interval, so that a stream of new kinds does not scan the table on
/// every line); if it is still full, the new kind and every other untracked kind share one overflow kind, itself
/// limited to one line per interval. Lines held back for a kind that is dropped are counted on the overflow
/// kind's next line, so that they are not lost.
///
/// A pure state machine: the caller holds the lock, reads the clock and logs.
struct LogThrottle<Kind: Hashable & Sendable>: Sendable {
    /// What to do with one line.
    enum Verdict: Equatable, Sendable {
        /// Log it, saying that `suppressed` lines of its kind were held back since the last one; `overflow` when
        /// its kind is the shared overflow kind.
        case log(suppressed: Int, overflow: Bool)
        /// Hold it back: a line of its kind was logged less than an interval ago.
        case suppress
    }

    /// One tracked kind: when its last line was logged, and how many were held back since.
    private struct Entry: Sendable {
        var lastLine: ContinuousClock.Instant
        var suppressed = 0
    }

    let interval: Duration
    let capacity: Int
    private var entries: [Kind: Entry] = [:]
    private var overflow: Entry?
    /// Lines held back for kinds that were dropped, waiting for the overflow kind's next line.
    private var carried = 0
    private var lastSweep: ContinuousClock.Instant?

    init(interval: Duration, capacity: Int) {
        self.interval = interval
        self.capacity = max(0, capacity)
    }

    /// How many kinds are tracked on their own, at most `capacity`.
    var trackedKinds: Int { entries.count }

    /// What to do with a line of `kind`, logged or not at `now`.
    mutating func admit(_ kind: Kind, at now: ContinuousClock.Instant) -> Verdict {
        if let entry = entries[kind] {
            let (verdict, updated) = Self.admit(entry, at: now, interval: interval)
            entries[kind] = updated
            return verdict.map { .log(suppressed: $0, overflow: false) } ?? .suppress
        }
        if entries.count >= capacity {
            sweep(at: now)
        }
        if entries.count < capacity {
            entries[kind] = Entry(lastLine: now)
            return .log(suppressed: 0, overflow: false)
        }
        guard let entry = overflow else {
            overflow = Entry(lastLine: now)
            defer { carried = 0 }
            return .log(suppressed: carried, overflow: true)
        }
        let (verdict, updated) = Self.admit(entry, at: now, interval: interval)
        overflow = updated
        guard let suppressed = verdict else { return .suppress }
        defer { carried = 0 }
        return .log(suppressed: suppressed + carried, overflow: true)
    }

    /// A line of a tracked kind: logged with the count held back when the interval has passed, else held back.
    private static func admit(
        _ entry: Entry, at now: ContinuousClock.Instant, interval: Duration
    ) -> (suppressed: Int?, Entry) {
        guard now - entry.lastLine >= interval else {
            var entry = entry
            entry.suppressed += 1
            return (nil, entry)
        }
        return (entry.suppressed, Entry(lastLine: now))
    }

    /// Drops the kinds whose interval has passed, carrying what they held back to the overflow kind; at most once
    /// per interval.
    private mutating func sweep(at now: ContinuousClock.Instant) {
        if let lastSweep, now - lastSweep < interval {
            return
        }
        lastSweep = now
        let interval = interval
        let expired = entries.filter { now - $0.value.lastLine >= interval }
        for (kind, entry) in expired {
            carried += entry.suppressed
            entries[kind] = nil
        }
    }
}
#endif
