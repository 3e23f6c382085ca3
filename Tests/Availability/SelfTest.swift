// Known answers for check.py, which checks this file before the package, against macOS 12, iOS 15, tvOS 15,
// watchOS 8 and visionOS 1: a line whose comment says `expect:` and names symbols, separated by semicolons, must be
// reported for each of them, and no other line may be reported. Never built: check.py only type-checks it.
import Foundation
import Synchronization

func newTypeInASignature(_ timeout: Duration) {}  // expect: Swift Duration

func newMemberOfANewType() {
    let clock = ContinuousClock()  // expect: _Concurrency ContinuousClock.init(); _Concurrency ContinuousClock
    _ = clock  // expect: _Concurrency ContinuousClock
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
func newAPIInsideAvailable() -> Duration {
    .seconds(1)
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension Int {
    var asDuration: Duration { .seconds(self) }
}

func newAPIUnderIfAvailable() {
    if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) {
        _ = ContinuousClock.now
    }
    _ = ContinuousClock.now  // expect: _Concurrency ContinuousClock.now; _Concurrency ContinuousClock
}

func newAPIAfterGuardAvailable() {
    guard #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) else { return }
    _ = Duration.zero
}

func newAPIUnderTooOldAvailable() {
    if #available(macOS 12.3, iOS 15.4, tvOS 15.4, watchOS 8.5, *) {
        _ = Duration.zero  // expect: Swift Duration.zero; Swift Duration
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
func helperOfOursThatNeedsMore() -> Int128 { 0 }

func callsOurNewerHelper() {
    _ = helperOfOursThatNeedsMore()  // expect: our helperOfOursThatNeedsMore
}

func wideIntegerWithoutAvailable(_ value: Int128) {}  // expect: Swift Int128

@available(macOS, unavailable)
@available(iOS 16, tvOS 16, watchOS 9, *)
func unavailableWhereItWouldNeedMore() {
    _ = Duration.zero
}

func backDeployedAndOverloadedAPIs(_ key: UInt64) -> UInt64 {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    continuation.finish()
    _ = stream
    return key &* 0x9E37_79B9_7F4A_7C15
}

func reviewedAndUnreviewedFoundation() {
    NSLock().withLock {}
    _ = NSCondition()  // expect: Foundation NSCondition; Foundation NSCondition.init()
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct TypeOfOursThatNeedsMore {
    static let zero = Int128(0)
    var value: Int128 { 0 }
}

func usesOurNewerType(_ value: TypeOfOursThatNeedsMore) {}  // expect: our TypeOfOursThatNeedsMore

enum Holder {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static let timeout = Duration.seconds(5)
}

final class LockedCounter: Sendable {
    let count = Mutex(0)  // expect: Synchronization Mutex; Synchronization Mutex.init(_:)
}
