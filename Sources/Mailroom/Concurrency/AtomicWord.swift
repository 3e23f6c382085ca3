internal import _MailroomAtomics

/// A machine word that several threads read and write with atomic operations.
///
/// It does not own its memory: whoever allocates it with ``allocate(_:)`` calls ``deallocate()``.
/// Pointers are stored as their bit patterns, so a published object is reached without retaining it.
/// Sendable because every access to the word is atomic (see docs/design.md).
struct AtomicWord: @unchecked Sendable {
    let address: UnsafeMutablePointer<UInt>

    init(_ address: UnsafeMutablePointer<UInt>) {
        self.address = address
    }

    static func allocate(_ value: UInt = 0) -> AtomicWord {
        let address = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        address.initialize(to: value)
        return AtomicWord(address)
    }

    func deallocate() {
        address.deallocate()
    }

    @inline(__always) func loadRelaxed() -> UInt { mailroom_load_relaxed(address) }
    @inline(__always) func loadAcquire() -> UInt { mailroom_load_acquire(address) }
    @inline(__always) func storeRelaxed(_ value: UInt) { mailroom_store_relaxed(address, value) }
    @inline(__always) func storeRelease(_ value: UInt) { mailroom_store_release(address, value) }
    @inline(__always) func increment() { _ = mailroom_increment(address) }
    @inline(__always) func compareExchange(expected: UInt, desired: UInt) -> Bool {
        mailroom_compare_exchange(address, expected, desired)
    }
    @inline(__always) func decrement() { _ = mailroom_decrement(address) }
}

/// A flag that starts raised and can be lowered once, read from any thread.
@usableFromInline
final class AtomicFlag: Sendable {
    private let word = AtomicWord.allocate(1)

    deinit { word.deallocate() }

    var isRaised: Bool { word.loadAcquire() != 0 }

    func lower() { word.storeRelease(0) }

    /// Lowers the flag if it is raised; true for exactly one caller, however many threads try at once.
    func lowerIfRaised() -> Bool {
        word.loadAcquire() != 0 && word.compareExchange(expected: 1, desired: 0)
    }
}
