/// The mail of a post, lent to the registrations it reaches while they run on the posting thread.
///
/// A route reaches only the registrations made for the posted type or for a class it inherits from, so each
/// reads the mail as its own mail type; a debug build asserts it. Reading it copies the mail out: a delivery
/// that runs later keeps that copy, never this.
@usableFromInline
struct PostedMail {
    @usableFromInline let address: UnsafeRawPointer
    #if DEBUG
    @usableFromInline let type: any Mail.Type
    #endif

    @inline(__always)
    init(_ address: UnsafeRawPointer, type: any Mail.Type) {
        self.address = address
        #if DEBUG
        self.type = type
        #endif
    }

    /// Calls `body` with `mail` lent as posted mail.
    @inline(__always)
    static func lend<M: Mail, Result, E: Error>(_ mail: M, _ body: (PostedMail) throws(E) -> Result) throws(E) -> Result
    {
        try withUnsafePointer(to: mail) { pointer throws(E) in
            try body(PostedMail(UnsafeRawPointer(pointer), type: Swift.type(of: mail)))
        }
    }

    /// The mail, as `M`: the type the reading registration was made for.
    @inlinable @inline(__always)
    func read<M: Mail>(as _: M.Type) -> M {
        #if DEBUG
        assert(type is M.Type, "mail of type \(type) read as \(M.self)")
        #endif
        return address.load(as: M.self)
    }

    /// A copy of the mail, of its dynamic type `mailType`, for a delivery that outlives the post.
    func copy<M: Mail>(as _: M.Type) -> any Mail {
        address.load(as: M.self)
    }
}
