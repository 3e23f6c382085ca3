extension Registration {
    /// Calls an actor registration's `handler` isolated to `actor`.
    @inlinable
    static func run<A: Actor, each Argument>(
        _ handler: (isolated A, repeat each Argument) -> Void, on actor: isolated A, _ arguments: repeat each Argument
    ) {
        handler(actor, repeat each arguments)
    }

    /// Calls an actor registration's `async` `method` isolated to `actor`.
    @inlinable
    static func run<A: Actor, each Argument>(
        _ method: (isolated A) -> (repeat each Argument) async -> Void, on actor: isolated A,
        _ arguments: repeat each Argument
    ) async {
        await method(actor)(repeat each arguments)
    }
}
