#if Observability
// The mail and errors the tests post and throw, declared as users declare theirs.

import Mailroom

/// Mail that carries a number, which a protocol registration receives too.
protocol Numbered: Mail {
    var n: Int { get }
}

struct Ping: Numbered, Equatable {
    let n: Int
}

/// Mail that nothing is registered for, in the tests that post it.
struct Pong: Mail, Equatable {}

/// Mail of as many distinct types as the tests need: `Tagged<Int>`, `Tagged<String>`...
struct Tagged<Tag>: Mail {}

/// An error a handler throws.
struct Oops: Error, Equatable {
    var tag = ""
}

/// Errors of as many distinct types as the tests need.
struct Failure<Tag>: Error {}

/// A class that sends mail.
final class Sender: Sendable {}
#endif
