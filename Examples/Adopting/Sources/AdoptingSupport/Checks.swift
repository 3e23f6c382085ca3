import Dispatch
import Foundation

/// A key set on the main queue only. The main actor runs its work on the main queue (on Linux, on whatever
/// thread drains it), so code that finds the key runs on the main actor.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// True when the caller runs on the main actor. Unlike `MainActor.preconditionIsolated()`, it does not trap, so
/// that a check can report where a handler ran.
public func isOnMainActor() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

/// The outcome of the example's checks: each prints a line; any failure makes the program exit with status 1.
public final class Checks {
    private var failures = 0

    /// No check made yet.
    public init() {}

    /// Prints `what` with "ok" or "FAILED" and the values compared.
    public func expect<T: Equatable>(_ what: String, _ actual: T, equals expected: T) {
        if actual == expected {
            print("ok      \(what)")
        } else {
            failures += 1
            print("FAILED  \(what): got \(actual), expected \(expected)")
        }
    }

    /// Exits with status 1 if a check failed.
    public func finish() {
        guard failures > 0 else { return print("all checks passed") }
        print("\(failures) check(s) failed")
        exit(1)
    }
}
