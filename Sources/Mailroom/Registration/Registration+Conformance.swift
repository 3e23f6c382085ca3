extension Registration {
    /// Like ``Handler``, for a registration for a protocol: the mail comes boxed, to be cast to it.
    typealias ConformingHandler =
        @Sendable (_ mail: any Mail, _ sender: SendableObject?, _ recipient: SendableObject?) throws -> Void

    /// What a registration for a protocol needs: which mail conforms, and its handler.
    struct Conformance: Sendable {
        let admits: @Sendable (any Mail) -> Bool
        let handler: ConformingHandler
        /// True for `any Mail`: a wiretap, which sees the mail callers post but is not counted as having
        /// received it (mail only it saw is still ``UndeliveredMail``), and does not see those reports.
        let isWiretap: Bool
    }
}
