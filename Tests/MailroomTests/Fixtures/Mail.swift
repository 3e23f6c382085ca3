// The mail types the tests post: plain values, an enum, a class hierarchy, same-named and generic types.

import Mailroom

struct Ping: Mail, Equatable {
    let n: Int
}

struct Pong: Mail, Equatable {
    let n: Int
}

/// Mail whose contents nobody reads, for the no-argument registration forms.
struct Chime: Mail {}

/// Mail used only by the scale tests, so that their registrations are of types no recipient under test uses.
struct Noise: Mail {
    let n: Int
}

enum Traffic: Mail, Equatable {
    case green
    case amber(seconds: Int)
    case red(reason: String)
}

/// A three-level class hierarchy of mail: `Crate` is a `Parcel`, which is a `Letter`.
class Letter: Mail, @unchecked Sendable {
    let tag: String

    init(_ tag: String) {
        self.tag = tag
    }
}

class Parcel: Letter, @unchecked Sendable {}

final class Crate: Parcel, @unchecked Sendable {}

/// Same-named mail types in different scopes.
enum ScopeA {
    struct Ping: Mail {}
}

enum ScopeB {
    struct Ping: Mail {}
}

/// A generic mail type: `Envelope<Int>` and `Envelope<String>` are different mail types.
struct Envelope<Content: Sendable>: Mail {
    let content: Content
}
