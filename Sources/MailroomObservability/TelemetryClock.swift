#if Observability
/// Where ``MailTelemetry`` reads the time: a monotonic clock, behind a function so that tests move time by hand
/// instead of sleeping.
struct TelemetryClock: Sendable {
    let now: @Sendable () -> ContinuousClock.Instant

    /// The system's continuous clock, which keeps counting while the machine sleeps.
    static let continuous = TelemetryClock(now: { ContinuousClock.now })
}

extension Duration {
    /// The duration in whole nanoseconds, as metrics record it; 0 for a negative duration.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (nanoseconds, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || carry ? .max : nanoseconds
    }
}
#endif
