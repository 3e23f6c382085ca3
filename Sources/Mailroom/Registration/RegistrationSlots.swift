/// The registrations of one office, each in the slot its ``RecipientId`` names, for the office's writers, under
/// its lock.
///
/// Unregistering finds a registration by its id with one memory access instead of a hash lookup. A slot freed by
/// unregistering is given to a later registration; the id's number, kept in the slot, tells that registration
/// from the one an old id named, so an old id (or one from another office) finds nothing.
///
/// The slots are plain memory (``Memory``), holding each registration retained by hand, not an `Array` of
/// optional records: an array checks its uniqueness and retains and releases each record copied in or out, which
/// would cost more than the hash lookup the slots replace.
///
/// The slots also thread ``Chain``s: lists of registrations in the order they were added (the registrations for
/// one mail type), which a registration joins and leaves without a search or an allocation.
final class RegistrationSlots {
    struct Record {
        let id: RecipientId
        let registration: Registration
        /// Registration order within the office.
        let order: UInt

        /// Where a post calls it among the others (see ``Priority``); routes are sorted by it.
        var rank: UInt { registration.priority.rank(order: order) }
    }

    /// A slot in use has a registration (retained); a free one has none. 32 bytes: its chain links are 32-bit
    /// (see ``Link``).
    private struct Slot {
        var number: UInt64
        var order: UInt
        var registration: Unmanaged<Registration>?
        /// The slots before and after this one in its chain (`noSlot` at either end).
        var previous = RegistrationSlots.noSlot
        var next = RegistrationSlots.noSlot
    }

    /// A slot's index in a chain: 32 bits, which keeps a slot at 32 bytes rather than 40. An office holds fewer
    /// registrations than that counts (``maximumCount``), each at least a hundred bytes; and a
    /// ``RecipientIndex/Entry`` packs a slot's index in 31 bits.
    fileprivate typealias Link = Int32

    /// The most registrations an office holds at once: slots are numbered by a ``Link``, below its greatest value.
    static let maximumCount = Int(Link.max)

    /// Registrations in the order they joined (see ``append(_:to:)``), threaded through their slots.
    struct Chain {
        fileprivate var first = RegistrationSlots.noSlot
        fileprivate var last = RegistrationSlots.noSlot
    }

    /// Plain memory for `capacity` elements of a trivial type, reached only through its subscript, which asserts in
    /// debug builds that the index is within the memory. A handle, not an owner: the slots free it
    /// (``deallocate()``).
    private struct Memory<Element: BitwiseCopyable> {
        private var base = UnsafeMutablePointer<Element>.allocate(capacity: 0)
        private(set) var capacity = 0

        subscript(index: Int) -> Element {
            @inline(__always) unsafeAddress {
                UnsafePointer(address(of: index))
            }
            @inline(__always) nonmutating unsafeMutableAddress {
                address(of: index)
            }
        }

        /// Moves the first `count` elements into new memory with room for `newCapacity`, and frees the old.
        mutating func grow(to newCapacity: Int, moving count: Int) {
            assert(count <= capacity && capacity <= newCapacity)
            let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        func deallocate() {
            base.deallocate()
        }

        @inline(__always)
        private func address(of index: Int) -> UnsafeMutablePointer<Element> {
            assert(index >= 0 && index < capacity, "index \(index) is outside 0..<\(capacity)")
            return base + index
        }
    }

    private static let noSlot: Link = -1

    // Only writers touch these, under the office lock, which already makes every access exclusive (as in `Route`).
    @exclusivity(unchecked) private var slots = Memory<Slot>()
    /// Slots `0..<used` have been handed out at least once.
    @exclusivity(unchecked) private var used = 0
    /// The indexes of the freed slots among them, the most recently freed last: reused first.
    @exclusivity(unchecked) private var freeSlots = Memory<Link>()
    @exclusivity(unchecked) private var freeCount = 0

    deinit {
        for index in 0..<used {
            slots[index].registration?.release()
        }
        slots.deallocate()
        freeSlots.deallocate()
    }

    /// The number of registrations held.
    var count: Int { used - freeCount }

    /// Keeps `registration`, registered `order`-th in the office, and returns its new id. The slots take over the
    /// reference the caller passes.
    func insert(_ registration: Unmanaged<Registration>, order: UInt) -> RecipientId {
        let slot: Int
        if freeCount > 0 {
            freeCount -= 1
            slot = Int(freeSlots[freeCount])
        } else {
            if used == slots.capacity {
                grow()
            }
            slot = used
            used += 1
        }
        let id = RecipientId.next(slot: slot)
        slots[slot] = Slot(number: id.number, order: order, registration: registration)
        return id
    }

    /// The record of the registration `id` names, if this office holds it.
    subscript(id: RecipientId) -> Record? {
        find(id).map { _ in record(at: id.slot) }
    }

    /// The registration `id` names, unretained, with its order; `nil` if this office does not hold it.
    func find(_ id: RecipientId) -> (registration: Unmanaged<Registration>, order: UInt)? {
        guard id.slot >= 0, id.slot < used, slots[id.slot].number == id.number,
            let registration = slots[id.slot].registration
        else { return nil }
        return (registration, slots[id.slot].order)
    }

    /// Removes the registration `id` names, which this office holds and which is in no chain, and hands the
    /// caller the reference the slots held.
    func remove(_ id: RecipientId) -> Registration {
        let registration = slots[id.slot].registration.unsafelyUnwrapped
        slots[id.slot].registration = nil
        freeSlots[freeCount] = Link(truncatingIfNeeded: id.slot)
        freeCount += 1
        return registration.takeRetainedValue()
    }

    /// Adds the registration `id` names, which this office holds and which is in no chain, at the end of `chain`.
    func append(_ id: RecipientId, to chain: inout Chain) {
        let link = Link(truncatingIfNeeded: id.slot)
        slots[id.slot].previous = chain.last
        slots[id.slot].next = Self.noSlot
        if chain.last == Self.noSlot {
            chain.first = link
        } else {
            slots[Int(chain.last)].next = link
        }
        chain.last = link
    }

    /// Takes the registration `id` names out of `chain`, which it is in; before it is removed from the slots.
    func unchain(_ id: RecipientId, from chain: inout Chain) {
        let (previous, next) = (slots[id.slot].previous, slots[id.slot].next)
        if previous == Self.noSlot {
            chain.first = next
        } else {
            slots[Int(previous)].next = next
        }
        if next == Self.noSlot {
            chain.last = previous
        } else {
            slots[Int(next)].previous = previous
        }
    }

    /// The records of the registrations in `chain`, in the order they joined it.
    func records(in chain: Chain) -> [Record] {
        var records: [Record] = []
        var slot = chain.first
        while slot != Self.noSlot {
            records.append(record(at: Int(slot)))
            slot = slots[Int(slot)].next
        }
        return records
    }

    /// The record of the registration in `slot`, which holds one.
    func record(at slot: Int) -> Record {
        Record(
            id: RecipientId(number: slots[slot].number, slot: slot),
            registration: slots[slot].registration.unsafelyUnwrapped.takeUnretainedValue(), order: slots[slot].order)
    }

    /// Every record, in slot order.
    var all: [Record] {
        (0..<used).filter { slots[$0].registration != nil }.map(record(at:))
    }

    /// Out of line: it runs once per doubling, and inlined into ``insert(_:order:)`` it would make every insert
    /// save and restore registers it needs.
    @inline(never)
    private func grow() {
        precondition(
            slots.capacity < Self.maximumCount,
            "an office holds at most \(Self.maximumCount) registrations at once")
        let newCapacity = min(max(16, slots.capacity * 2), Self.maximumCount)
        slots.grow(to: newCapacity, moving: used)
        freeSlots.grow(to: newCapacity, moving: freeCount)
    }
}
