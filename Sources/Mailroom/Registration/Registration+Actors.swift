extension Registration {
    /// Calls an actor registration's `handler` isolated to `actor`.
    @inlinable
    static func run<A: Actor, E: Error, each Argument>(
        _ handler: (isolated A, repeat each Argument) throws(E) -> Void, on actor: isolated A,
        _ arguments: repeat each Argument
    ) throws(E) {
        try handler(actor, repeat each arguments)
    }

    /// Calls an actor registration's `async` `method` isolated to `actor`.
    @inlinable
    static func run<A: Actor, E: Error, each Argument>(
        _ method: (isolated A) -> (repeat each Argument) async throws(E) -> Void, on actor: isolated A,
        _ arguments: repeat each Argument
    ) async throws(E) {
        try await method(actor)(repeat each arguments)
    }
}
