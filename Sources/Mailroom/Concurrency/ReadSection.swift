internal import _MailroomAtomics

/// A stretch of code that reads the routing tables without a lock.
///
/// Whatever a writer unlinks while a section is open stays allocated until the section ends: a post can walk
/// a list of recipients while another thread unregisters one of them. Sections nest, and handlers run inside
/// them, so a handler may post, register and unregister.
struct ReadSection {
    /// The calling thread's `mailroom_reader`, opaque to Swift.
    private let reader: OpaquePointer

    @inline(__always) init() {
        reader = mailroom_read_begin().unsafelyUnwrapped
    }

    @inline(__always) func end() {
        if mailroom_read_end(reader) {
            Reclamation.collect()
        }
    }
}
